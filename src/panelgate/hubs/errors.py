"""Why a hub would not take a model, drawn as a tree; each kind carries the status the admin API shows.

    HubError                 message a person can act on, `field` at fault, `status`
    ├── NotAHub         400  the endpoint has no `hub` set: nothing to talk to
    ├── NoSuchConnection 404 the hub serves nothing through the connection named
    ├── HubRefused      409  the hub cannot take this model as asked (name taken, no database,
    │                        models kept in a config file, keys masked, a list changed underneath)
    ├── HubDenied       502  the hub refused its admin key, or its admin API is off
    └── HubUnreachable  502  no answer, or an answer the adapter cannot read

No message ever holds a secret: the admin key is scrubbed from whatever a
hub says before it is repeated (`wire.py`).
"""

from __future__ import annotations


class HubError(Exception):
    status = 502

    def __init__(self, message: str, *, field: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.field = field


class NotAHub(HubError):
    status = 400


class NoSuchConnection(HubError):
    status = 404


class HubRefused(HubError):
    status = 409


class HubDenied(HubError):
    status = 502


class HubUnreachable(HubError):
    status = 502
