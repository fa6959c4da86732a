"""Talking to a hub's admin API: one request at a time over httpx, never retried, never leaking the key.

Not the gateway's hot-path transport: these calls are rare, made by a
person, and want a plain client that follows the environment's proxy
settings. A request is sent once: a refused admin key is remembered
(`RefusedKeys`) and never sent again, since one hub bans after five.
Whatever a hub says is cut short and scrubbed of the admin key before it
reaches a message.

httpx is imported by the first hub call, not when the gateway starts: with
the command-line tools its package imports (rich, pygments, click) it is
4 to 6 MB that a gateway without hubs never needs.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import orjson

from panelgate.hubs.errors import HubDenied, HubUnreachable
from panelgate.hubs.refused_keys import RefusedKeys

if TYPE_CHECKING:
    import httpx

TIMEOUT_S = 20.0
CONNECT_TIMEOUT_S = 5.0
SAID_MOST = 240


def admin_client() -> httpx.AsyncClient:
    """A client for one admin request's calls to hubs (it follows the environment's proxy settings)."""
    import httpx

    return httpx.AsyncClient()


@dataclass(frozen=True)
class Answer:
    status: int
    body: Any
    """The parsed JSON body (None when it was not JSON)."""
    headers: httpx.Headers

    @property
    def ok(self) -> bool:
        return 200 <= self.status < 300


@dataclass(frozen=True)
class AdminKey:
    """The secret an admin API takes and the name it is kept under (the name may be shown, never the key)."""

    name: str
    secret: str = ""

    def __repr__(self) -> str:
        return f"AdminKey({self.name!r})"


class AdminApi:
    """One hub's admin API at `root`, for the endpoint `endpoint`."""

    def __init__(
        self,
        http: httpx.AsyncClient,
        root: str,
        *,
        endpoint: str,
        program: str,
        key: AdminKey | None,
        refused: RefusedKeys,
        key_header: str = "Authorization",
    ) -> None:
        self.root = root.rstrip("/")
        self.endpoint = endpoint
        self.program = program
        self.key = key
        self._http = http
        self._refused = refused
        self._key_header = key_header

    async def call(
        self, method: str, path: str, body: Any = None, *, params: dict[str, str] | None = None
    ) -> Answer:
        """Send one request; refuse before sending a key the hub already refused."""
        headers = {"Accept": "application/json"}
        if self.key is not None:
            when = await self._refused.refused_at(self.endpoint, self.key.secret)
            if when is not None:
                raise HubDenied(
                    f"{self.program} at `{self.endpoint}` refused the admin key `{self.key.name}` at "
                    f"{when:%H:%M} UTC; it is not sent again until a new one is stored",
                    field="admin_key",
                )
            if not (self.key.secret.isascii() and self.key.secret.isprintable()):
                raise HubDenied(
                    f"the admin key `{self.key.name}` holds characters an HTTP header cannot carry; "
                    "store it again as the hub shows it",
                    field="admin_key",
                )
            bearer = self._key_header == "Authorization"
            headers[self._key_header] = f"Bearer {self.key.secret}" if bearer else self.key.secret
        content = None if body is None else orjson.dumps(body)
        if content is not None:
            headers["Content-Type"] = "application/json"
        import httpx

        try:
            reply = await self._http.request(
                method,
                self.root + path,
                content=content,
                headers=headers,
                params=params,
                timeout=httpx.Timeout(TIMEOUT_S, connect=CONNECT_TIMEOUT_S),
            )
        except httpx.HTTPError as exc:
            raise HubUnreachable(
                f"{self.program} at {self.root} did not answer {method} {path} ({type(exc).__name__})"
            ) from None
        try:
            parsed = orjson.loads(reply.content) if reply.content else None
        except orjson.JSONDecodeError:
            parsed = None
        answer = Answer(reply.status_code, parsed, reply.headers)
        if answer.status == 401 and self.key is not None:
            await self._refused.note(self.endpoint, self.key.secret)
        return answer

    def said(self, answer: Answer) -> str:
        """What the hub said in a failing answer, short and without the admin key."""
        text = _message_of(answer.body) or f"HTTP {answer.status}"
        if self.key is not None and self.key.secret:
            text = text.replace(self.key.secret, "[admin key]")
        return text if len(text) <= SAID_MOST else text[: SAID_MOST - 1] + "…"

    def failed(self, answer: Answer, doing: str) -> HubUnreachable:
        """The error for an answer nothing more specific explains."""
        return HubUnreachable(f"{self.program} answered {answer.status} when {doing}: {self.said(answer)}")

    def denied(self, answer: Answer) -> HubDenied:
        """The error for a 401 or 403: the admin key named, never shown; not retried."""
        if self.key is None:
            return HubDenied(
                f"{self.program} at `{self.endpoint}` wants an admin key and none is stored; "
                "set one on the endpoint (`admin_key`)",
                field="admin_key",
            )
        return HubDenied(
            f"{self.program} at `{self.endpoint}` refused the admin key `{self.key.name}` "
            f"({answer.status}: {self.said(answer)}); it was sent once and is not retried: "
            "store the right one on the endpoint (`admin_key`)",
            field="admin_key",
        )


def _message_of(body: Any) -> str:
    if isinstance(body, str):
        return body
    if not isinstance(body, dict):
        return ""
    for key in ("error", "detail", "message"):
        value = body.get(key)
        if isinstance(value, str):
            return value
        if isinstance(value, dict):
            inner = _message_of(value)
            if inner:
                return inner
    return ""
