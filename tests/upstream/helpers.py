"""Small helpers shared by the upstream tests."""

from __future__ import annotations

import time

from panelgate.core.types import ChatMessage
from panelgate.upstream import Target
from tests.support.upstream import FakeUpstream

HELLO: list[ChatMessage] = [{"role": "user", "content": "say hi"}]


def target_on(upstream: FakeUpstream, served_id: str = "m1", *, key_name: str | None = None) -> Target:
    return Target(endpoint="up", base_url=upstream.url, served_id=served_id, key_name=key_name)


def seconds_from_now(seconds: float) -> float:
    """A deadline as `chat` takes it: a `time.monotonic()` value."""
    return time.monotonic() + seconds


class Collected:
    """An `on_text` sink that keeps every piece it was given."""

    def __init__(self) -> None:
        self.pieces: list[str] = []

    async def __call__(self, piece: str) -> None:
        self.pieces.append(piece)
