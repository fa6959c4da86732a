"""Tool calls for route replies that write each call whole, its arguments as an object.

Gemini and Ollama clients take a function call in one piece, with its
arguments as a JSON object, never as deltas. A stream of theirs therefore
holds each call the member announced until it is complete — when the next
call starts, or when the turn ends — and then writes it whole: `OpenCalls`
is that holding, for both. `arguments_object` reads the arguments the member
sent as the object both APIs want.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Generic, TypeVar

import orjson

from panelgate.core.turn import ToolCall, ToolCallArguments, ToolCallStarted

Written = TypeVar("Written")


class OpenCalls(Generic[Written]):
    """Announced calls not written yet, in the order they started; `write` words a complete one."""

    def __init__(self, write: Callable[[ToolCall], Written]) -> None:
        self._write = write
        self._calls: dict[int, ToolCall] = {}

    def start(self, piece: ToolCallStarted) -> list[Written]:
        """Open the call `piece` announces; the calls before it are complete, and written."""
        complete = self.rest()
        self._calls[piece.index] = ToolCall(piece.id, piece.name)
        return complete

    def extend(self, piece: ToolCallArguments) -> None:
        if piece.index in self._calls:
            self._calls[piece.index].arguments += piece.delta

    def rest(self) -> list[Written]:
        """Every call still open, written: they are complete once another starts or the turn ends."""
        written = [self._write(call) for call in self._calls.values()]
        self._calls.clear()
        return written


def arguments_object(arguments: str) -> dict[str, Any]:
    """A call's arguments as an object; text that is not a JSON object is kept whole under `arguments`."""
    if not arguments.strip():
        return {}
    try:
        parsed = orjson.loads(arguments)
    except orjson.JSONDecodeError:
        return {"arguments": arguments}
    return parsed if isinstance(parsed, dict) else {"arguments": parsed}
