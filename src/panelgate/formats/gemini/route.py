"""Google Gemini in route mode: an agent's `generateContent` turn, answered by one member.

The request is read with the panel adapter's own message translation
(`gemini_messages`: `functionCall` parts become numbered tool calls, each
`functionResponse` a tool message matched to its call), and Gemini's tool
settings are put in OpenAI's words: `functionDeclarations` become function
tools (their OpenAPI-style schemas as JSON Schema), `functionCallingConfig`
becomes `tool_choice`, `generationConfig` the sampling and `response_format`
fields. What no member could honour — several candidates, audio or image
output, log probabilities, enum output — is refused, never silently dropped.

Replies follow Gemini's habits: function calls arrive whole (a call's part
is written once its arguments are complete: when the next call starts, or
at the end), and the last chunk carries `finishReason` and `usageMetadata`.
Google's SDKs refuse fields they do not know, so `bench` never goes in the
body: a whole reply names the conversation, call and member in headers
(`route_headers`), as the panel adapter does with its seats.
"""

from __future__ import annotations

import re
from collections.abc import AsyncIterator, Sequence
from typing import Any

from panelgate.core.errors import BadRequest
from panelgate.core.route import RouteBroken, RouteChunk, RouteEnded, RouteEvent, RouteRequest, RouteStarted
from panelgate.core.turn import TextPiece, ToolCall, ToolCallArguments, ToolCallStarted
from panelgate.core.types import ChatMessage, Heartbeat
from panelgate.formats.gemini.panel import (
    GeminiCall,
    candidate_chunk,
    function_declarations,
    gemini_error,
    gemini_messages,
    generation_options,
    read_field,
)
from panelgate.formats.open_calls import OpenCalls, arguments_object
from panelgate.formats.request_fields import route_request
from panelgate.formats.route_reply import finished_turn, turn_counts

BROKEN_STATUS = 502
"""A member that failed part way is a bad gateway, as the SDK reads a stream's error."""

_FINISH = {
    "stop": "STOP",
    "tool_calls": "STOP",
    "function_call": "STOP",
    "length": "MAX_TOKENS",
    "content_filter": "SAFETY",
}
_CHOICE_MODES = {"AUTO", "ANY", "NONE", "VALIDATED", "MODE_UNSPECIFIED"}
_SCHEMA_DROPPED = {"propertyOrdering", "nullable"}
"""Gemini schema fields with no JSON Schema twin (`nullable` becomes a `null` type)."""
_SCHEMA_RENAMED = {"defs": "$defs", "ref": "$ref"}


def _camel(key: str) -> str:
    return re.sub(r"_([a-z])", lambda m: m.group(1).upper(), key)


def json_schema(schema: Any) -> Any:
    """A Gemini (OpenAPI-style) schema as JSON Schema: types lower-cased, `nullable` a `null` type.

    Keys come camelCase or snake_case; property names are the caller's and stay as sent."""
    if isinstance(schema, list):
        return [json_schema(s) for s in schema]
    if not isinstance(schema, dict):
        return schema
    read: dict[str, Any] = {}
    for key, value in schema.items():
        name = _camel(key)
        name = _SCHEMA_RENAMED.get(name, name)
        if name in _SCHEMA_DROPPED:
            continue
        if name == "type":
            value = value.lower() if isinstance(value, str) else value
            if value == "type_unspecified":
                continue
        elif name in ("properties", "$defs") and isinstance(value, dict):
            value = {prop: json_schema(sub) for prop, sub in value.items()}
        elif name in ("items", "anyOf", "additionalProperties"):
            value = json_schema(value)
        read[name] = value
    nullable = read_field(schema, "nullable")
    if nullable is True and isinstance(read.get("type"), str):
        read["type"] = [read["type"], "null"]
    return read


def _tool(declaration: dict[str, Any], where: str) -> dict[str, Any]:
    """One `functionDeclaration` as an OpenAI function tool (`response` schemas have no place there)."""
    name = declaration.get("name")
    if not isinstance(name, str) or not name:
        raise BadRequest(f"{where} is a functionDeclaration without a name", param="tools")
    function: dict[str, Any] = {"name": name}
    if isinstance(description := declaration.get("description"), str) and description:
        function["description"] = description
    schema = read_field(declaration, "parametersJsonSchema")
    if schema is None and (parameters := declaration.get("parameters")) is not None:
        schema = json_schema(parameters)
    if schema is not None and not isinstance(schema, dict):
        raise BadRequest(f"{where}.parameters must be a schema object", param="tools")
    function["parameters"] = schema or {"type": "object", "properties": {}}
    return {"type": "function", "function": function}


def _calling_config(body: dict[str, Any]) -> dict[str, Any] | None:
    config = read_field(body, "toolConfig")
    if config is None:
        return None
    calling = read_field(config, "functionCallingConfig") if isinstance(config, dict) else None
    if calling is not None and not isinstance(calling, dict):
        raise BadRequest("`toolConfig.functionCallingConfig` must be an object", param="toolConfig")
    return calling


def _tool_choice(body: dict[str, Any], declared: set[str]) -> tuple[str | dict[str, Any] | None, str]:
    """`functionCallingConfig` as `tool_choice`, and a note for the system text when
    several `allowedFunctionNames` narrow it further than OpenAI can say."""
    calling = _calling_config(body)
    if calling is None:
        return None, ""
    mode = str(read_field(calling, "mode") or "AUTO").upper()
    if mode not in _CHOICE_MODES:
        raise BadRequest(
            f"functionCallingConfig.mode {mode!r} is not AUTO, ANY, NONE or VALIDATED", param="toolConfig"
        )
    if mode == "NONE":
        return "none", ""
    names = read_field(calling, "allowedFunctionNames") or []
    if not isinstance(names, list) or not all(isinstance(n, str) for n in names):
        raise BadRequest("`allowedFunctionNames` must be a list of function names", param="toolConfig")
    unknown = [n for n in names if n not in declared]
    if unknown:
        raise BadRequest(
            f"allowedFunctionNames names {', '.join(unknown)}, which no functionDeclaration declares",
            param="toolConfig",
        )
    note = f"Call only these functions: {', '.join(names)}." if names else ""
    if mode != "ANY":
        return "auto", note
    if len(names) == 1:
        return {"type": "function", "function": {"name": names[0]}}, ""
    return "required", note


def _noted(messages: list[ChatMessage], note: str) -> list[ChatMessage]:
    """`note` at the end of the system text (a system message anywhere else breaks some templates)."""
    if messages and messages[0].get("role") == "system" and isinstance(messages[0].get("content"), str):
        return [{**messages[0], "content": f"{messages[0]['content']}\n\n{note}"}, *messages[1:]]
    return [{"role": "system", "content": note}, *messages]


def _response_format(config: dict[str, Any]) -> dict[str, Any]:
    schema = read_field(config, "responseJsonSchema")
    if schema is None and (gemini_schema := read_field(config, "responseSchema")) is not None:
        schema = json_schema(gemini_schema)
    if schema is None:
        return {"type": "json_object"}
    return {"type": "json_schema", "json_schema": {"name": "reply", "schema": schema}}


def _generation(body: dict[str, Any]) -> dict[str, Any]:
    """`generationConfig` as OpenAI fields; what a member could not honour is refused."""
    options = generation_options(body)
    config: dict[str, Any] = read_field(body, "generationConfig") or {}
    count = read_field(config, "candidateCount")
    if isinstance(count, int) and count > 1:
        raise BadRequest(
            "candidateCount above 1 asks for several answers; route mode asks one member once",
            param="generationConfig",
        )
    mime = read_field(config, "responseMimeType")
    if mime == "application/json":
        options["response_format"] = _response_format(config)
    elif mime not in (None, "", "text/plain"):
        raise BadRequest(
            f"responseMimeType {mime!r} is not served in route mode; use application/json "
            "(with a schema) or text/plain",
            param="generationConfig",
        )
    modalities = read_field(config, "responseModalities") or []
    modalities = [modalities] if isinstance(modalities, str) else modalities
    if not isinstance(modalities, list) or any(str(m).upper() != "TEXT" for m in modalities):
        raise BadRequest(
            "route mode answers in text only; ask for responseModalities TEXT", param="generationConfig"
        )
    if read_field(config, "responseLogprobs"):
        raise BadRequest(
            "log probabilities are not relayed in route mode; leave responseLogprobs out",
            param="generationConfig",
        )
    return options


def _call_part(call: ToolCall) -> dict[str, Any]:
    return {"functionCall": {"id": call.id, "name": call.name, "args": arguments_object(call.arguments)}}


def _usage(request: RouteRequest, ended: RouteEnded) -> dict[str, int]:
    """The member's own counts when it sent them, else the gateway's estimate; thoughts apart,
    as Gemini counts them."""
    prompt, out = turn_counts(request, ended)
    thoughts = min(ended.usage.tokens_reasoning or 0, out)
    counts = {
        "promptTokenCount": prompt,
        "candidatesTokenCount": out - thoughts,
        "totalTokenCount": prompt + out,
    }
    return {**counts, "thoughtsTokenCount": thoughts} if thoughts else counts


def _add_text(parts: list[dict[str, Any]], text: str) -> None:
    if parts and "text" in parts[-1]:
        parts[-1] = {"text": parts[-1]["text"] + text}
    else:
        parts.append({"text": text})


class GeminiRoute(GeminiCall):
    """Route mode for one Gemini call: the model and the method come from the URL path,
    as for `GeminiFormat`; `for_call` binds them (see `GeminiCall`)."""

    def decode_route(self, body: dict[str, Any], *, caller: str) -> RouteRequest:
        messages = gemini_messages(body)
        chat: dict[str, Any] = {}
        declared = function_declarations(body)
        if declared:
            chat["tools"] = [_tool(d, f"functionDeclarations[{n}]") for n, d in enumerate(declared)]
            choice, note = _tool_choice(body, {t["function"]["name"] for t in chat["tools"]})
            if choice is not None:
                chat["tool_choice"] = choice
            if note:
                messages = _noted(messages, note)
        chat_body = {"messages": messages, **chat, **_generation(body)}
        return route_request(body, model=self.model, chat_body=chat_body, stream=self.streamed, caller=caller)

    def render_route(self, request: RouteRequest, events: Sequence[RouteEvent]) -> dict[str, Any]:
        started, ended = finished_turn(events)
        parts = [{"text": ended.text}] if ended.text else []
        parts += [_call_part(call) for call in _named(ended.tool_calls)]
        finish = _finish(ended.finish_reason)
        last = candidate_chunk(request.model, started.call, parts or [{"text": ""}], finish)
        return {**last, "usageMetadata": _usage(request, ended)}

    async def stream_route(
        self, request: RouteRequest, events: AsyncIterator[RouteEvent]
    ) -> AsyncIterator[bytes]:
        async for framed in self.framed(self._turn_chunks(request, events)):
            yield framed

    async def _turn_chunks(
        self, request: RouteRequest, events: AsyncIterator[RouteEvent]
    ) -> AsyncIterator[dict[str, Any]]:
        response_id, calls = "", OpenCalls(_call_part)
        async for event in events:
            if isinstance(event, RouteStarted):
                response_id = event.call
            elif isinstance(event, Heartbeat):
                yield candidate_chunk(request.model, response_id, [{"text": ""}])
            elif isinstance(event, RouteBroken):
                yield {"error": gemini_error(BROKEN_STATUS, event.message)}
                return
            elif isinstance(event, RouteEnded):
                finish = _finish(event.finish_reason)
                last = candidate_chunk(request.model, response_id, calls.rest() or [{"text": ""}], finish)
                yield {**last, "usageMetadata": _usage(request, event)}
                return
            elif parts := _chunk_parts(event, calls):
                yield candidate_chunk(request.model, response_id, parts)


def _chunk_parts(chunk: RouteChunk, calls: OpenCalls[dict[str, Any]]) -> list[dict[str, Any]]:
    """The parts a chunk completes, in order: its text, and calls finished by a later call's start.
    Reasoning is not relayed: Gemini clients did not ask for another model's thoughts."""
    parts: list[dict[str, Any]] = []
    for piece in chunk.pieces:
        if isinstance(piece, TextPiece):
            _add_text(parts, piece.text)
        elif isinstance(piece, ToolCallStarted):
            parts += calls.start(piece)
        elif isinstance(piece, ToolCallArguments):
            calls.extend(piece)
    return parts


def _named(calls: Sequence[ToolCall]) -> list[ToolCall]:
    return [call for call in calls if call.name]


def _finish(reason: str | None) -> str:
    return _FINISH.get(reason or "stop", "OTHER")
