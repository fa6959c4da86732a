"""The parts of a raw ASGI request the access checks read, decoded once."""

from __future__ import annotations

from dataclasses import dataclass
from http.cookies import CookieError, SimpleCookie
from urllib.parse import parse_qsl

from starlette.types import Scope

from panelgate.http.body import is_json_media, media_type


@dataclass(frozen=True)
class RequestView:
    method: str
    path: str
    headers: dict[str, str]
    """Lower-case names; the first value of a repeated header."""
    query: bytes
    client: str

    @classmethod
    def of(cls, scope: Scope) -> RequestView:
        headers: dict[str, str] = {}
        for name, value in scope.get("headers", ()):
            headers.setdefault(name.decode("latin-1").lower(), value.decode("latin-1"))
        client = scope.get("client")
        return cls(
            method=scope.get("method", "GET"),
            path=scope.get("path", "/"),
            headers=headers,
            query=scope.get("query_string", b""),
            client=client[0] if client else "",
        )

    def query_value(self, name: str) -> str | None:
        for key, value in parse_qsl(self.query.decode("latin-1"), keep_blank_values=True):
            if key == name:
                return value
        return None

    def cookie(self, name: str) -> str | None:
        raw = self.headers.get("cookie")
        if not raw:
            return None
        jar: SimpleCookie = SimpleCookie()
        try:
            jar.load(raw)
        except CookieError:
            return None
        found = jar.get(name)
        return found.value if found is not None else None

    def bearer(self) -> str | None:
        """The credential of `Authorization: Bearer <it>`; the whole header for any other scheme."""
        header = self.headers.get("authorization")
        if header is None:
            return None
        scheme, _, credential = header.strip().partition(" ")
        return credential.strip() if scheme.lower() == "bearer" else header.strip()

    def has_body(self) -> bool:
        length = self.headers.get("content-length")
        return "transfer-encoding" in self.headers or (length is not None and length.strip() not in ("", "0"))

    def media(self) -> str:
        """The body's media type, lower-case and without parameters ("" when not given)."""
        return media_type(self.headers.get("content-type", ""))

    def is_json(self) -> bool:
        """The handlers' own rule (`http.body`), so a write let through here is read there."""
        return is_json_media(self.media())

    def wants_html(self) -> bool:
        return self.method == "GET" and "text/html" in self.headers.get("accept", "")
