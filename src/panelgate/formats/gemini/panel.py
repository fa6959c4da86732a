"""Google Gemini, inbound: `:generateContent`, `:streamGenerateContent`, `:countTokens`.

People reach the bench from Google's GenAI SDKs too, so a Gemini request is
read into the canonical OpenAI-shaped `PanelRequest`. Gemini differs in ways
translated here: the model and the method live in the URL path, not the
body, so one `GeminiFormat` is made per call; fields come camelCase or
snake_case; turns are `user`/`model` with typed parts (`inlineData`,
`fileData`, `functionCall`, ...). Anything a panel would otherwise drop
silently — PDF or audio data, uploaded (Files API) files, Google-hosted
tools, cached content — is refused with what to send instead.

Google's SDKs refuse reply fields they do not know, so `bench` never goes in
the body: a whole reply names its seats in the `X-Bench-Seats` header
(`reply_headers`). A stream is SSE with `?alt=sse`, else one JSON array
written element by element. Route mode (`route`, beside this module) reads messages and
writes frames with the same helpers (`gemini_messages`, `sse_frame`, ...).
"""

from __future__ import annotations

import json
import re
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass, field
from typing import Any, Self
from urllib.parse import urlsplit

import orjson

from panelgate.core.errors import BadRequest, GatewayError
from panelgate.core.sizing import estimate_tokens
from panelgate.core.types import (
    ChatMessage,
    Failed,
    Finished,
    Heartbeat,
    PanelEvent,
    PanelRequest,
    Seated,
    TokenUsage,
)
from panelgate.formats.protocol import finished_panel
from panelgate.formats.request_fields import panel_request

METHODS = ("generateContent", "streamGenerateContent", "countTokens")
"""The Gemini model methods this gateway serves."""

_ROLES = {"user": "user", "model": "assistant", "function": "user"}
_DATA_KEYS = (
    "text",
    "inlineData",
    "fileData",
    "functionCall",
    "functionResponse",
    "executableCode",
    "codeExecutionResult",
)
_URL_SAFE = str.maketrans("-_", "+/")
_HEADER_FIELDS = ("call", "seat", "alias", "status", "usage", "served_as", "attempts")
"""A seat in `X-Bench-Seats`; `served_as` and `attempts` only when its entry has them."""
_CODE_KEYS = {"executableCode", "codeExecutionResult"}
_FILES_API_HOSTS = ("generativelanguage.googleapis.com", "storage.googleapis.com")
_OPTIONS = {
    "maxOutputTokens": "max_tokens",
    "temperature": "temperature",
    "topP": "top_p",
    "stopSequences": "stop",
    "seed": "seed",
    "presencePenalty": "presence_penalty",
    "frequencyPenalty": "frequency_penalty",
}
_STATUS_NAMES = {
    400: "INVALID_ARGUMENT",
    401: "UNAUTHENTICATED",
    403: "PERMISSION_DENIED",
    404: "NOT_FOUND",
    405: "INVALID_ARGUMENT",
    413: "INVALID_ARGUMENT",
    415: "INVALID_ARGUMENT",
    429: "RESOURCE_EXHAUSTED",
    503: "UNAVAILABLE",
}
_HOSTED_TOOLS_ADVICE = (
    "a panel cannot run Google-hosted tools (search, URL context, code execution, ...); "
    "put what they would fetch in the prompt, or send your own functionDeclarations to "
    "bench/<collection>:route"
)


def _snake(camel: str) -> str:
    return re.sub(r"(?<!^)([A-Z])", r"_\1", camel).lower()


def read_field(holder: dict[str, Any], camel: str) -> Any:
    """A field under its camelCase name or its snake_case twin (Gemini accepts both)."""
    if camel in holder:
        return holder[camel]
    return holder.get(_snake(camel))


def _object(value: object, where: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise BadRequest(f"{where} must be an object", param="contents")
    return value


def _image_from_data(data: dict[str, Any], where: str) -> dict[str, Any]:
    mime, payload = read_field(data, "mimeType"), data.get("data")
    if not isinstance(mime, str) or not mime.startswith("image/"):
        raise BadRequest(
            f"{where} is inline data of type {mime!r}, which a panel cannot pass on to its seats "
            "(only images); send the text or an image instead",
            param="contents",
        )
    if not isinstance(payload, str) or not payload:
        raise BadRequest(f"{where} needs base64 `data`", param="contents")
    return {"type": "image_url", "image_url": {"url": f"data:{mime};base64,{_standard_base64(payload)}"}}


def _standard_base64(data: str) -> str:
    """Google's SDKs send bytes URL-safe base64 encoded; a data URL needs the standard alphabet."""
    standard = data.translate(_URL_SAFE).strip()
    return standard + "=" * (-len(standard) % 4)


def _image_from_file(data: dict[str, Any], where: str) -> dict[str, Any]:
    uri, mime = read_field(data, "fileUri"), read_field(data, "mimeType")
    if not isinstance(uri, str) or not uri.startswith(("http://", "https://")):
        raise BadRequest(
            f"{where} names {uri!r}; a panel takes only http(s) image URLs — send the image "
            "as inlineData or a public http(s) URL",
            param="contents",
        )
    try:
        host = urlsplit(uri).hostname
    except ValueError:  # an unclosed IPv6 bracket
        raise BadRequest(f"{where} names {uri!r}, which is not a URL", param="contents") from None
    if host in _FILES_API_HOSTS:
        raise BadRequest(
            f"{where} names a file uploaded to Google (Files API), which the panel's seats cannot "
            "fetch; send the image as inlineData or a public http(s) URL",
            param="contents",
        )
    if mime is not None and (not isinstance(mime, str) or not mime.startswith("image/")):
        raise BadRequest(
            f"{where} is a file of type {mime!r}, which a panel cannot pass on to its seats "
            "(only images); send the text or an image instead",
            param="contents",
        )
    return {"type": "image_url", "image_url": {"url": uri}}


def _kind(part: dict[str, Any], where: str) -> str:
    kind = next((key for key in _DATA_KEYS if read_field(part, key) is not None), None)
    if kind is None:
        raise BadRequest(
            f"{where} carries {sorted(part)}, which a panel cannot pass on; send text or image parts",
            param="contents",
        )
    if kind in _CODE_KEYS:
        raise BadRequest(f"{where} is a `{kind}` part; {_HOSTED_TOOLS_ADVICE}", param="contents")
    return kind


@dataclass
class _OpenCall:
    id: str
    given: str | None
    name: str


@dataclass
class _ToolCalls:
    """Gemini function calls, given ids when they have none and matched to their responses.

    Calls are numbered `call_N` in order over the whole history; a call keeps
    the id it came with unless an earlier call already used it (ids must be
    unique in the conversation a member reads). A response answers the open
    call with its `id` when it names one, else the oldest open call of its name.
    """

    issued: int = 0
    used: set[str] = field(default_factory=set)
    open: list[_OpenCall] = field(default_factory=list)

    def call(self, value: object, where: str) -> dict[str, Any]:
        call = _object(value, where)
        name = call.get("name")
        if not isinstance(name, str) or not name:
            raise BadRequest(f"{where} is a functionCall without a name", param="contents")
        self.issued += 1
        given = call.get("id") if isinstance(call.get("id"), str) and call.get("id") else None
        call_id = given if given and given not in self.used else self._numbered()
        self.used.add(call_id)
        self.open.append(_OpenCall(call_id, given, name))
        arguments = orjson.dumps(call.get("args") or {}).decode()
        return {"id": call_id, "type": "function", "function": {"name": name, "arguments": arguments}}

    def _numbered(self) -> str:
        call_id, again = f"call_{self.issued}", 1
        while call_id in self.used:  # a caller's own id took the number
            again += 1
            call_id = f"call_{self.issued}_{again}"
        return call_id

    def answer(self, value: object, where: str) -> ChatMessage:
        response = _object(value, where)
        wanted, name = response.get("id"), response.get("name")
        by_id = [c for c in self.open if isinstance(wanted, str) and wanted in (c.id, c.given)]
        matched = by_id or [c for c in self.open if c.name == name]
        if not matched:
            raise BadRequest(
                f"{where} is a functionResponse for `{name}` with no unanswered functionCall before it",
                param="contents",
            )
        self.open.remove(matched[0])
        content = orjson.dumps(response.get("response") or {}).decode()
        return {"role": "tool", "tool_call_id": matched[0].id, "content": content}


def _joined(parts: list[dict[str, Any]]) -> str | list[dict[str, Any]]:
    """Text alone reads as plain content (parts a line apart); with images it stays a list of parts."""
    if all(p["type"] == "text" for p in parts):
        return "\n".join(str(p["text"]) for p in parts)
    return parts


def _read_content(content: object, index: int, calls: _ToolCalls) -> list[ChatMessage]:
    """One Gemini turn as OpenAI messages: function responses first, then the turn itself."""
    where = f"contents[{index}]"
    turn = _object(content, where)
    named = turn.get("role") or "user"
    role = _ROLES.get(named) if isinstance(named, str) else None
    if role is None:
        raise BadRequest(
            f"{where} has role {turn.get('role')!r}; use user or model, "
            "and put system text in systemInstruction",
            param="contents",
        )
    raw_parts = turn.get("parts")
    if not isinstance(raw_parts, list):
        raise BadRequest(f"{where}.parts must be a list of parts", param="contents")
    parts: list[dict[str, Any]] = []
    tool_calls: list[dict[str, Any]] = []
    answers: list[ChatMessage] = []
    for number, raw in enumerate(raw_parts):
        at = f"{where}.parts[{number}]"
        part = _object(raw, at)
        if part.get("thought") is True:
            continue
        kind = _kind(part, at)
        value = read_field(part, kind)
        if kind == "text":
            if not isinstance(value, str):
                raise BadRequest(f"{at}.text must be text", param="contents")
            parts.append({"type": "text", "text": value})
        elif kind == "functionCall":
            tool_calls.append(calls.call(value, at))
        elif kind == "functionResponse":
            answers.append(calls.answer(value, at))
        elif role != "user":
            raise BadRequest(f"{at}: images are accepted in user turns only", param="contents")
        else:
            read = _image_from_data if kind == "inlineData" else _image_from_file
            parts.append(read(_object(value, at), at))
    if not parts and not tool_calls:
        return answers
    message: ChatMessage = {"role": role, "content": _joined(parts)}
    if tool_calls:
        message["tool_calls"] = tool_calls
    return [*answers, message]


def _system_message(instruction: object) -> list[ChatMessage]:
    if instruction is None or instruction == "":
        return []
    if isinstance(instruction, str):
        return [{"role": "system", "content": instruction}]
    parts = instruction.get("parts") if isinstance(instruction, dict) else None
    if isinstance(parts, list) and all(isinstance(p, dict) and isinstance(p.get("text"), str) for p in parts):
        text = "\n".join(str(p["text"]) for p in parts)
        return [{"role": "system", "content": text}] if text else []
    raise BadRequest("`systemInstruction` must be text or a content of text parts", param="systemInstruction")


def function_declarations(body: dict[str, Any]) -> list[dict[str, Any]]:
    """The caller's function declarations, from every tool; Google-hosted tools are refused."""
    tools = body.get("tools")
    if tools is None:
        return []
    if not isinstance(tools, list) or not all(isinstance(t, dict) for t in tools):
        raise BadRequest("`tools` must be a list of tool objects", param="tools")
    declared: list[dict[str, Any]] = []
    for tool in tools:
        hosted = sorted(
            key for key, value in tool.items() if value is not None and _snake(key) != "function_declarations"
        )
        if hosted:
            raise BadRequest(f"`tools` asks for {', '.join(hosted)}; {_HOSTED_TOOLS_ADVICE}", param="tools")
        functions = read_field(tool, "functionDeclarations") or []
        if not isinstance(functions, list) or not all(isinstance(f, dict) for f in functions):
            raise BadRequest("`functionDeclarations` must be a list of declarations", param="tools")
        declared.extend(functions)
    return declared


def generation_options(body: dict[str, Any]) -> dict[str, Any]:
    """`generationConfig`'s sampling fields under OpenAI names, for every seat and the merger."""
    config = read_field(body, "generationConfig") or {}
    if not isinstance(config, dict):
        raise BadRequest("`generationConfig` must be an object", param="generationConfig")
    read = {ours: read_field(config, theirs) for theirs, ours in _OPTIONS.items()}
    options = {key: value for key, value in read.items() if value is not None}
    if read_field(config, "responseMimeType") == "application/json":
        options["response_format"] = {"type": "json_object"}
    return options


def gemini_messages(body: dict[str, Any]) -> list[ChatMessage]:
    """`systemInstruction` and `contents` as OpenAI messages, tool calls numbered and matched."""
    if read_field(body, "cachedContent"):
        raise BadRequest(
            "`cachedContent` names content cached at Google, which a panel's seats cannot read; "
            "send the content itself in `contents`",
            param="cachedContent",
        )
    raw = body.get("contents")
    if not isinstance(raw, list) or not raw:
        raise BadRequest("`contents` must be a non-empty list of turns", param="contents")
    messages = _system_message(read_field(body, "systemInstruction"))
    calls = _ToolCalls()
    for index, content in enumerate(raw):
        messages.extend(_read_content(content, index, calls))
    if not any(m["role"] != "system" for m in messages):
        raise BadRequest("`contents` holds nothing to answer; send the text to ask", param="contents")
    return messages


def gemini_error(status: int, message: str) -> dict[str, Any]:
    """Google's error object (`code`, `message`, `status` name), as a body or a stream element."""
    return {"code": status, "message": message, "status": _STATUS_NAMES.get(status, "INTERNAL")}


def _usage(usage: TokenUsage) -> dict[str, int]:
    """The panel's summed usage (`Finished.usage`) in Gemini's words."""
    return {
        "promptTokenCount": usage.input,
        "candidatesTokenCount": usage.output,
        "totalTokenCount": usage.total,
    }


class GeminiCall:
    """A Gemini adapter bound to one call: the model and method come from the URL path.

    The surface keeps an unbound one (used for error bodies); `for_call` binds a
    model, streaming and the stream's framing. The panel adapter and the route
    adapter (`route.GeminiRoute`) are both bound this way and frame their
    streams alike."""

    name = "gemini"

    def __init__(self, model: str = "", *, streamed: bool = False, sse: bool = True) -> None:
        self.model = model
        self.streamed = streamed
        self.sse = sse
        self.stream_media_type = "text/event-stream" if sse else "application/json"

    def for_call(self, model: str, *, streamed: bool, sse: bool) -> Self:
        return type(self)(model, streamed=streamed, sse=sse)

    async def framed(self, bodies: AsyncIterator[dict[str, Any]]) -> AsyncIterator[bytes]:
        """Each body as an SSE event with `?alt=sse`, else as an element of one JSON array."""
        frame = sse_frame if self.sse else ArrayFrame()
        async for body in bodies:
            yield frame(body)
        if isinstance(frame, ArrayFrame):
            yield frame.close()


def candidate_chunk(
    model: str, response_id: str, parts: list[dict[str, Any]], finish: str | None = None
) -> dict[str, Any]:
    """One `GenerateContentResponse` of one candidate: a stream element, or a whole reply's body."""
    candidate: dict[str, Any] = {"content": {"role": "model", "parts": parts}, "index": 0}
    if finish:
        candidate["finishReason"] = finish
    return {"candidates": [candidate], "modelVersion": model, "responseId": response_id}


class GeminiFormat(GeminiCall):
    """The Gemini panel adapter for one call (see `GeminiCall`)."""

    def decode(self, body: dict[str, Any], *, caller: str) -> PanelRequest:
        return panel_request(
            body,
            model=self.model,
            messages=gemini_messages(body),
            stream=self.streamed,
            options=generation_options(body),
            caller=caller,
            tools_offered=len(function_declarations(body)),
        )

    def decode_count(self, body: dict[str, Any], *, caller: str) -> PanelRequest:
        """A `:countTokens` body: `contents` itself or wrapped in `generateContentRequest`."""
        wrapped = read_field(body, "generateContentRequest")
        if wrapped is not None and not isinstance(wrapped, dict):
            raise BadRequest("`generateContentRequest` must be an object", param="generateContentRequest")
        return self.decode(wrapped or body, caller=caller)

    def count_tokens(self, request: PanelRequest) -> dict[str, Any]:
        """`:countTokens`: the size estimate seating uses, no model asked."""
        return {"totalTokens": estimate_tokens(request.messages)}

    def render(self, request: PanelRequest, events: Sequence[PanelEvent]) -> dict[str, Any]:
        finished, panel = finished_panel(events)
        return {
            **self._chunk(request, panel, finished.content, "STOP"),
            "usageMetadata": _usage(finished.usage),
        }

    def reply_headers(self, events: Sequence[PanelEvent]) -> dict[str, str]:
        """`X-Bench-Seats`: every seat (merger included) of a whole reply, as compact JSON, each with
        its usage (`estimated` where its upstream reported none)."""
        finished = events[-1]
        if not isinstance(finished, Finished):
            return {}
        seats = [
            *finished.bench.get("seats", ()),
            *([finished.bench["merger"]] if "merger" in finished.bench else []),
        ]
        named = [{key: seat[key] for key in _HEADER_FIELDS if key in seat} for seat in seats]
        return {"X-Bench-Seats": json.dumps(named, separators=(",", ":"))}

    async def stream(self, request: PanelRequest, events: AsyncIterator[PanelEvent]) -> AsyncIterator[bytes]:
        async for framed in self.framed(self._panel_chunks(request, events)):
            yield framed

    async def _panel_chunks(
        self, request: PanelRequest, events: AsyncIterator[PanelEvent]
    ) -> AsyncIterator[dict[str, Any]]:
        panel = ""
        async for event in events:
            if isinstance(event, Seated):
                panel = event.panel
            if isinstance(event, Failed):
                yield {"error": gemini_error(event.status, event.message)}
                return
            if isinstance(event, Finished):
                last = self._chunk(request, panel, event.text, "STOP")
                yield {**last, "usageMetadata": _usage(event.usage)}
                return
            if event.text or isinstance(event, Heartbeat):
                yield self._chunk(request, panel, event.text)

    @staticmethod
    def _chunk(request: PanelRequest, panel: str, text: str, finish: str | None = None) -> dict[str, Any]:
        return candidate_chunk(request.model, panel, [{"text": text}], finish)

    def error_body(self, error: GatewayError) -> dict[str, Any]:
        return {"error": gemini_error(error.status, error.message)}


def sse_frame(body: dict[str, Any]) -> bytes:
    """One SSE event of a `?alt=sse` stream."""
    return b"data: " + orjson.dumps(body) + b"\r\n\r\n"


class ArrayFrame:
    """The stream as one JSON array: `[` before the first element, `,\\r\\n` between, `]` at the end."""

    def __init__(self) -> None:
        self.opened = False

    def __call__(self, body: dict[str, Any]) -> bytes:
        lead = b",\r\n" if self.opened else b"["
        self.opened = True
        return lead + orjson.dumps(body)

    def close(self) -> bytes:
        return b"]" if self.opened else b"[]"
