"""OpenAI legacy completions, inbound: `POST /v1/completions`.

Old tools and scripts still send one `prompt` string here. It becomes one
user message, so the panel is the same as on chat completions; the reply's
text goes in `choices[0].text`. A completion request can carry several
prompts (or token ids) at once, which would need several panels: that is
refused rather than answered for the first prompt only, and so is `suffix`
(fill in the middle), which no chat model is asked for.
"""

from __future__ import annotations

import time
from collections.abc import AsyncIterator, Sequence
from dataclasses import replace
from typing import Any

import orjson

from panelgate.core.errors import BadRequest, GatewayError, error_for_status
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
from panelgate.formats.request_fields import panel_request, read_model, read_stream

OPTIONS = (
    "max_tokens",
    "temperature",
    "top_p",
    "stop",
    "seed",
    "presence_penalty",
    "frequency_penalty",
)
"""The sampling fields passed on to every seat and the merger, under their own names."""
_SEVERAL = "send one prompt string per request; several prompts would need several panels"


def prompt_messages(body: dict[str, Any]) -> list[ChatMessage]:
    """The prompt as the one user message a chat model is asked with."""
    return [{"role": "user", "content": _read_prompt(body.get("prompt"))}]


def read_options(body: dict[str, Any]) -> dict[str, Any]:
    """The sampling fields passed on (`OPTIONS`), as sent."""
    return {name: body[name] for name in OPTIONS if name in body}


def _read_prompt(prompt: object) -> str:
    """The one prompt string of a completions body (a one-element list is accepted)."""
    if isinstance(prompt, list):
        if any(not isinstance(p, str) for p in prompt):
            raise BadRequest(
                "`prompt` holds token ids, which a panel cannot pass on; send the prompt as text",
                param="prompt",
            )
        if len(prompt) != 1:
            raise BadRequest(f"`prompt` holds {len(prompt)} prompts; {_SEVERAL}", param="prompt")
        prompt = prompt[0]
    if not isinstance(prompt, str):
        raise BadRequest("`prompt` must be one string", param="prompt")
    if not prompt:
        raise BadRequest("`prompt` is empty; send the text to ask", param="prompt")
    return prompt


def refuse_suffix(body: dict[str, Any]) -> None:
    """`suffix` asks for fill in the middle, which no chat model is asked for."""
    if body.get("suffix"):
        raise BadRequest(
            "`suffix` (fill in the middle) is not supported by a panel; put the text after the gap "
            "in the prompt and say what to fill in",
            param="suffix",
        )


def completion_error(status: int, message: str, kind: str, param: str | None = None) -> dict[str, Any]:
    """The OpenAI error body, which the SDK raises both as a status and inside a stream."""
    return {"error": {"message": message, "type": kind, "param": param, "code": str(status)}}


def completion_choice(text: str, finish: str | None) -> dict[str, Any]:
    return {"text": text, "index": 0, "logprobs": None, "finish_reason": finish}


class OpenAICompletions(BenchInBody):
    name = "openai-completions"
    stream_media_type = "text/event-stream"

    def decode(self, body: dict[str, Any], *, caller: str) -> PanelRequest:
        model = read_model(body)
        refuse_suffix(body)
        asked = panel_request(
            body,
            model=model,
            messages=prompt_messages(body),
            stream=read_stream(body),
            options=read_options(body),
            caller=caller,
        )
        return replace(asked, usage_in_stream=usage_asked(body))

    def render(self, request: PanelRequest, events: Sequence[PanelEvent]) -> dict[str, Any]:
        finished, panel = finished_panel(events)
        return {
            "id": f"cmpl-{panel}",
            "object": "text_completion",
            "created": int(time.time()),
            "model": request.model,
            "choices": [completion_choice(finished.content, "stop")],
            "usage": openai_usage(finished.usage),
            "bench": finished.bench,
        }

    async def stream(self, request: PanelRequest, events: AsyncIterator[PanelEvent]) -> AsyncIterator[bytes]:
        chunk_id, created = "cmpl-", int(time.time())

        def chunk(text: str | None, finish: str | None = None, **extra: Any) -> bytes:
            """A chunk of the answer; `text` None is the usage chunk, which has no choices."""
            body = {
                "id": chunk_id,
                "object": "text_completion",
                "created": created,
                "model": request.model,
                "choices": [] if text is None else [completion_choice(text, finish)],
                **extra,
            }
            return b"data: " + orjson.dumps(body) + b"\n\n"

        async for event in events:
            if isinstance(event, Heartbeat):
                yield b": keep-alive\n\n"
                continue
            if isinstance(event, Seated):
                chunk_id = f"cmpl-{event.panel}"
            if isinstance(event, Failed):
                kind = error_for_status(event.status, event.message).kind
                yield b"data: " + orjson.dumps(completion_error(event.status, event.message, kind)) + b"\n\n"
                yield b"data: [DONE]\n\n"
                return
            if isinstance(event, Finished):
                last = chunk(event.text, "stop", bench=event.bench)
                if request.usage_in_stream:
                    last += chunk(None, usage=openai_usage(event.usage))
                yield last + b"data: [DONE]\n\n"
                return
            if event.text:
                yield chunk(event.text)

    def error_body(self, error: GatewayError) -> dict[str, Any]:
        return completion_error(error.status, error.message, error.kind, error.param)
