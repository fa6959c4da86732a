"""Ollama, inbound: `POST /api/chat` and `POST /api/generate`.

Open WebUI and many local tools reach models through an Ollama connection,
so a collection has to pass for a local model there. Three things differ
from OpenAI and are translated here: Ollama streams unless told
`"stream": false` (NDJSON lines, the last one `done: true`); images are
bare base64 with no media type, so the type is read from the bytes; and
tool calls carry no ids, so calls are numbered `call_N` in order and each
tool result answers the oldest open call of its tool's name. `/api/generate`'s
`context` continues a conversation Ollama stored; nothing is stored here, so
it is refused rather than silently dropped. Route mode (`route`, beside this module)
reads messages and writes lines with the same helpers.
"""

from __future__ import annotations

import base64
from abc import ABC, abstractmethod
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
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
    PanelTimes,
)
from panelgate.formats.protocol import BenchInBody
from panelgate.formats.request_fields import count_tools, panel_request, read_model, read_stream

LATEST_TAG = ":latest"
MIN_DURATION_NS = 1_000_000
_ROLES = ("system", "user", "assistant", "tool")
_OPTIONS = {
    "num_predict": "max_tokens",
    "temperature": "temperature",
    "top_p": "top_p",
    "stop": "stop",
    "seed": "seed",
    "presence_penalty": "presence_penalty",
    "frequency_penalty": "frequency_penalty",
}
_IMAGE_MAGIC = (
    (b"\x89PNG\r\n\x1a\n", "image/png"),
    (b"\xff\xd8\xff", "image/jpeg"),
    (b"GIF87a", "image/gif"),
    (b"GIF89a", "image/gif"),
    (b"BM", "image/bmp"),
)
_NOT_IMAGE_MAGIC = (
    (b"%PDF", "a PDF"),
    (b"ID3", "audio"),
    (b"OggS", "audio"),
    (b"fLaC", "audio"),
)


def model_name(model: str) -> str:
    """The model as the gateway reads it: the `:latest` tag Ollama clients add, removed."""
    return model.strip().removesuffix(LATEST_TAG)


def sniff_image_type(data: bytes) -> str | None:
    """The image media type the bytes start with; PNG when unrecognised, None for
    a PDF or audio file (which no seat can be shown)."""
    if data[:4] == b"RIFF":
        return "image/webp" if data[8:12] == b"WEBP" else None
    if any(data.startswith(magic) for magic, _ in _NOT_IMAGE_MAGIC):
        return None
    return next((kind for magic, kind in _IMAGE_MAGIC if data.startswith(magic)), "image/png")


def image_part(value: object, where: str) -> dict[str, Any]:
    """One Ollama image (bare base64) as an OpenAI `image_url` part with a `data:` URL."""
    if isinstance(value, str) and value.startswith("data:image/"):
        return {"type": "image_url", "image_url": {"url": value}}
    try:
        data = base64.b64decode(value, validate=True) if isinstance(value, str) else b""
    except ValueError:  # not base64 (`binascii.Error`), or not ASCII at all
        data = b""
    if not data:
        raise BadRequest(f"{where} must be base64-encoded image bytes", param="images")
    kind = sniff_image_type(data)
    if kind is None:
        what = next((name for magic, name in _NOT_IMAGE_MAGIC if data.startswith(magic)), "audio")
        raise BadRequest(
            f"{where} is {what}, which a panel cannot pass on to its seats; "
            "send the text or an image instead",
            param="images",
        )
    return {"type": "image_url", "image_url": {"url": f"data:{kind};base64,{value}"}}


def _images(holder: dict[str, Any], prefix: str) -> list[dict[str, Any]]:
    """The `images` of a message (`prefix` `messages[i].`) or of a generate body (no prefix)."""
    images = holder.get("images") or []
    if not isinstance(images, list):
        raise BadRequest(f"{prefix}images must be a list of base64 images", param="images")
    return [image_part(image, f"{prefix}images[{n}]") for n, image in enumerate(images)]


def _content(text: str, images: list[dict[str, Any]]) -> str | list[dict[str, Any]]:
    if not images:
        return text
    return ([{"type": "text", "text": text}] if text else []) + images


@dataclass
class _ToolCalls:
    """Ollama's id-less tool calls, given ids and matched to their results.

    Calls are numbered `call_N` in order over the whole conversation. A tool
    result answers the oldest open call of its `tool_name`, else the oldest
    open call; a client that does send ids (`id`, `tool_call_id`) is matched by them.
    """

    issued: int = 0
    used: set[str] = field(default_factory=set)
    open: list[tuple[str, str]] = field(default_factory=list)

    def call(self, call: object, where: str) -> dict[str, Any]:
        function = call.get("function") if isinstance(call, dict) else None
        if not isinstance(function, dict) or not isinstance(function.get("name"), str):
            raise BadRequest(
                f"{where} must be {{'function': {{'name': ..., 'arguments': {{...}}}}}}", param="messages"
            )
        self.issued += 1
        given = call.get("id") if isinstance(call, dict) else None
        call_id = (
            given if isinstance(given, str) and given and given not in self.used else f"call_{self.issued}"
        )
        self.used.add(call_id)
        self.open.append((call_id, function["name"]))
        arguments = function.get("arguments") or {}
        if not isinstance(arguments, str):
            arguments = orjson.dumps(arguments).decode()
        return {
            "id": call_id,
            "type": "function",
            "function": {"name": function["name"], "arguments": arguments},
        }

    def answer(self, message: dict[str, Any], where: str) -> str:
        wanted, name = message.get("tool_call_id"), message.get("tool_name") or message.get("name")
        matched = (
            [c for c in self.open if c[0] == wanted]
            or [c for c in self.open if c[1] == name]
            or self.open[:1]
        )
        if not matched:
            raise BadRequest(f"{where} is a tool result with no open tool call before it", param="messages")
        self.open.remove(matched[0])
        return matched[0][0]


def _chat_message(message: object, index: int, calls: _ToolCalls) -> ChatMessage:
    where = f"messages[{index}]"
    if not isinstance(message, dict):
        raise BadRequest(f"{where} must be an object with a role and content", param="messages")
    role = message.get("role")
    if role not in _ROLES:
        raise BadRequest(f"{where} has role {role!r}; use system, user, assistant or tool", param="messages")
    text = message.get("content") or ""
    if not isinstance(text, str):
        raise BadRequest(f"{where}.content must be text", param="messages")
    images = _images(message, f"{where}.")
    if images and role != "user":
        raise BadRequest(f"{where}: images are accepted on user messages only", param="messages")
    read: ChatMessage = {"role": role, "content": _content(text, images)}
    tool_calls = message.get("tool_calls")
    if role == "assistant" and tool_calls:
        if not isinstance(tool_calls, list):
            raise BadRequest(f"{where}.tool_calls must be a list", param="messages")
        read["tool_calls"] = [calls.call(c, f"{where}.tool_calls[{n}]") for n, c in enumerate(tool_calls)]
    if role == "tool":
        read["tool_call_id"] = calls.answer(message, where)
    return read


def chat_messages(raw: object) -> list[ChatMessage]:
    """`/api/chat` messages in the canonical (OpenAI) shape."""
    if not isinstance(raw, list) or not raw:
        raise BadRequest("`messages` must be a non-empty list", param="messages")
    calls = _ToolCalls()
    return [_chat_message(message, index, calls) for index, message in enumerate(raw)]


def generate_messages(body: dict[str, Any]) -> list[ChatMessage]:
    """`/api/generate`'s `system`, `prompt` and `images` as one conversation turn."""
    if body.get("context"):
        raise BadRequest(
            "`context` continues a conversation Ollama stored, and nothing is stored here; "
            "send the whole conversation as `messages` to /api/chat instead",
            param="context",
        )
    if body.get("suffix"):
        raise BadRequest(
            "`suffix` (fill in the middle) is not supported by a panel; put the text after the gap "
            "in the prompt and say what to fill in",
            param="suffix",
        )
    prompt, system = body.get("prompt") or "", body.get("system") or ""
    if not isinstance(prompt, str):
        raise BadRequest(
            "`prompt` must be one string; send several prompts as several requests", param="prompt"
        )
    if not isinstance(system, str):
        raise BadRequest("`system` must be text", param="system")
    images = _images(body, "")
    if not prompt and not images:
        raise BadRequest("`prompt` is empty; send the text to ask", param="prompt")
    turn: ChatMessage = {"role": "user", "content": _content(prompt, images)}
    return [{"role": "system", "content": system}, turn] if system else [turn]


def read_options(body: dict[str, Any]) -> dict[str, Any]:
    """`options` and `format` under their OpenAI names; `num_predict` -1 or -2 (Ollama's "no limit")
    is no limit."""
    options = body.get("options") or {}
    if not isinstance(options, dict):
        raise BadRequest('`options` must be an object such as {"temperature": 0.2}', param="options")
    read = {ours: options[theirs] for theirs, ours in _OPTIONS.items() if theirs in options}
    limit = read.get("max_tokens")
    if isinstance(limit, int) and limit <= 0:
        del read["max_tokens"]
    wanted = body.get("format")
    if wanted == "json":
        read["response_format"] = {"type": "json_object"}
    elif isinstance(wanted, dict):
        read["response_format"] = {"type": "json_schema", "json_schema": {"name": "reply", "schema": wanted}}
    elif wanted not in (None, ""):
        raise BadRequest('`format` must be "json" or a JSON schema object', param="format")
    return read


def _panel_request(body: dict[str, Any], messages: list[ChatMessage], caller: str) -> PanelRequest:
    """Ollama streams unless told not to; `:latest` names the same collection."""
    asked = panel_request(
        body,
        model=model_name(read_model(body)),
        messages=messages,
        stream=read_stream(body, default=True),
        options=read_options(body),
        caller=caller,
        tools_offered=count_tools(body),
    )
    return replace(asked, model=read_model(body))


def created_at() -> str:
    """Now, as Ollama writes `created_at` (UTC, microseconds, `Z`)."""
    return datetime.now(UTC).isoformat(timespec="microseconds").replace("+00:00", "Z")


def durations(load_s: float, prompt_eval_s: float, total_s: float) -> dict[str, int]:
    """Ollama's durations, in nanoseconds: loading, then the prompt's evaluation, the rest the answer's.

    Clients divide `eval_count` by `eval_duration` (and the prompt's count by
    `prompt_eval_duration`) for a tokens-per-second figure, so neither is ever
    under a millisecond; `total_duration` is the sum of the three parts.
    """
    load = max(int(load_s * 1e9), 0)
    prompt_eval = max(int(prompt_eval_s * 1e9), MIN_DURATION_NS)
    evaluated = max(int(total_s * 1e9) - load - prompt_eval, MIN_DURATION_NS)
    return {
        "total_duration": load + prompt_eval + evaluated,
        "load_duration": load,
        "prompt_eval_duration": prompt_eval,
        "eval_duration": evaluated,
    }


def _panel_durations(times: PanelTimes) -> dict[str, int]:
    """Seating is the load, seating to the first seat done the prompt's evaluation, the rest the
    answer's: the panel's own clock, so tokens per second are what the caller waited for."""
    first = max(times.first_answer_s, times.seated_s)
    return durations(times.seated_s, first - times.seated_s, times.total_s)


def ndjson_line(body: dict[str, Any]) -> bytes:
    """One line of an Ollama stream."""
    return orjson.dumps(body) + b"\n"


class _OllamaReply(BenchInBody, ABC):
    """The reply, stream and errors both Ollama routes share; a subclass says
    where a piece of text goes (`message.content` or `response`)."""

    name = "ollama"
    stream_media_type = "application/x-ndjson"

    @abstractmethod
    def _text(self, text: str) -> dict[str, Any]: ...

    def _piece(self, request: PanelRequest, text: str, *, done: bool = False) -> dict[str, Any]:
        return {"model": request.model, "created_at": created_at(), **self._text(text), "done": done}

    def _last(self, request: PanelRequest, finished: Finished, text: str) -> dict[str, Any]:
        return {
            **self._piece(request, text, done=True),
            "done_reason": "stop",
            **_panel_durations(finished.times),
            "prompt_eval_count": finished.usage.input,
            "eval_count": finished.usage.output,
            "bench": finished.bench,
        }

    def render(self, request: PanelRequest, events: Sequence[PanelEvent]) -> dict[str, Any]:
        finished = events[-1]
        assert isinstance(finished, Finished)
        return self._last(request, finished, finished.content)

    async def stream(self, request: PanelRequest, events: AsyncIterator[PanelEvent]) -> AsyncIterator[bytes]:
        async for event in events:
            if isinstance(event, Failed):
                yield ndjson_line({"error": event.message})
                return
            if isinstance(event, Finished):
                if event.text:
                    yield ndjson_line(self._piece(request, event.text))
                yield ndjson_line(self._last(request, event, ""))
                return
            if event.text or isinstance(event, Heartbeat):
                yield ndjson_line(self._piece(request, event.text))

    def error_body(self, error: GatewayError) -> dict[str, Any]:
        return {"error": error.message}


class OllamaChat(_OllamaReply):
    """`POST /api/chat`: the reply's text goes in `message.content`."""

    def decode(self, body: dict[str, Any], *, caller: str) -> PanelRequest:
        return _panel_request(body, chat_messages(body.get("messages")), caller)

    def _text(self, text: str) -> dict[str, Any]:
        return {"message": {"role": "assistant", "content": text}}


class OllamaGenerate(_OllamaReply):
    """`POST /api/generate`: one prompt (and system text); the reply's text goes in `response`."""

    def decode(self, body: dict[str, Any], *, caller: str) -> PanelRequest:
        return _panel_request(body, generate_messages(body), caller)

    def _text(self, text: str) -> dict[str, Any]:
        return {"response": text}
