"""Anthropic Messages, inbound: `POST /v1/messages` (and its token count).

People reach the bench from the Anthropic SDK as well as OpenAI's, so a
Messages request is read into the canonical OpenAI-shaped `PanelRequest`:
`system` becomes a system message (and system entries inside `messages`, as
Claude Code sends with Anthropic's mid-conversation-system beta, join it:
a panel's seats answer once), image blocks become `image_url` parts,
tool blocks become tool calls and tool messages (marking the request
agentic, which a panel refuses pointing to `:route`), and thinking blocks are
dropped because no seat could continue another model's reasoning. Anything a
panel would otherwise drop silently — PDF documents, uploaded files,
vendor-hosted (server) tools — is refused with what to send instead.

Route mode (`route`, beside this module) reads the conversation with the same
functions (`read_conversation`, `read_options`, `has_own_tools`), so a
Messages history means the same to a panel and to a routed member.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence
from typing import Any

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
from panelgate.formats.protocol import BenchInBody, finished_panel
from panelgate.formats.request_fields import panel_request, read_model, read_own_tools, read_stream

_ROLES = {"user", "assistant"}
_DROPPED_BLOCKS = {"thinking", "redacted_thinking"}
_SERVER_BLOCKS = {"server_tool_use", "mcp_tool_use", "container_upload"}
_CUSTOM_TOOL_TYPES = {None, "custom"}
_OPTIONS = {
    "max_tokens": "max_tokens",
    "temperature": "temperature",
    "top_p": "top_p",
    "stop_sequences": "stop",
}
_ERROR_TYPES = {
    400: "invalid_request_error",
    401: "authentication_error",
    403: "permission_error",
    404: "not_found_error",
    405: "invalid_request_error",
    413: "request_too_large",
    429: "rate_limit_error",
    503: "overloaded_error",
}
_SERVER_TOOLS_ADVICE = (
    "the gateway cannot run Anthropic's server tools; describe the task in text, "
    "or define the tool yourself and send it to bench/<collection>:route"
)
_IMAGE_ONLY_RESULT = "(the result is the image in the next message)"


def _image_url(block: dict[str, Any], where: str) -> str:
    source = block.get("source")
    kind = source.get("type") if isinstance(source, dict) else None
    if isinstance(source, dict) and kind == "base64":
        media, data = source.get("media_type"), source.get("data")
        if isinstance(media, str) and media.startswith("image/") and isinstance(data, str) and data:
            return f"data:{media};base64,{data}"
        raise BadRequest(f"{where} needs an image/* `media_type` and base64 `data`", param="messages")
    if isinstance(source, dict) and kind == "url":
        url = source.get("url")
        if isinstance(url, str) and url.startswith(("http://", "https://")):
            return url
        raise BadRequest(f"{where} has an image URL that is not http(s)", param="messages")
    if kind == "file":
        raise BadRequest(
            f"{where} names an uploaded file, which the gateway cannot fetch; "
            "send the image as base64 data or an http(s) URL",
            param="messages",
        )
    raise BadRequest(f"{where} has an image source of type {kind!r}; use `base64` or `url`", param="messages")


def _refuse_block(kind: object, where: str) -> BadRequest:
    if kind == "document":
        return BadRequest(
            f"{where} is a document (PDF) block, which the gateway cannot pass on to its models; "
            "send the text (or an image) instead",
            param="messages",
        )
    if isinstance(kind, str) and (kind in _SERVER_BLOCKS or kind.endswith("_tool_result")):
        return BadRequest(f"{where} is a `{kind}` block; {_SERVER_TOOLS_ADVICE}", param="messages")
    return BadRequest(
        f"{where} has type {kind!r}, which the gateway cannot pass on; send text or image blocks",
        param="messages",
    )


def _content_part(block: dict[str, Any], where: str) -> dict[str, Any]:
    """A text or image block as an OpenAI content part; anything else refused."""
    kind = block.get("type")
    if kind == "text":
        if not isinstance(block.get("text"), str):
            raise BadRequest(f"{where} is a text block without text", param="messages")
        return {"type": "text", "text": block["text"]}
    if kind == "image":
        return {"type": "image_url", "image_url": {"url": _image_url(block, where)}}
    raise _refuse_block(kind, where)


def _blocks(content: object, where: str) -> list[dict[str, Any]]:
    if isinstance(content, str):
        return [{"type": "text", "text": content}]
    if not isinstance(content, list) or not all(isinstance(b, dict) for b in content):
        raise BadRequest(f"{where} must be text or a list of content blocks", param="messages")
    return content


def _joined(parts: list[dict[str, Any]]) -> str | list[dict[str, Any]]:
    """One text part reads as plain content; anything else stays a list of parts."""
    if len(parts) == 1 and parts[0]["type"] == "text":
        text: str = parts[0]["text"]
        return text
    return parts


def _tool_call(block: dict[str, Any], where: str) -> dict[str, Any]:
    call_id, name = block.get("id"), block.get("name")
    if not isinstance(call_id, str) or not isinstance(name, str):
        raise BadRequest(f"{where} is a tool_use block without an id and name", param="messages")
    arguments = orjson.dumps(block.get("input") or {}).decode()
    return {"id": call_id, "type": "function", "function": {"name": name, "arguments": arguments}}


def _tool_message(block: dict[str, Any], where: str) -> tuple[ChatMessage, list[dict[str, Any]]]:
    """A tool_result block as a tool message, and the images it carried (they go to the user)."""
    call_id = block.get("tool_use_id")
    if not isinstance(call_id, str):
        raise BadRequest(f"{where} is a tool_result block without a tool_use_id", param="messages")
    content = block.get("content")
    parts = [] if content is None else [_content_part(b, where) for b in _blocks(content, where)]
    text = "\n".join(p["text"] for p in parts if p["type"] == "text")
    images = [p for p in parts if p["type"] == "image_url"]
    if images and not text:
        text = _IMAGE_ONLY_RESULT
    if block.get("is_error"):
        text = f"Error: {text}"
    return {"role": "tool", "tool_call_id": call_id, "content": text}, images


def _read_message(message: object, index: int) -> list[ChatMessage]:
    """One Messages turn as OpenAI messages: tool results first, then the turn itself."""
    where = f"messages[{index}]"
    if not isinstance(message, dict):
        raise BadRequest(f"{where} must be an object with a role and content", param="messages")
    role = message.get("role")
    if role == "system":
        return _system_message(message.get("content"), f"{where}.content")
    if not isinstance(role, str) or role not in _ROLES:
        raise BadRequest(f"{where} has role {role!r}; use user, assistant or system", param="messages")
    tool_messages: list[ChatMessage] = []
    parts: list[dict[str, Any]] = []
    calls: list[dict[str, Any]] = []
    for number, block in enumerate(_blocks(message.get("content"), f"{where}.content")):
        at = f"{where}.content[{number}]"
        kind = block.get("type")
        if isinstance(kind, str) and kind in _DROPPED_BLOCKS:
            continue
        if kind == "tool_use":
            calls.append(_tool_call(block, at))
        elif kind == "tool_result":
            tool_message, images = _tool_message(block, at)
            tool_messages.append(tool_message)
            parts.extend(images)
        else:
            parts.append(_content_part(block, at))
    turn: ChatMessage = {"role": role, "content": _joined(parts) if parts else ""}
    if calls:
        turn["tool_calls"] = calls
    return [*tool_messages, turn] if parts or calls else tool_messages


def _system_message(system: object, where: str = "system") -> list[ChatMessage]:
    """`system`, or a system entry inside `messages`, as one system message."""
    if system is None or system == "":
        return []
    if isinstance(system, str):
        return [{"role": "system", "content": system}]
    if isinstance(system, list) and all(isinstance(b, dict) and b.get("type") == "text" for b in system):
        texts = [b.get("text") for b in system]
        if all(isinstance(t, str) for t in texts):
            return [{"role": "system", "content": "\n".join(str(t) for t in texts)}] if texts else []
    raise BadRequest(f"`{where}` must be text or a list of text blocks", param=where.split(".")[0])


def folded_system(messages: list[ChatMessage]) -> list[ChatMessage]:
    """The conversation with every system entry, wherever it stood, in one leading system message.

    A panel's seats each answer once, so an agent's mid-conversation system
    text is simply more of its instructions.
    """
    system = [m for m in messages if m["role"] == "system"]
    if len(system) < 2 and (not system or messages[0] is system[0]):
        return messages
    text = "\n\n".join(str(m["content"]) for m in system if m["content"])
    rest = [m for m in messages if m["role"] != "system"]
    return [{"role": "system", "content": text}, *rest] if text else rest


def read_conversation(body: dict[str, Any]) -> list[ChatMessage]:
    """`system` and `messages` as OpenAI chat messages (tool results right after their calls)."""
    raw = body.get("messages")
    if not isinstance(raw, list) or not raw:
        raise BadRequest("`messages` must be a non-empty list", param="messages")
    messages = _system_message(body.get("system"))
    for index, message in enumerate(raw):
        messages.extend(_read_message(message, index))
    if not any(m["role"] != "system" for m in messages):
        raise BadRequest("`messages` holds nothing to answer; send the text to ask", param="messages")
    return messages


def read_options(body: dict[str, Any]) -> dict[str, Any]:
    """Sampling and length settings under their chat names."""
    return {ours: body[theirs] for theirs, ours in _OPTIONS.items() if theirs in body}


def has_own_tools(body: dict[str, Any]) -> bool:
    """True for a non-empty `tools`; vendor-hosted (typed) tools are refused."""
    if body.get("mcp_servers"):
        raise BadRequest(
            f"`mcp_servers` (the MCP connector beta) is not supported; {_SERVER_TOOLS_ADVICE}",
            param="mcp_servers",
        )
    if body.get("container") is not None:
        raise BadRequest(
            f"`container` (the code execution beta) is not supported; {_SERVER_TOOLS_ADVICE}",
            param="container",
        )
    return read_own_tools(body, own_types=_CUSTOM_TOOL_TYPES, refusal=_SERVER_TOOLS_ADVICE)


def _usage(usage: TokenUsage) -> dict[str, int]:
    """The panel's summed usage (`Finished.usage`) in the Messages API's words."""
    return {"input_tokens": usage.input, "output_tokens": usage.output}


def sse(kind: str, data: dict[str, Any]) -> bytes:
    """One Messages stream event: its name on the `event:` line and as the data's `type`."""
    return b"event: " + kind.encode() + b"\ndata: " + orjson.dumps({"type": kind, **data}) + b"\n\n"


def error_object(status: int, message: str) -> dict[str, str]:
    """The `error` object of an error body or stream event, typed for the status."""
    return {"type": _ERROR_TYPES.get(status, "api_error"), "message": message}


def message_object(
    message_id: str, model: str, content: list[dict[str, Any]], stop_reason: str | None, usage: dict[str, int]
) -> dict[str, Any]:
    """A Messages `message` object: a whole reply (the caller adds `bench`), or the opening one
    `message_start` carries, with no content and no stop reason yet."""
    return {
        "id": message_id,
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": content,
        "stop_reason": stop_reason,
        "stop_sequence": None,
        "usage": usage,
    }


def message_start(message_id: str, model: str, input_tokens: int, output_tokens: int) -> bytes:
    """The stream's first event: the message, empty, with the prompt's size."""
    usage = {"input_tokens": input_tokens, "output_tokens": output_tokens}
    return sse("message_start", {"message": message_object(message_id, model, [], None, usage)})


def _text_delta(text: str) -> bytes:
    return sse("content_block_delta", {"index": 0, "delta": {"type": "text_delta", "text": text}})


class AnthropicMessages(BenchInBody):
    name = "anthropic-messages"
    stream_media_type = "text/event-stream"

    def decode(self, body: dict[str, Any], *, caller: str) -> PanelRequest:
        return panel_request(
            body,
            model=read_model(body),
            messages=folded_system(read_conversation(body)),
            stream=read_stream(body),
            options=read_options(body),
            caller=caller,
            tools_offered=len(body["tools"]) if has_own_tools(body) else 0,
        )

    def render(self, request: PanelRequest, events: Sequence[PanelEvent]) -> dict[str, Any]:
        finished, panel = finished_panel(events)
        content = [{"type": "text", "text": finished.content}]
        message = message_object(f"msg_{panel}", request.model, content, "end_turn", _usage(finished.usage))
        return {**message, "bench": finished.bench}

    async def stream(self, request: PanelRequest, events: AsyncIterator[PanelEvent]) -> AsyncIterator[bytes]:
        async for event in events:
            if isinstance(event, Heartbeat):
                yield sse("ping", {})
            elif isinstance(event, Seated):
                # the prompt as every seat is sent it, until `message_delta` brings the seats' counts
                asked = estimate_tokens(request.messages) * len(event.plan.seats)
                yield message_start(f"msg_{event.panel}", request.model, asked, 1)
                yield sse("content_block_start", {"index": 0, "content_block": {"type": "text", "text": ""}})
                if event.text:
                    yield _text_delta(event.text)
            elif isinstance(event, Failed):
                yield sse("error", {"error": error_object(event.status, event.message)})
                return
            elif isinstance(event, Finished):
                if event.text:
                    yield _text_delta(event.text)
                yield sse("content_block_stop", {"index": 0})
                yield sse(
                    "message_delta",
                    {
                        "delta": {"stop_reason": "end_turn", "stop_sequence": None},
                        "usage": _usage(event.usage),
                        "bench": event.bench,
                    },
                )
                yield sse("message_stop", {})
                return
            elif event.text:
                yield _text_delta(event.text)

    def error_body(self, error: GatewayError) -> dict[str, Any]:
        return {"type": "error", "error": error_object(error.status, error.message)}

    def count_tokens(self, request: PanelRequest) -> dict[str, Any]:
        """`POST /v1/messages/count_tokens`: the size estimate seating uses, no model asked."""
        return {"input_tokens": estimate_tokens(request.messages)}
