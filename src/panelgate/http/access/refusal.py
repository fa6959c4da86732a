"""A request refused by the access layer: the error (its caller's API shapes it) and extra headers."""

from __future__ import annotations

from collections.abc import Mapping

from panelgate.core.errors import GatewayError


class Refusal(Exception):
    def __init__(self, error: GatewayError, headers: Mapping[str, str] | None = None) -> None:
        super().__init__(error.message)
        self.error = error
        self.headers = dict(headers or {})
