"""Ollama in route mode: an agent's `/api/chat` (or `/api/generate`) turn, answered by one member.

The request is read with the panel adapter's own translation (`chat_messages`:
images as data URLs, id-less tool calls numbered `call_N`, each tool result
matched to the oldest open call of its tool), and `options`/`format` become
OpenAI sampling fields and `response_format`. `think` is dropped: a member
thinks as it is configured to, and reasoning is not relayed to Ollama clients.

Replies follow Ollama's habits: text as it arrives, each tool call whole in a
line of its own once its arguments are complete (when the next call starts,
or at the end), arguments as an object; the `done` line last, carrying
`bench` as the panel adapter's does. `/api/generate` has no tools, so a
request with some is refused pointing to `/api/chat`.
"""

from __future__ import annotations

import time
from abc import ABC, abstractmethod
from collections.abc import AsyncIterator, Sequence
from typing import Any

from panelgate.core.errors import BadRequest
from panelgate.core.route import RouteBroken, RouteChunk, RouteEnded, RouteEvent, RouteRequest
from panelgate.core.turn import TextPiece, ToolCall, ToolCallArguments, ToolCallStarted
from panelgate.core.types import Heartbeat
from panelgate.formats.ollama.panel import (
    chat_messages,
    created_at,
    durations,
    generate_messages,
    model_name,
    ndjson_line,
    read_options,
)
from panelgate.formats.open_calls import OpenCalls, arguments_object
from panelgate.formats.request_fields import read_model, read_own_tools, read_stream, route_request
from panelgate.formats.route_reply import turn_counts

_TOOLS_ADVICE = "send your own function tools"


def _options(body: dict[str, Any]) -> dict[str, Any]:
    """`options` and `format` as OpenAI fields (`read_options`); `logprobs` is refused."""
    if body.get("logprobs"):
        raise BadRequest(
            "log probabilities are not relayed in route mode; leave `logprobs` out", param="logprobs"
        )
    return read_options(body)


def _tools(body: dict[str, Any]) -> list[dict[str, Any]]:
    if not read_own_tools(body, own_types={"function", None}, refusal=_TOOLS_ADVICE):
        return []
    tools: list[dict[str, Any]] = body["tools"]
    for n, tool in enumerate(tools):
        function = tool.get("function")
        if not isinstance(function, dict) or not isinstance(function.get("name"), str):
            raise BadRequest(
                f"tools[{n}] must be {{'function': {{'name': ..., 'parameters': ...}}}}", param="tools"
            )
    return [{**tool, "type": "function"} for tool in tools]


def _route_request(body: dict[str, Any], chat: dict[str, Any], caller: str) -> RouteRequest:
    """Ollama streams unless told not to; `:latest` names the same collection, which replies name."""
    model = read_model(body)
    return route_request(
        body,
        model=model,
        chat_body={**chat, **_options(body)},
        stream=read_stream(body, default=True),
        caller=caller,
        read_as=model_name(model),
    )


def _tool_call(call: ToolCall) -> dict[str, Any]:
    return {"function": {"name": call.name, "arguments": arguments_object(call.arguments)}}


def _seconds(value: object) -> float | None:
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else None


def _turn_durations(bench: dict[str, Any], took_s: float, first_piece_s: float | None) -> dict[str, int]:
    """Ollama's durations for a turn: until its first piece the prompt's evaluation, the rest the answer's.

    `bench.seconds` and `bench.first_token_s` win when the engine says; else what this reply saw
    (a whole reply sees no first piece, so all of it counts as the answer's).
    """
    total = _seconds(bench.get("seconds"))
    first = _seconds(bench.get("first_token_s")) if total is not None else first_piece_s
    total = took_s if total is None else total
    return durations(0.0, min(first or 0.0, total), total)


def _said(chunk: RouteChunk, calls: OpenCalls[dict[str, Any]]) -> list[tuple[str, list[dict[str, Any]]]]:
    """What a chunk gives to write, in order: text, or tool calls a later call's start completed."""
    said: list[tuple[str, list[dict[str, Any]]]] = []
    text = ""
    for piece in chunk.pieces:
        if isinstance(piece, TextPiece):
            text += piece.text
        elif isinstance(piece, ToolCallArguments):
            calls.extend(piece)
        elif isinstance(piece, ToolCallStarted) and (complete := calls.start(piece)):
            said += [(text, [])] if text else []
            said.append(("", complete))
            text = ""
    return [*said, (text, [])] if text else said


class _OllamaRoute(ABC):
    """The reply and stream both Ollama routes share; a subclass says where the answer goes.

    One is made per request with the time it arrived (`began`, from `time.monotonic()`), so the
    durations Ollama clients turn into tokens per second are the time the caller waited.
    """

    name = "ollama"
    stream_media_type = "application/x-ndjson"

    def __init__(self, began: float | None = None) -> None:
        self._began = time.monotonic() if began is None else began

    @abstractmethod
    def _answer(self, text: str, calls: list[dict[str, Any]]) -> dict[str, Any]: ...

    def _line(
        self, request: RouteRequest, text: str, calls: list[dict[str, Any]], *, done: bool = False
    ) -> dict[str, Any]:
        return {"model": request.model, "created_at": created_at(), **self._answer(text, calls), "done": done}

    def _done(
        self,
        request: RouteRequest,
        ended: RouteEnded,
        text: str,
        calls: list[dict[str, Any]],
        first_piece_s: float | None = None,
    ) -> dict[str, Any]:
        prompt, answer = turn_counts(request, ended)
        return {
            **self._line(request, text, calls, done=True),
            "done_reason": "length" if ended.finish_reason == "length" else "stop",
            **_turn_durations(ended.bench, time.monotonic() - self._began, first_piece_s),
            "prompt_eval_count": prompt,
            "eval_count": answer,
            "bench": ended.bench,
        }

    def render_route(self, request: RouteRequest, events: Sequence[RouteEvent]) -> dict[str, Any]:
        ended = events[-1]
        assert isinstance(ended, RouteEnded), "render_route is only called on a turn that ended"
        calls = [_tool_call(call) for call in ended.tool_calls if call.name]
        return self._done(request, ended, ended.text, calls)

    async def stream_route(
        self, request: RouteRequest, events: AsyncIterator[RouteEvent]
    ) -> AsyncIterator[bytes]:
        calls = OpenCalls(_tool_call)
        first_piece_s: float | None = None
        async for event in events:
            if isinstance(event, Heartbeat):
                yield ndjson_line(self._line(request, "", []))
            elif isinstance(event, RouteBroken):
                yield ndjson_line({"error": event.message})
                return
            elif isinstance(event, RouteEnded):
                if rest := calls.rest():
                    yield ndjson_line(self._line(request, "", rest))
                yield ndjson_line(self._done(request, event, "", [], first_piece_s))
                return
            elif isinstance(event, RouteChunk):
                if first_piece_s is None and event.pieces:
                    first_piece_s = time.monotonic() - self._began
                for text, complete in _said(event, calls):
                    yield ndjson_line(self._line(request, text, complete))


class OllamaChatRoute(_OllamaRoute):
    """`POST /api/chat`: the answer goes in `message` (`content`, and `tool_calls` when there are some)."""

    def decode_route(self, body: dict[str, Any], *, caller: str) -> RouteRequest:
        chat: dict[str, Any] = {"messages": chat_messages(body.get("messages"))}
        if tools := _tools(body):
            chat["tools"] = tools
        return _route_request(body, chat, caller)

    def _answer(self, text: str, calls: list[dict[str, Any]]) -> dict[str, Any]:
        message: dict[str, Any] = {"role": "assistant", "content": text}
        if calls:
            message["tool_calls"] = calls
        return {"message": message}


class OllamaGenerateRoute(_OllamaRoute):
    """`POST /api/generate`: one prompt (and system text, images) in, `response` text out; no tools."""

    def decode_route(self, body: dict[str, Any], *, caller: str) -> RouteRequest:
        if body.get("tools"):
            raise BadRequest(
                "/api/generate takes no tools; send them with `messages` to /api/chat", param="tools"
            )
        if body.get("raw") or body.get("template"):
            raise BadRequest(
                "`raw` prompts and `template`s format the prompt for one model's chat template, which a "
                "member behind an API applies itself; send the plain prompt",
                param="raw" if body.get("raw") else "template",
            )
        return _route_request(body, {"messages": generate_messages(body)}, caller)

    def _answer(self, text: str, calls: list[dict[str, Any]]) -> dict[str, Any]:
        return {"response": text}
