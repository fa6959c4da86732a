"""Anthropic Messages in route mode: an agent's `/v1/messages` turn, answered by one member.

Claude Code and other Anthropic-SDK agents keep their whole tool loop in
`messages`, so the request is read with the panel adapter's own translation
(`anthropic.read_conversation`: `tool_use` → assistant `tool_calls`,
`tool_result` → `tool` messages right after them with `is_error` marked
"Error: ", images from results in the user message that follows, thinking
blocks dropped, system entries inside `messages` kept in place as system
messages: chat members take them anywhere, and a native Anthropic member
gets them as reminders in the next user turn, see `upstream.anthropic_request`).
Route mode adds what a member needs to call tools: the
caller's tools as function tools, `tool_choice` (`any` → `required`,
`disable_parallel_tool_use` → `parallel_tool_calls: false`), and
`output_config.format` as a `json_schema` response format.

Dropped, because they steer Anthropic's service rather than the answer:
`metadata`, `thinking` and `output_config.effort` (a member reasons as it is
configured to), `top_k` (chat completions has none), `service_tier`,
`speed`, `inference_geo`, `cache_control`, `context_management`,
`diagnostics`; other top-level fields are ignored too, so a newer agent does
not break on a field it adds. Refused with a 400: server tools,
`mcp_servers`, `container`, PDF/file blocks, and any block, tool or
`tool_choice` type this does not know — those change what the model sees.

Replies: text first, then one `tool_use` block per call with the parsed
arguments (arguments that are not a JSON object become `{}`: Anthropic's
`input` must be one, and an agent then reports the missing parameters to the
model, which retries). Stop reasons: stop → end_turn, length → max_tokens,
tool calls → tool_use, content_filter → refusal. Usage is the member's own,
else the gateway's estimate, as in every route format. Reasoning is not
relayed: a thinking block needs Anthropic's signature to be sent back.

Streams carry argument deltas as they arrive (`input_json_delta`), in
content blocks laid out one at a time by `TurnBlocks`; being live, arguments
a member garbles reach the client as sent.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence
from typing import Any

import orjson

from panelgate.core.errors import BadRequest
from panelgate.core.route import RouteBroken, RouteChunk, RouteEnded, RouteEvent, RouteRequest, RouteStarted
from panelgate.core.sizing import estimate_tokens
from panelgate.core.turn import (
    ToolCall,
)
from panelgate.core.types import Heartbeat
from panelgate.formats.anthropic.panel import (
    error_object,
    has_own_tools,
    message_object,
    message_start,
    read_conversation,
    read_options,
    sse,
)
from panelgate.formats.request_fields import read_model, read_stream, route_request
from panelgate.formats.route_blocks import BlockDelta, BlockEvent, BlockOpened, TurnBlocks
from panelgate.formats.route_reply import finished_turn, turn_counts

_TOOL_CHOICES = {"auto": "auto", "any": "required", "none": "none"}
_STOP_REASONS = {
    "stop": "end_turn",
    "length": "max_tokens",
    "tool_calls": "tool_use",
    "function_call": "tool_use",
    "content_filter": "refusal",
}


# ---- reading a request ---------------------------------------------------------------


def _tools(body: dict[str, Any]) -> list[dict[str, Any]]:
    """The caller's own tools as chat function tools (server tools refused by `has_own_tools`)."""
    if not has_own_tools(body):
        return []
    tools: list[dict[str, Any]] = []
    for number, tool in enumerate(body["tools"]):
        name, schema = tool.get("name"), tool.get("input_schema")
        if not isinstance(name, str) or not name:
            raise BadRequest(f"tools[{number}] needs a `name`", param="tools")
        if not isinstance(schema, dict):
            raise BadRequest(f"tools[{number}] (`{name}`) needs an `input_schema` object", param="tools")
        function: dict[str, Any] = {"name": name}
        if isinstance(description := tool.get("description"), str) and description:
            function["description"] = description
        function["parameters"] = schema
        if isinstance(strict := tool.get("strict"), bool):
            function["strict"] = strict
        tools.append({"type": "function", "function": function})
    return tools


def _tool_choice(body: dict[str, Any], names: set[str]) -> dict[str, Any]:
    """`tool_choice` as chat's `tool_choice` (and `parallel_tool_calls`)."""
    choice = body.get("tool_choice")
    if choice is None:
        return {}
    kind = choice.get("type") if isinstance(choice, dict) else None
    if not isinstance(kind, str) or (kind not in _TOOL_CHOICES and kind != "tool"):
        raise BadRequest(
            "`tool_choice` must be an object with type auto, any, tool or none", param="tool_choice"
        )
    if not names:
        if kind in ("auto", "none"):
            return {}
        raise BadRequest(f"`tool_choice` {kind!r} needs tools in `tools`", param="tool_choice")
    picked: str | dict[str, Any]
    if kind == "tool":
        name = choice.get("name")
        if not isinstance(name, str) or name not in names:
            raise BadRequest(
                f"`tool_choice` names tool {name!r}, which is not in `tools`", param="tool_choice"
            )
        picked = {"type": "function", "function": {"name": name}}
    else:
        picked = _TOOL_CHOICES[kind]
    fields: dict[str, Any] = {"tool_choice": picked}
    if choice.get("disable_parallel_tool_use") and kind != "none":
        fields["parallel_tool_calls"] = False
    return fields


def _response_format(body: dict[str, Any]) -> dict[str, Any]:
    """`output_config.format` (a JSON schema) as chat's `response_format`."""
    config = body.get("output_config")
    if config is None:
        return {}
    if not isinstance(config, dict):
        raise BadRequest("`output_config` must be an object", param="output_config")
    wanted = config.get("format")
    if wanted is None:
        return {}
    if (
        not isinstance(wanted, dict)
        or wanted.get("type") != "json_schema"
        or not isinstance(wanted.get("schema"), dict)
    ):
        raise BadRequest(
            '`output_config.format` must be {"type": "json_schema", "schema": {...}}',
            param="output_config.format",
        )
    return {
        "response_format": {
            "type": "json_schema",
            "json_schema": {"name": "output", "schema": wanted["schema"]},
        }
    }


# ---- writing a reply -----------------------------------------------------------------


def _named(calls: Sequence[ToolCall]) -> list[ToolCall]:
    """The calls that were announced: a call without a name never reached the caller."""
    return [call for call in calls if call.name]


def _input(arguments: str) -> dict[str, Any]:
    """A call's arguments as `tool_use.input`: the JSON object, else `{}` (see the module's docstring)."""
    try:
        parsed = orjson.loads(arguments or "{}")
    except orjson.JSONDecodeError:
        return {}
    return parsed if isinstance(parsed, dict) else {}


def _stop_reason(finish_reason: str | None, called: bool) -> str:
    reason = _STOP_REASONS.get(finish_reason or "", "end_turn")
    return "tool_use" if called and reason == "end_turn" else reason


def _usage(request: RouteRequest, ended: RouteEnded) -> dict[str, int]:
    """The member's own counts when it sent them, else the gateway's estimate."""
    asked, answered = turn_counts(request, ended)
    return {"input_tokens": asked, "output_tokens": answered}


def _block_event(event: BlockEvent) -> bytes:
    if isinstance(event, BlockOpened):
        block: dict[str, Any] = (
            {"type": "text", "text": ""}
            if event.call is None
            else {"type": "tool_use", "id": event.call.id, "name": event.call.name, "input": {}}
        )
        return sse("content_block_start", {"index": event.block, "content_block": block})
    if isinstance(event, BlockDelta):
        delta = (
            {"type": "text_delta", "text": event.delta}
            if event.call is None
            else {"type": "input_json_delta", "partial_json": event.delta}
        )
        return sse("content_block_delta", {"index": event.block, "delta": delta})
    return sse("content_block_stop", {"index": event.block})


def _message_end(request: RouteRequest, ended: RouteEnded) -> list[bytes]:
    stop = _stop_reason(ended.finish_reason, bool(_named(ended.tool_calls)))
    delta = {
        "delta": {"stop_reason": stop, "stop_sequence": None},
        "usage": _usage(request, ended),
        "bench": ended.bench,
    }
    return [sse("message_delta", delta), sse("message_stop", {})]


class AnthropicRoute:
    def decode_route(self, body: dict[str, Any], *, caller: str) -> RouteRequest:
        model = read_model(body)
        tools = _tools(body)
        chat: dict[str, Any] = {"messages": read_conversation(body), **read_options(body)}
        if tools:
            chat["tools"] = tools
        chat.update(_tool_choice(body, {tool["function"]["name"] for tool in tools}))
        chat.update(_response_format(body))
        return route_request(body, model=model, chat_body=chat, stream=read_stream(body), caller=caller)

    def render_route(self, request: RouteRequest, events: Sequence[RouteEvent]) -> dict[str, Any]:
        started, ended = finished_turn(events)
        calls = _named(ended.tool_calls)
        content: list[dict[str, Any]] = [{"type": "text", "text": ended.text}] if ended.text else []
        content.extend(
            {"type": "tool_use", "id": call.id, "name": call.name, "input": _input(call.arguments)}
            for call in calls
        )
        stop = _stop_reason(ended.finish_reason, bool(calls))
        message = message_object(f"msg_{started.call}", request.model, content, stop, _usage(request, ended))
        return {**message, "bench": ended.bench}

    async def stream_route(
        self, request: RouteRequest, events: AsyncIterator[RouteEvent]
    ) -> AsyncIterator[bytes]:
        blocks = TurnBlocks()
        async for event in events:
            if isinstance(event, Heartbeat):
                yield sse("ping", {})
            elif isinstance(event, RouteStarted):
                yield message_start(f"msg_{event.call}", request.model, estimate_tokens(request.messages), 0)
            elif isinstance(event, RouteChunk):
                for piece in event.pieces:
                    for block_event in blocks.add(piece):
                        yield _block_event(block_event)
            elif isinstance(event, RouteEnded):
                for block_event in blocks.finish():
                    yield _block_event(block_event)
                for written in _message_end(request, event):
                    yield written
                return
            elif isinstance(event, RouteBroken):
                # An open block stays open: closing it would hand the client a cut-off tool call.
                yield sse("error", {"error": error_object(502, event.message)})
                return
