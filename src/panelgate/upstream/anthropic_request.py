"""Translate an OpenAI chat-completions body into an Anthropic Messages request.

A member on `api: anthropic` is asked in Anthropic's words; this module decides
those words where the two APIs differ:

- `system`/`developer` messages before the first turn are joined (blank line
  between) into `system`; later ones (an agent's mid-conversation system
  entries, as Claude Code sends) stay in place as a `<system-reminder>` text
  block of a user turn, which every Messages model takes without a beta;
  consecutive messages of one role are merged (a user turn's tool results
  first, as Anthropic wants them), and
  consecutive `role: tool` results become one user message of `tool_result`
  blocks, because Anthropic wants user and assistant to alternate.
- Tool-call arguments that are not a JSON object (a model's broken output,
  replayed by the agent) go as `{"raw": "<the text>"}` rather than refusing:
  a refusal would make the member unusable for the rest of the conversation.
  Empty arguments go as `{}`.
- Tool-call ids Anthropic refuses (anything outside `[A-Za-z0-9_-]`, as other
  providers write them) are rewritten the same way in `tool_use` and
  `tool_result`, with a hash of the original so two never collide.
- `max_tokens` is required: `max_completion_tokens`, else `max_tokens`, else
  4,096 (the largest output every Claude model accepts).
- `temperature` is capped at 1 (Anthropic's range is 0–1, OpenAI's 0–2); when
  both `temperature` and `top_p` are given only `temperature` is sent, since
  recent Claude models refuse the pair.
- `response_format` has no equivalent: a JSON-object or JSON-schema request
  becomes an instruction appended to `system` (the reply stays text).
- `parallel_tool_calls: false` becomes `disable_parallel_tool_use`; a
  `tool_choice` without `tools` is dropped. Assistant `reasoning_content` is
  dropped: thinking cannot be replayed without Anthropic's signature.
- Refused, with an `UpstreamError` saying what to send instead: content parts
  other than text and images, images that are neither data: nor http(s)
  URLs, tools that are not functions, tool results without a call id.
  Fields without an equivalent (`seed`, penalties, `logprobs`, `user`, …)
  are dropped.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Mapping
from typing import Any

import orjson

from panelgate.upstream.chat_parts import (
    LinkedImage,
    called_function,
    content_parts,
    function_tools,
    max_output_tokens,
    stop_sequences,
)
from panelgate.upstream.errors import UpstreamError

DEFAULT_MAX_TOKENS = 4096
_ID_OK = re.compile(r"[A-Za-z0-9_-]+")
_ID_BAD_CHARS = re.compile(r"[^A-Za-z0-9_-]")
_JSON_ONLY = "Answer with one JSON object only: no prose around it and no code fences."
_JSON_SCHEMA_ONLY = "Answer with JSON only, no prose around it and no code fences, matching this JSON schema:"


def refused(why: str) -> UpstreamError:
    """A turn this API cannot carry; not worth sending again to the same member."""
    return UpstreamError(f"the Anthropic Messages API cannot take this turn: {why}", kind="other")


def request_body(served_id: str, chat: Mapping[str, Any]) -> dict[str, Any]:
    """The Messages request for one chat-completions body (see the module docstring)."""
    system, messages = _conversation(chat.get("messages"))
    instruction = _format_instruction(chat.get("response_format"))
    if instruction:
        system = f"{system}\n\n{instruction}" if system else instruction
    max_tokens = max_output_tokens(chat) or DEFAULT_MAX_TOKENS
    body: dict[str, Any] = {"model": served_id, "max_tokens": max_tokens, "stream": True}
    if system:
        body["system"] = system
    body["messages"] = messages
    tools = chat.get("tools")
    if tools:
        body["tools"] = _tools(tools)
        choice = _tool_choice(chat.get("tool_choice"), chat.get("parallel_tool_calls"))
        if choice is not None:
            body["tool_choice"] = choice
    body.update(_sampling(chat))
    return body


def _sampling(chat: Mapping[str, Any]) -> dict[str, Any]:
    sampling: dict[str, Any] = {}
    temperature, top_p = chat.get("temperature"), chat.get("top_p")
    if isinstance(temperature, int | float) and not isinstance(temperature, bool):
        sampling["temperature"] = min(float(temperature), 1.0)
    elif isinstance(top_p, int | float) and not isinstance(top_p, bool):
        sampling["top_p"] = top_p
    stops = stop_sequences(chat)
    if stops:
        sampling["stop_sequences"] = stops
    return sampling


def _format_instruction(response_format: object) -> str:
    kind = response_format.get("type") if isinstance(response_format, Mapping) else None
    if kind == "json_object":
        return _JSON_ONLY
    if kind != "json_schema" or not isinstance(response_format, Mapping):
        return ""
    spec = response_format.get("json_schema")
    if isinstance(spec, Mapping) and spec.get("schema") is not None:
        return f"{_JSON_SCHEMA_ONLY} {orjson.dumps(spec['schema']).decode()}"
    return _JSON_ONLY


def _conversation(messages: object) -> tuple[str, list[dict[str, Any]]]:
    """The system text, and the turns with same-role neighbours merged.

    System entries after the first turn (an agent's mid-conversation system
    messages) stay where they stand, as a reminder block of a user turn.
    """
    if not isinstance(messages, list):
        raise refused("`messages` must be a list")
    system: list[str] = []
    turns: list[dict[str, Any]] = []
    for index, message in enumerate(messages):
        where = f"messages[{index}]"
        if not isinstance(message, Mapping):
            raise refused(f"{where} is not an object")
        role = message.get("role")
        if role in ("system", "developer") and not turns:
            system.append(_plain_text(message.get("content"), where))
            continue
        if role in ("system", "developer"):
            role, blocks = "user", _reminder(_plain_text(message.get("content"), where))
        else:
            role, blocks = _turn(role, message, where)
        if not blocks:
            continue
        if turns and turns[-1]["role"] == role:
            turns[-1]["content"].extend(blocks)
        else:
            turns.append({"role": role, "content": blocks})
    for turn in turns:  # Anthropic wants a user turn's tool results before its text
        turn["content"].sort(key=lambda block: block["type"] != "tool_result")
    return "\n\n".join(text for text in system if text), turns


def _reminder(text: str) -> list[dict[str, Any]]:
    """Mid-conversation system text as a user-turn block, which every Messages model takes
    (the API takes system entries in place only with its mid-conversation-system beta)."""
    return [{"type": "text", "text": f"<system-reminder>\n{text}\n</system-reminder>"}] if text else []


def _turn(role: object, message: Mapping[str, Any], where: str) -> tuple[str, list[dict[str, Any]]]:
    if role == "user":
        return "user", _blocks(message.get("content"), where)
    if role == "assistant":
        blocks = _blocks(message.get("content"), where)
        calls = message.get("tool_calls")
        for number, call in enumerate(calls if isinstance(calls, list) else []):
            blocks.append(_tool_use(call, f"{where}.tool_calls[{number}]"))
        return "assistant", blocks
    if role == "tool":
        return "user", [_tool_result(message, where)]
    raise refused(f"{where} has role {role!r}; send system, user, assistant or tool messages")


def _plain_text(content: object, where: str) -> str:
    if content is None or isinstance(content, str):
        return content or ""
    blocks = _blocks(content, where)
    return "\n".join(block["text"] for block in blocks if block["type"] == "text")


def _blocks(content: object, where: str) -> list[dict[str, Any]]:
    """Text and image blocks for one message's content; blank text is left out (Anthropic refuses it)."""
    blocks: list[dict[str, Any]] = []
    for part in content_parts(content, where, refused):
        if isinstance(part, str):
            if part.strip():
                blocks.append({"type": "text", "text": part})
        elif isinstance(part, LinkedImage):
            blocks.append({"type": "image", "source": {"type": "url", "url": part.url}})
        else:
            source = {"type": "base64", "media_type": part.media_type, "data": part.data}
            blocks.append({"type": "image", "source": source})
    return blocks


def _call_id(call_id: str) -> str:
    """The id as Anthropic accepts it: unchanged when it is, else made safe and kept distinct."""
    if _ID_OK.fullmatch(call_id):
        return call_id
    digest = hashlib.sha256(call_id.encode()).hexdigest()[:8]
    return f"{_ID_BAD_CHARS.sub('_', call_id)}_{digest}"


def _tool_use(call: object, where: str) -> dict[str, Any]:
    called = called_function(call, where, refused)
    if not called.call_id:
        raise refused(f"{where} is a tool call without an id")
    call_id = _call_id(called.call_id)
    return {"type": "tool_use", "id": call_id, "name": called.name, "input": called.arguments}


def _tool_result(message: Mapping[str, Any], where: str) -> dict[str, Any]:
    call_id = message.get("tool_call_id")
    if not isinstance(call_id, str) or not call_id:
        raise refused(f"{where} is a tool result without a `tool_call_id`")
    result: dict[str, Any] = {"type": "tool_result", "tool_use_id": _call_id(call_id)}
    content = message.get("content")
    blocks = _blocks(content, where) if not isinstance(content, str) else []
    if isinstance(content, str) and content:
        result["content"] = content
    elif blocks and all(block["type"] == "text" for block in blocks):
        result["content"] = "\n".join(block["text"] for block in blocks)
    elif blocks:
        result["content"] = blocks
    return result


def _tools(tools: object) -> list[dict[str, Any]]:
    translated: list[dict[str, Any]] = []
    for function in function_tools(tools, refused):
        schema = function.parameters
        schema = dict(schema) if isinstance(schema, Mapping) else {"properties": {}}
        schema.setdefault("type", "object")
        entry: dict[str, Any] = {"name": function.name, "input_schema": schema}
        if function.description:
            entry["description"] = function.description
        translated.append(entry)
    return translated


def _tool_choice(choice: object, parallel: object) -> dict[str, Any] | None:
    picked: dict[str, Any] | None
    if choice is None:
        picked = None
    elif choice in ("auto", "required", "none"):
        picked = {"type": {"auto": "auto", "required": "any", "none": "none"}[str(choice)]}
    elif isinstance(choice, Mapping) and isinstance(choice.get("function"), Mapping):
        name = choice["function"].get("name")
        if not isinstance(name, str):
            raise refused("`tool_choice` names no function")
        picked = {"type": "tool", "name": name}
    else:
        raise refused(f"`tool_choice` {choice!r} has no Anthropic equivalent; use auto, required, none")
    if parallel is False:
        picked = picked or {"type": "auto"}
        if picked["type"] != "none":
            picked["disable_parallel_tool_use"] = True
    return picked
