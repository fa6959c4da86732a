"""How big a request is, without a tokenizer.

Seating must refuse a prompt that cannot fit a member's context window before
any call is made, and must avoid explorers that are too small, so it needs a
size for every request in every API. A tokenizer per model family is not
available offline; chars/4 × 1.1 errs on the large side for English and code,
and each image is counted as a flat 2,500 tokens. The same text helpers give
the dashboard a short preview of the prompt that never holds image bytes.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from panelgate.core.types import ChatMessage, ModelInfo, TokenUsage

IMAGE_TOKENS = 2500
IMAGE_PLACEHOLDER = "[image]"


def _parts(message: ChatMessage) -> list[Any]:
    content = message.get("content")
    if isinstance(content, str):
        return [{"type": "text", "text": content}]
    if isinstance(content, list):
        return content
    return []


def _is_image(part: Any) -> bool:
    return isinstance(part, dict) and part.get("type") == "image_url"


def _part_text(part: Any) -> str | None:
    if isinstance(part, dict) and part.get("type") == "text" and isinstance(part.get("text"), str):
        return str(part["text"])
    return None


def message_text(message: ChatMessage) -> str:
    """The words of one OpenAI chat message: its string content, or its text parts joined."""
    texts = [_part_text(part) for part in _parts(message)]
    return "\n".join([text for text in texts if text is not None])


def readable_text(message: ChatMessage) -> str:
    """Like `message_text`, with each image shown as `[image]` where it stood."""
    pieces: list[str] = []
    for part in _parts(message):
        text = _part_text(part)
        if text is not None:
            pieces.append(text)
        elif _is_image(part):
            pieces.append(IMAGE_PLACEHOLDER)
    return "\n".join(pieces)


def count_images(messages: Sequence[ChatMessage]) -> int:
    """How many `image_url` parts the messages carry."""
    return sum(1 for message in messages for part in _parts(message) if _is_image(part))


def estimate_tokens(messages: Sequence[ChatMessage]) -> int:
    """chars/4 × 1.1 over every message's text (system included), at least 1 for any
    text, plus `IMAGE_TOKENS` per image."""
    chars = sum([len(message_text(message)) for message in messages])
    text_tokens = max(1, chars * 11 // 40) if chars else 0
    return text_tokens + IMAGE_TOKENS * count_images(messages)


def call_usage(
    messages: Sequence[ChatMessage], answer: str, tokens_in: int | None, tokens_out: int | None
) -> TokenUsage:
    """The upstream's counts for a call, each one it left out estimated (and the usage marked so):
    replies report usage on every panel, and some endpoints never say."""
    estimated = tokens_in is None or tokens_out is None
    if tokens_in is None:
        tokens_in = estimate_tokens(messages)
    if tokens_out is None:
        tokens_out = estimate_tokens([{"role": "assistant", "content": answer}])
    return TokenUsage(tokens_in, tokens_out, estimated)


def fits(model: ModelInfo, estimate: int) -> bool:
    """True unless the model's known context window is smaller than `estimate`.

    An unknown window never refuses: we would rather try than guess."""
    return model.context_window is None or model.context_window >= estimate


def prompt_preview(messages: Sequence[ChatMessage], limit: int = 200) -> str:
    """The last user message, whitespace collapsed, images as `[image]`, at most `limit` chars."""
    last = next((m for m in reversed(messages) if m.get("role") == "user"), None)
    if last is None or limit <= 0:
        return ""
    text = " ".join(readable_text(last).split())
    if len(text) <= limit:
        return text
    return text[: limit - 1].rstrip() + "…"
