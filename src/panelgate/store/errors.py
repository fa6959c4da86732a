"""Why the store refused a change, as exceptions the http room maps to statuses.

    StoreError        a message a person can act on, and the field at fault
    ├── Invalid       400  the value breaks a rule (name, range, type)
    ├── NotFound      404  no such endpoint, model, collection or call
    └── Conflict      409  the value is fine but the bench's state forbids it

Messages never carry a secret: they name endpoints, aliases and fields, not
keys, headers' values or URLs with credentials.
"""

from __future__ import annotations


class StoreError(Exception):
    status = 500

    def __init__(self, message: str, *, field: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.field = field


class Invalid(StoreError):
    status = 400


class NotFound(StoreError):
    status = 404


class Conflict(StoreError):
    status = 409
