"""OpenAI Responses, inbound: `POST /v1/responses`.

Newer OpenAI clients speak only this API, so its `input` (a string or a list
of items) is read into the canonical OpenAI-shaped `PanelRequest`:
`instructions` and system/developer messages become system messages,
`input_image` parts become `image_url` parts, function and custom tool calls
and their outputs become tool calls and tool messages (a tool history, which
a panel refuses pointing to `:route`; tools merely offered are left out), and
reasoning items are dropped because no seat could continue another model's
reasoning.

Nothing is stored here, so whatever continues a stored conversation
(`previous_response_id`, `conversation`, stored prompts, item references,
background runs) is refused, and every reply says `store: false`. Vendor-hosted
tools (web search, file search, code interpreter, ...), file and audio parts
and uploaded-file ids are refused too, because a 200 that quietly ignored them
would be worse than a 400 saying what to send instead.

Route mode (`route`, beside this module) reads `input` with the same functions
(`read_input`, `read_options`, `refuse_stored`, `has_own_tools`) and writes
its replies with the same builders, so both modes speak one dialect.
"""

from __future__ import annotations

import time
from collections.abc import AsyncIterator, Sequence
from typing import Any

import orjson

from panelgate.core.errors import BadRequest, GatewayError
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
from panelgate.formats.protocol import BenchInBody, finished_panel
from panelgate.formats.request_fields import panel_request, read_model, read_own_tools, read_stream

_ROLES = {"user": "user", "assistant": "assistant", "system": "system", "developer": "system"}
_TEXT_PARTS = {"input_text", "output_text", "refusal"}
_OWN_TOOLS = {"function", "custom", "namespace"}
_TOOL_OUTPUTS = {"function_call_output", "custom_tool_call_output"}
_OPTIONS = {"max_output_tokens": "max_tokens", "temperature": "temperature", "top_p": "top_p"}
HOSTED_ADVICE = (
    "the gateway cannot run OpenAI's hosted tools; describe the task in text, "
    "or send your own function tools to bench/<collection>:route"
)
_IMAGE_ONLY_OUTPUT = "(the output is the image in the next message)"
_NOTHING_STORED = (
    "nothing is stored here (every reply says store: false); send the whole conversation as `input`"
)


# ---- reading a request ---------------------------------------------------------------


def refuse_stored(body: dict[str, Any]) -> None:
    for field in ("previous_response_id", "conversation", "prompt"):
        if body.get(field) is not None:
            raise BadRequest(f"`{field}` refers to something stored; {_NOTHING_STORED}", param=field)
    if body.get("background"):
        raise BadRequest(
            "`background` runs are not supported: nothing is stored to poll; ask without it "
            "(stream to see seats as they finish)",
            param="background",
        )


def has_own_tools(body: dict[str, Any]) -> bool:
    """True for a non-empty `tools` of the caller's own tools; hosted tools are refused."""
    return read_own_tools(body, own_types=_OWN_TOOLS, refusal=HOSTED_ADVICE)


def _image_part(part: dict[str, Any], where: str) -> dict[str, Any]:
    if part.get("file_id") is not None:
        raise BadRequest(
            f"{where} names an uploaded file, which the gateway cannot fetch; "
            "send the image as an http(s) URL or a data:image URL in `image_url`",
            param="input",
        )
    url = part.get("image_url")
    if not isinstance(url, str) or not url.startswith(("http://", "https://", "data:image/")):
        raise BadRequest(f"{where} needs `image_url`: an http(s) URL or a data:image URL", param="input")
    return {"type": "image_url", "image_url": {"url": url}}


def _content_part(part: object, where: str) -> dict[str, Any]:
    """A text or image part as an OpenAI chat content part; anything else refused."""
    kind = part.get("type") if isinstance(part, dict) else None
    if isinstance(kind, str) and kind in _TEXT_PARTS and isinstance(part, dict):
        text = part.get("text", part.get("refusal"))
        if not isinstance(text, str):
            raise BadRequest(f"{where} is a {kind} part without text", param="input")
        return {"type": "text", "text": text}
    if kind == "input_image" and isinstance(part, dict):
        return _image_part(part, where)
    if kind == "input_file":
        what = "a file (PDF) part"
    elif kind == "input_audio":
        what = "an audio part"
    else:
        what = f"a part of type {kind!r}"
    raise BadRequest(
        f"{where} is {what}, which the gateway cannot pass on to its models; send text (or an image) instead",
        param="input",
    )


def _content(content: object, where: str) -> str | list[dict[str, Any]]:
    """Message content as chat content: plain text when it is one text part."""
    if isinstance(content, str):
        return content
    if not isinstance(content, list):
        raise BadRequest(f"{where}.content must be text or a list of parts", param="input")
    parts = [_content_part(part, f"{where}.content[{n}]") for n, part in enumerate(content)]
    if len(parts) == 1 and parts[0]["type"] == "text":
        text: str = parts[0]["text"]
        return text
    return parts


def _message(item: dict[str, Any], where: str) -> ChatMessage:
    role = _ROLES.get(str(item.get("role")))
    if role is None:
        raise BadRequest(
            f"{where} has role {item.get('role')!r}; use user, assistant, system or developer",
            param="input",
        )
    return {"role": role, "content": _content(item.get("content"), where)}


def _tool_call(item: dict[str, Any], where: str) -> dict[str, Any]:
    """A function or custom tool call as a chat tool call (a custom tool takes one `input` string)."""
    call_id, name = item.get("call_id"), item.get("name")
    if not isinstance(call_id, str) or not isinstance(name, str):
        raise BadRequest(f"{where} is a tool call without a call_id and name", param="input")
    if item.get("type") == "custom_tool_call":
        arguments = orjson.dumps({"input": item.get("input") or ""}).decode()
    else:
        arguments = item.get("arguments") or "{}"
        if not isinstance(arguments, str):
            raise BadRequest(f"{where}.arguments must be a JSON string", param="input")
    return {"id": call_id, "type": "function", "function": {"name": name, "arguments": arguments}}


def _tool_output(item: dict[str, Any], where: str) -> tuple[ChatMessage, list[dict[str, Any]]]:
    """A tool output as a tool message, and the images it carried (a chat tool message holds text only)."""
    call_id, output = item.get("call_id"), item.get("output")
    if not isinstance(call_id, str):
        raise BadRequest(f"{where} is a tool output without a call_id", param="input")
    images: list[dict[str, Any]] = []
    if isinstance(output, list):
        parts = [_content_part(part, f"{where}.output[{n}]") for n, part in enumerate(output)]
        images = [p for p in parts if p["type"] == "image_url"]
        output = "\n".join(p["text"] for p in parts if p["type"] == "text") or (
            _IMAGE_ONLY_OUTPUT if images else ""
        )
    if not isinstance(output, str):
        raise BadRequest(f"{where}.output must be text or a list of parts", param="input")
    return {"role": "tool", "tool_call_id": call_id, "content": output}, images


def _refuse_item(kind: object, where: str) -> BadRequest:
    if kind in ("item_reference", "compaction"):
        return BadRequest(f"{where} is an `{kind}` item; {_NOTHING_STORED}", param="input")
    if isinstance(kind, str) and ("_call" in kind or kind.startswith("mcp_")):
        return BadRequest(f"{where} is a `{kind}` item; {HOSTED_ADVICE}", param="input")
    return BadRequest(
        f"{where} has type {kind!r}; send message, function_call or function_call_output items",
        param="input",
    )


def _show_images(messages: list[ChatMessage], images: list[dict[str, Any]]) -> None:
    """Images from tool outputs, as a user message after the tool messages (which must stay together)."""
    if images:
        messages.append({"role": "user", "content": list(images)})
        images.clear()


def _add_item(messages: list[ChatMessage], images: list[dict[str, Any]], item: object, where: str) -> None:
    """Append one input item to the conversation; a tool call joins the assistant turn before it,
    and images from tool outputs wait in `images` until the run of tool outputs ends."""
    if not isinstance(item, dict):
        raise BadRequest(f"{where} must be an object", param="input")
    kind = item.get("type", "message")
    if kind == "reasoning":
        return
    if isinstance(kind, str) and kind in _TOOL_OUTPUTS:
        message, shown = _tool_output(item, where)
        messages.append(message)
        images.extend(shown)
        return
    _show_images(messages, images)
    if kind == "message":
        messages.append(_message(item, where))
    elif kind in ("function_call", "custom_tool_call"):
        call = _tool_call(item, where)
        if messages and messages[-1]["role"] == "assistant":
            messages[-1].setdefault("tool_calls", []).append(call)
        else:
            messages.append({"role": "assistant", "content": None, "tool_calls": [call]})
    else:
        raise _refuse_item(kind, where)


def read_input(body: dict[str, Any]) -> list[ChatMessage]:
    """`instructions` and `input` as OpenAI chat messages."""
    messages: list[ChatMessage] = []
    instructions = body.get("instructions")
    if instructions is not None and not isinstance(instructions, str):
        raise BadRequest("`instructions` must be text", param="instructions")
    if instructions:
        messages.append({"role": "system", "content": instructions})
    raw = body.get("input")
    if isinstance(raw, str) and raw:
        messages.append({"role": "user", "content": raw})
    elif isinstance(raw, list) and raw:
        images: list[dict[str, Any]] = []
        for index, item in enumerate(raw):
            _add_item(messages, images, item, f"input[{index}]")
        _show_images(messages, images)
    else:
        raise BadRequest("`input` must be text or a non-empty list of items", param="input")
    if not any(m["role"] != "system" for m in messages):
        raise BadRequest("`input` holds no message to answer; send the text to ask", param="input")
    return messages


def read_options(body: dict[str, Any]) -> dict[str, Any]:
    """Sampling and output settings under their chat names, for every seat and the merger."""
    options = {ours: body[theirs] for theirs, ours in _OPTIONS.items() if theirs in body}
    text = body.get("text")
    wanted = text.get("format") if isinstance(text, dict) else None
    if isinstance(wanted, dict) and wanted.get("type") == "json_object":
        options["response_format"] = {"type": "json_object"}
    elif isinstance(wanted, dict) and wanted.get("type") == "json_schema":
        schema = {k: wanted[k] for k in ("name", "schema", "strict", "description") if k in wanted}
        options["response_format"] = {"type": "json_schema", "json_schema": schema}
    reasoning = body.get("reasoning")
    if isinstance(reasoning, dict) and reasoning.get("effort") is not None:
        options["reasoning_effort"] = reasoning["effort"]
    return options


# ---- writing a reply -----------------------------------------------------------------


def _usage(usage: TokenUsage) -> dict[str, Any]:
    """The panel's summed usage (`Finished.usage`) in the Responses API's words."""
    return {
        "input_tokens": usage.input,
        "input_tokens_details": {"cached_tokens": 0, "cache_write_tokens": 0},
        "output_tokens": usage.output,
        "output_tokens_details": {"reasoning_tokens": 0},
        "total_tokens": usage.total,
    }


def text_part(text: str) -> dict[str, Any]:
    return {"type": "output_text", "text": text, "annotations": []}


def message_item(item_id: str, status: str, content: list[dict[str, Any]]) -> dict[str, Any]:
    return {
        "type": "message",
        "id": item_id,
        "status": status,
        "role": "assistant",
        "content": content,
    }


def _message_item(panel: str, status: str, content: list[dict[str, Any]]) -> dict[str, Any]:
    return message_item(f"msg_{panel}", status, content)


def response_object(
    model: str, response_id: str, created_at: int, status: str, output: list[dict[str, Any]]
) -> dict[str, Any]:
    """A `response` object; the caller adds `usage`, `bench` or `error` as the moment allows."""
    return {
        "id": response_id,
        "object": "response",
        "created_at": created_at,
        "status": status,
        "error": None,
        "incomplete_details": None,
        "instructions": None,
        "model": model,
        "output": output,
        "parallel_tool_calls": False,
        "tool_choice": "auto",
        "tools": [],
        "store": False,
        "usage": None,
    }


def _response(
    request: PanelRequest, panel: str, created_at: int, status: str, output: list[dict[str, Any]]
) -> dict[str, Any]:
    return response_object(request.model, f"resp_{panel}", created_at, status, output)


def error_object(status: int, message: str, param: str | None = None) -> dict[str, Any]:
    """The `error` object of an error body or `error` stream event."""
    kind = "server_error" if status >= 500 else "invalid_request_error"
    return {"message": message, "type": kind, "param": param, "code": str(status)}


class NumberedEvents:
    """Writes one response's stream events, numbering them from 0 as the SDK expects."""

    def __init__(self) -> None:
        self.sequence = 0

    def event(self, kind: str, **data: Any) -> bytes:
        body = {"type": kind, "sequence_number": self.sequence, **data}
        self.sequence += 1
        return b"event: " + kind.encode() + b"\ndata: " + orjson.dumps(body) + b"\n\n"


class _Lifecycle(NumberedEvents):
    """One streamed response: numbers its events from 0 and keeps the text sent so far."""

    def __init__(self, request: PanelRequest) -> None:
        super().__init__()
        self.request = request
        self.panel = ""
        self.created_at = int(time.time())
        self.pieces: list[str] = []

    def response(self, status: str, output: list[dict[str, Any]]) -> dict[str, Any]:
        return _response(self.request, self.panel, self.created_at, status, output)

    def where(self) -> dict[str, Any]:
        return {"item_id": f"msg_{self.panel}", "output_index": 0, "content_index": 0}

    def opening(self, panel: str) -> list[bytes]:
        self.panel = panel
        return [
            self.event("response.created", response=self.response("in_progress", [])),
            self.event("response.in_progress", response=self.response("in_progress", [])),
            self.event(
                "response.output_item.added",
                output_index=0,
                item=_message_item(panel, "in_progress", []),
            ),
            self.event("response.content_part.added", **self.where(), part=text_part("")),
        ]

    def delta(self, text: str) -> bytes:
        self.pieces.append(text)
        return self.event("response.output_text.delta", **self.where(), delta=text, logprobs=[])

    def closing(self, finished: Finished) -> list[bytes]:
        text = "".join(self.pieces)
        item = _message_item(self.panel, "completed", [text_part(text)])
        whole = {
            **self.response("completed", [item]),
            "completed_at": int(time.time()),
            "usage": _usage(finished.usage),
            "bench": finished.bench,
        }
        return [
            self.event("response.output_text.done", **self.where(), text=text, logprobs=[]),
            self.event("response.content_part.done", **self.where(), part=text_part(text)),
            self.event("response.output_item.done", output_index=0, item=item),
            self.event("response.completed", response=whole),
        ]

    def failure(self, failed: Failed) -> list[bytes]:
        """The `error` event (with the nested `error` object the SDK raises on), then `response.failed`."""
        error = error_object(failed.status, failed.message)
        item = _message_item(self.panel, "incomplete", [text_part("".join(self.pieces))])
        code = "rate_limit_exceeded" if failed.status == 429 else "server_error"
        whole = {**self.response("failed", [item]), "error": {"code": code, "message": failed.message}}
        return [
            self.event("error", code=error["code"], message=failed.message, param=None, error=error),
            self.event("response.failed", response=whole),
        ]


class OpenAIResponses(BenchInBody):
    name = "openai-responses"
    stream_media_type = "text/event-stream"

    def decode(self, body: dict[str, Any], *, caller: str) -> PanelRequest:
        refuse_stored(body)
        model = read_model(body)
        return panel_request(
            body,
            model=model,
            messages=read_input(body),
            stream=read_stream(body),
            options=read_options(body),
            caller=caller,
            tools_offered=len(body["tools"]) if has_own_tools(body) else 0,
        )

    def render(self, request: PanelRequest, events: Sequence[PanelEvent]) -> dict[str, Any]:
        finished, panel = finished_panel(events)
        now = int(time.time())
        item = _message_item(panel, "completed", [text_part(finished.content)])
        return {
            **_response(request, panel, now, "completed", [item]),
            "completed_at": now,
            "usage": _usage(finished.usage),
            "bench": finished.bench,
        }

    async def stream(self, request: PanelRequest, events: AsyncIterator[PanelEvent]) -> AsyncIterator[bytes]:
        lifecycle = _Lifecycle(request)
        async for event in events:
            if isinstance(event, Heartbeat):
                yield b": keep-alive\n\n"
                continue
            if isinstance(event, Seated):
                for opened in lifecycle.opening(event.panel):
                    yield opened
            if isinstance(event, Failed):
                for failed in lifecycle.failure(event):
                    yield failed
                return
            if event.text:
                yield lifecycle.delta(event.text)
            if isinstance(event, Finished):
                for closed in lifecycle.closing(event):
                    yield closed
                return

    def error_body(self, error: GatewayError) -> dict[str, Any]:
        return {"error": error_object(error.status, error.message, error.param)}
