"""OpenAI chat completions, inbound: `POST /v1/chat/completions`.

The API most clients speak, so it is also the canonical message shape: a
request decodes almost as sent, after refusing what a panel cannot honour.
Anything a panel would otherwise drop silently — tool calls in the history,
legacy functions, PDF or audio parts — is refused with a message saying what
to do instead, because a 200 that quietly ignored half the request is worse
than a 400. Tools merely offered are left out, and `bench.note` says so.
"""

from __future__ import annotations

import time
from collections.abc import AsyncIterator, Sequence
from dataclasses import replace
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
)
from panelgate.formats.openai_usage import openai_usage, usage_asked
from panelgate.formats.protocol import BenchInBody, finished_panel
from panelgate.formats.request_fields import count_tools, panel_request, read_model, read_stream

_ROLES = {"system", "developer", "user", "assistant", "tool"}
_OPTIONS = (
    "max_tokens",
    "max_completion_tokens",
    "temperature",
    "top_p",
    "stop",
    "seed",
    "presence_penalty",
    "frequency_penalty",
    "response_format",
    "reasoning_effort",
)
_UNSENDABLE_PARTS = {
    "file": "file (PDF) parts",
    "input_audio": "audio parts",
    "input_file": "file parts",
    "audio": "audio parts",
}


def _check_part(part: object, index: int) -> None:
    if not isinstance(part, dict):
        raise BadRequest(f"messages[{index}].content parts must be objects", param="messages")
    kind = part.get("type")
    if kind == "text":
        if not isinstance(part.get("text"), str):
            raise BadRequest(f"messages[{index}] has a text part without text", param="messages")
        return
    if kind == "image_url":
        image = part.get("image_url")
        url = image.get("url") if isinstance(image, dict) else image
        if not isinstance(url, str) or not url.startswith(("http://", "https://", "data:image/")):
            raise BadRequest(
                f"messages[{index}] has an image that is neither an http(s) URL nor a data:image URL",
                param="messages",
            )
        return
    what = _UNSENDABLE_PARTS.get(str(kind), f"`{kind}` parts")
    raise BadRequest(
        f"messages[{index}] carries {what}, which a panel cannot pass on to its seats; "
        "send the text (or an image) instead",
        param="messages",
    )


def _check_message(message: object, index: int) -> ChatMessage:
    if not isinstance(message, dict):
        raise BadRequest(f"messages[{index}] must be an object with a role and content", param="messages")
    role = message.get("role")
    if role == "function":
        raise BadRequest(
            "legacy `function` messages are not supported; use tools with bench/<collection>:route",
            param="messages",
        )
    if not isinstance(role, str) or role not in _ROLES:
        raise BadRequest(f"messages[{index}] has an unknown role {role!r}", param="messages")
    content = message.get("content")
    if isinstance(content, list):
        for part in content:
            _check_part(part, index)
    elif content is not None and not isinstance(content, str):
        raise BadRequest(f"messages[{index}].content must be text or a list of parts", param="messages")
    if role == "developer":
        return {**message, "role": "system"}
    return message


class OpenAIChat(BenchInBody):
    name = "openai-chat"
    stream_media_type = "text/event-stream"

    def decode(self, body: dict[str, Any], *, caller: str) -> PanelRequest:
        if "functions" in body or "function_call" in body:
            raise BadRequest(
                "legacy `functions`/`function_call` are not supported; "
                "send `tools` to bench/<collection>:route instead",
                param="functions",
            )
        model = read_model(body)
        raw = body.get("messages")
        if not isinstance(raw, list) or not raw:
            raise BadRequest("`messages` must be a non-empty list", param="messages")
        messages = [_check_message(m, i) for i, m in enumerate(raw)]
        asked = panel_request(
            body,
            model=model,
            messages=messages,
            stream=read_stream(body),
            options={k: body[k] for k in _OPTIONS if k in body},
            caller=caller,
            tools_offered=count_tools(body),
        )
        return replace(asked, usage_in_stream=usage_asked(body))

    def render(self, request: PanelRequest, events: Sequence[PanelEvent]) -> dict[str, Any]:
        finished, panel = finished_panel(events)
        return {
            "id": f"chatcmpl-{panel}",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": finished.bench["collection"],
            "choices": [
                {
                    "index": 0,
                    "message": {"role": "assistant", "content": finished.content},
                    "finish_reason": "stop",
                }
            ],
            "usage": openai_usage(finished.usage),
            "bench": finished.bench,
        }

    async def stream(self, request: PanelRequest, events: AsyncIterator[PanelEvent]) -> AsyncIterator[bytes]:
        chunk_id, model, created = "chatcmpl-", request.model, int(time.time())

        def chunk(delta: dict[str, Any] | None, finish: str | None = None, **extra: Any) -> bytes:
            """A chunk of the answer; `delta` None is the usage chunk, which has no choices."""
            choices = [] if delta is None else [{"index": 0, "delta": delta, "finish_reason": finish}]
            body = {
                "id": chunk_id,
                "object": "chat.completion.chunk",
                "created": created,
                "model": model,
                "choices": choices,
                **extra,
            }
            return b"data: " + orjson.dumps(body) + b"\n\n"

        async for event in events:
            if isinstance(event, Heartbeat):
                yield b": keep-alive\n\n"
            elif isinstance(event, Seated):
                chunk_id, model = f"chatcmpl-{event.panel}", f"bench/{event.collection}"
                yield chunk({"role": "assistant", "content": event.text})
            elif isinstance(event, Failed):
                yield b"data: " + orjson.dumps({"error": self._error(event.status, event.message)}) + b"\n\n"
                yield b"data: [DONE]\n\n"
                return
            elif isinstance(event, Finished):  # the last pieces in one write
                last = chunk({"content": event.text}) if event.text else b""
                last += chunk({}, "stop", bench=event.bench)
                if request.usage_in_stream:
                    last += chunk(None, usage=openai_usage(event.usage))
                yield last + b"data: [DONE]\n\n"
                return
            elif event.text:
                yield chunk({"content": event.text})

    def error_body(self, error: GatewayError) -> dict[str, Any]:
        return {"error": self._error(error.status, error.message, error.kind, error.param)}

    @staticmethod
    def _error(
        status: int, message: str, kind: str = "api_error", param: str | None = None
    ) -> dict[str, Any]:
        return {"message": message, "type": kind, "param": param, "code": str(status)}
