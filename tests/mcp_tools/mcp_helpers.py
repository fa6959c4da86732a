"""The official MCP SDK client pointed at a gateway, and readers of what its tools return."""

from __future__ import annotations

import json
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import httpx2
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

from tests.support.gateway import Gateway


@asynccontextmanager
async def mcp_client(gateway: Gateway, path: str = "/mcp", key: str | None = None) -> AsyncIterator[Client]:
    headers = {"Authorization": f"Bearer {key}"} if key else {}
    async with (
        httpx2.AsyncClient(headers=headers, timeout=60) as http,
        Client(streamable_http_client(f"{gateway.url}{path}", http_client=http)) as client,
    ):
        yield client


def as_json(result: Any) -> dict[str, Any]:
    """A tool result's JSON part (the last text content), after checking it is not an error."""
    assert not result.is_error, result.content
    return json.loads(result.content[-1].text)


class ProgressLog:
    """A progress callback that keeps each notification and when it arrived."""

    def __init__(self) -> None:
        self.seen: list[tuple[float, float, float | None, str]] = []

    async def __call__(self, progress: float, total: float | None, message: str | None) -> None:
        self.seen.append((time.monotonic(), progress, total, message or ""))

    def seat_messages(self) -> list[str]:
        """One message per finished seat: `member m1: ok in 0.0 s`."""
        return [message for *_, message in self.seen if " in " in message and message.endswith(" s")]

    def finished_aliases(self) -> list[str]:
        return [message.split(":")[0].split()[-1] for message in self.seat_messages()]

    def first_seat_at(self) -> float:
        return next(at for at, _, _, message in self.seen if message in self.seat_messages())

    def last(self) -> tuple[float, float | None]:
        _, progress, total, _ = self.seen[-1]
        return progress, total


def failure_messages(failure: BaseException) -> list[str]:
    """The messages of every exception inside `failure` (the SDK nests them in task-group groups)."""
    if isinstance(failure, BaseExceptionGroup):
        return [m for inner in failure.exceptions for m in failure_messages(inner)]
    return [str(getattr(failure, "message", failure))]
