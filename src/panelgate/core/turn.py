"""One model's turn, read from OpenAI chat-completion chunks.

Route mode relays a member's answer into whatever API the caller speaks, as
it arrives. Every API needs the same facts from the chunks: which piece is
answer text and which is reasoning, which tool call an argument delta belongs
to, how the turn finished and what it cost. `TurnReader` reads them once, in
the engine, and hands each inbound format the pieces in order, so no format
re-parses chunks or guesses at tool-call bookkeeping.

Tool-call deltas are matched the way upstreams actually send them: by `id`
when one is given, else by `index`, else they continue the last call. An id
that arrives after a call's first piece attaches to that call; a new id on a
reused index starts a new call. A call is announced (`ToolCallStarted`) once
its name is known, with the upstream's id or, when the upstream sent none
yet, one made here; arguments that came before the name follow at once.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True, slots=True)
class TextPiece:
    text: str


@dataclass(frozen=True, slots=True)
class ReasoningPiece:
    text: str


@dataclass(frozen=True, slots=True)
class ToolCallStarted:
    index: int
    """The call's position in this turn, from 0, whatever index the upstream used."""
    id: str
    name: str


@dataclass(frozen=True, slots=True)
class ToolCallArguments:
    index: int
    delta: str


TurnPiece = TextPiece | ReasoningPiece | ToolCallStarted | ToolCallArguments


@dataclass(slots=True)
class ToolCall:
    id: str
    name: str = ""
    arguments: str = ""
    upstream_ids: set[str] = field(default_factory=set)
    announced: bool = False


@dataclass(frozen=True, slots=True)
class TurnUsage:
    tokens_in: int | None = None
    tokens_out: int | None = None
    tokens_reasoning: int | None = None


class TurnReader:
    """Feed it chunks in order; read the pieces it returns and, at the end, the whole turn."""

    def __init__(self, call_id_prefix: str = "call") -> None:
        self._prefix = call_id_prefix
        self.text = ""
        self.reasoning = ""
        self.tool_calls: list[ToolCall] = []
        self.finish_reason: str | None = None
        self.usage = TurnUsage()
        self.model = ""
        self._by_upstream_index: dict[int, int] = {}

    @property
    def has_answer(self) -> bool:
        """Text or a tool call has arrived: reasoning alone is not yet an answer."""
        return bool(self.text) or any(call.announced for call in self.tool_calls)

    def feed(self, chunk: Mapping[str, Any]) -> list[TurnPiece]:
        pieces: list[TurnPiece] = []
        if isinstance(model := chunk.get("model"), str) and model:
            self.model = model
        if isinstance(usage := chunk.get("usage"), Mapping):
            self.usage = _usage(usage)
        choices = chunk.get("choices")
        if not isinstance(choices, list):
            return pieces
        for choice in choices:
            if not isinstance(choice, Mapping) or choice.get("index", 0) not in (0, None):
                continue  # one answer per turn: n > 1 is not relayed
            delta = choice.get("delta") or choice.get("message") or {}
            if isinstance(delta, Mapping):
                pieces.extend(self._delta(delta))
            if isinstance(reason := choice.get("finish_reason"), str) and reason:
                self.finish_reason = reason
        return pieces

    def _delta(self, delta: Mapping[str, Any]) -> list[TurnPiece]:
        pieces: list[TurnPiece] = []
        for name in ("reasoning_content", "reasoning"):
            if isinstance(thought := delta.get(name), str) and thought:
                self.reasoning += thought
                pieces.append(ReasoningPiece(thought))
                break
        if isinstance(text := delta.get("content"), str) and text:
            self.text += text
            pieces.append(TextPiece(text))
        calls = delta.get("tool_calls")
        if isinstance(calls, list):
            for part in calls:
                if isinstance(part, Mapping):
                    pieces.extend(self._tool_call(part))
        return pieces

    def _tool_call(self, part: Mapping[str, Any]) -> list[TurnPiece]:
        upstream_id = part.get("id") if isinstance(part.get("id"), str) and part.get("id") else None
        upstream_index = part.get("index") if isinstance(part.get("index"), int) else None
        position = self._position(upstream_id, upstream_index)
        call = self.tool_calls[position]
        if upstream_id is not None:
            call.upstream_ids.add(upstream_id)
        if upstream_index is not None:
            self._by_upstream_index[upstream_index] = position
        function = part.get("function")
        function = function if isinstance(function, Mapping) else {}
        pieces: list[TurnPiece] = []
        if not call.name and isinstance(name := function.get("name"), str) and name:
            call.name = name
        arguments = function.get("arguments")
        arguments = arguments if isinstance(arguments, str) else ""
        if call.name and not call.announced:
            call.announced = True
            pieces.append(ToolCallStarted(position, call.id, call.name))
            if call.arguments:  # arguments that came before the name
                pieces.append(ToolCallArguments(position, call.arguments))
        if arguments:
            call.arguments += arguments
            if call.announced:
                pieces.append(ToolCallArguments(position, arguments))
        return pieces

    def _position(self, upstream_id: str | None, upstream_index: int | None) -> int:
        if upstream_id is not None:
            for position, call in enumerate(self.tool_calls):
                if upstream_id in call.upstream_ids:
                    return position
        if upstream_index is not None and upstream_index in self._by_upstream_index:
            position = self._by_upstream_index[upstream_index]
            known = self.tool_calls[position].upstream_ids
            if upstream_id is None or not known:
                return position  # an id arriving after the call's first piece attaches to it
        elif upstream_index is None and upstream_id is None and self.tool_calls:
            return len(self.tool_calls) - 1
        self.tool_calls.append(ToolCall(id=upstream_id or f"{self._prefix}_{len(self.tool_calls)}"))
        return len(self.tool_calls) - 1


def _usage(usage: Mapping[str, Any]) -> TurnUsage:
    details = usage.get("completion_tokens_details")
    reasoning = details.get("reasoning_tokens") if isinstance(details, Mapping) else None
    return TurnUsage(
        tokens_in=_count(usage.get("prompt_tokens")),
        tokens_out=_count(usage.get("completion_tokens")),
        tokens_reasoning=_count(reasoning),
    )


def _count(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else None
