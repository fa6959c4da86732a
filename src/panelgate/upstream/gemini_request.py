"""Translate an OpenAI chat-completions body into a Gemini `generateContent` request.

A member on `api: gemini` is asked in Gemini's words; this module decides
those words where the two APIs differ:

- `system`/`developer` messages are joined into `systemInstruction`; turns
  are `user`/`model`, and consecutive turns of one role are merged, since
  Gemini has refused turns that do not alternate. Tool results become
  `functionResponse` parts (`response: {"result": <content>}`) named after
  the call with the same id earlier in the conversation; a result whose call
  cannot be found is refused. Images a tool returned follow as parts of the
  same turn.
- Tool-call arguments that are not a JSON object go as `{"raw": "<text>"}`
  (refusing would end the conversation for this member); empty ones as `{}`.
  Call ids are not sent: Gemini pairs calls and responses by order and name.
- The first `functionCall` of each model turn carries Google's documented
  placeholder `thoughtSignature` ("skip_thought_signature_validator"):
  Gemini 3 refuses replayed calls without a signature, and the real one
  cannot survive the trip through OpenAI-shaped history.
- Images: data: URLs become `inlineData`; http(s) URLs become `fileData`
  with the MIME type guessed from the URL's extension (`image/jpeg` when it
  says nothing). Other content parts are refused.
- Schemas (tool parameters, `response_format` json_schema) are cut down by
  `gemini_schema`. A tool without parameters gets no `parameters` (Gemini
  refuses an object without properties).
- `tool_choice` becomes `toolConfig.functionCallingConfig` (AUTO, ANY, NONE,
  ANY with `allowedFunctionNames`); `parallel_tool_calls` has no equivalent
  and is dropped. Sampling fields go to `generationConfig`; `seed` and the
  penalties pass, `logprobs`, `user` and the like are dropped.
"""

from __future__ import annotations

import mimetypes
from collections.abc import Mapping
from typing import Any
from urllib.parse import urlsplit

from panelgate.upstream.chat_parts import (
    LinkedImage,
    called_function,
    content_parts,
    function_tools,
    max_output_tokens,
    stop_sequences,
)
from panelgate.upstream.errors import UpstreamError
from panelgate.upstream.gemini_schema import gemini_schema

SKIP_SIGNATURE = "skip_thought_signature_validator"
_CHOICE_MODES = {"auto": "AUTO", "required": "ANY", "none": "NONE"}
_GENERATION_FIELDS = {
    "temperature": "temperature",
    "top_p": "topP",
    "seed": "seed",
    "presence_penalty": "presencePenalty",
    "frequency_penalty": "frequencyPenalty",
}


def refused(why: str) -> UpstreamError:
    """A turn this API cannot carry; not worth sending again to the same member."""
    return UpstreamError(f"the Gemini API cannot take this turn: {why}", kind="other")


def request_body(chat: Mapping[str, Any]) -> dict[str, Any]:
    """The `generateContent` request for one chat-completions body (see the module docstring)."""
    system, contents = _conversation(chat.get("messages"))
    body: dict[str, Any] = {"contents": contents}
    if system:
        body["systemInstruction"] = {"parts": [{"text": system}]}
    tools = chat.get("tools")
    if tools:
        body["tools"] = [{"functionDeclarations": _declarations(tools)}]
        config = _function_calling(chat.get("tool_choice"))
        if config:
            body["toolConfig"] = {"functionCallingConfig": config}
    generation = _generation(chat)
    if generation:
        body["generationConfig"] = generation
    return body


class _Conversation:
    """Contents built message by message; remembers each call's name for its result."""

    def __init__(self) -> None:
        self.system: list[str] = []
        self.contents: list[dict[str, Any]] = []
        self.call_names: dict[str, str] = {}

    def add(self, message: object, where: str) -> None:
        if not isinstance(message, Mapping):
            raise refused(f"{where} is not an object")
        role = message.get("role")
        if role in ("system", "developer"):
            self.system.append(_plain_text(message.get("content"), where))
        elif role == "user":
            self._append("user", _parts(message.get("content"), where))
        elif role == "assistant":
            self._append("model", self._model_parts(message, where))
        elif role == "tool":
            self._append("user", self._result_parts(message, where))
        else:
            raise refused(f"{where} has role {role!r}; send system, user, assistant or tool messages")

    def _append(self, role: str, parts: list[dict[str, Any]]) -> None:
        if not parts:
            return
        if self.contents and self.contents[-1]["role"] == role:
            self.contents[-1]["parts"].extend(parts)
        else:
            self.contents.append({"role": role, "parts": parts})

    def _model_parts(self, message: Mapping[str, Any], where: str) -> list[dict[str, Any]]:
        parts = _parts(message.get("content"), where)
        calls = message.get("tool_calls")
        for number, call in enumerate(calls if isinstance(calls, list) else []):
            called = called_function(call, f"{where}.tool_calls[{number}]", refused)
            if called.call_id is not None:
                self.call_names[called.call_id] = called.name
            part: dict[str, Any] = {"functionCall": {"name": called.name, "args": called.arguments}}
            if number == 0:
                part["thoughtSignature"] = SKIP_SIGNATURE
            parts.append(part)
        return parts

    def _result_parts(self, message: Mapping[str, Any], where: str) -> list[dict[str, Any]]:
        call_id = message.get("tool_call_id")
        name = self.call_names.get(call_id) if isinstance(call_id, str) else None
        name = name or (message["name"] if isinstance(message.get("name"), str) else None)
        if not name:
            raise refused(f"{where} answers tool call {call_id!r}, which no earlier assistant message made")
        content = message.get("content")
        parts = [] if content is None or isinstance(content, str) else _parts(content, where)
        text = content if isinstance(content, str) else "\n".join(p["text"] for p in parts if "text" in p)
        images = [part for part in parts if "text" not in part]
        return [{"functionResponse": {"name": name, "response": {"result": text}}}, *images]


def _conversation(messages: object) -> tuple[str, list[dict[str, Any]]]:
    if not isinstance(messages, list):
        raise refused("`messages` must be a list")
    conversation = _Conversation()
    for index, message in enumerate(messages):
        conversation.add(message, f"messages[{index}]")
    return "\n\n".join(text for text in conversation.system if text), conversation.contents


def _plain_text(content: object, where: str) -> str:
    if content is None or isinstance(content, str):
        return content or ""
    return "\n".join(part["text"] for part in _parts(content, where) if "text" in part)


def _parts(content: object, where: str) -> list[dict[str, Any]]:
    """Text and image parts for one message's content; empty text is left out."""
    parts: list[dict[str, Any]] = []
    for part in content_parts(content, where, refused):
        if isinstance(part, str):
            if part:
                parts.append({"text": part})
        elif isinstance(part, LinkedImage):
            guessed, _ = mimetypes.guess_type(urlsplit(part.url).path)
            parts.append({"fileData": {"mimeType": guessed or "image/jpeg", "fileUri": part.url}})
        else:
            parts.append({"inlineData": {"mimeType": part.media_type, "data": part.data}})
    return parts


def _declarations(tools: object) -> list[dict[str, Any]]:
    declarations: list[dict[str, Any]] = []
    for function in function_tools(tools, refused):
        declaration: dict[str, Any] = {"name": function.name}
        if function.description:
            declaration["description"] = function.description
        parameters = gemini_schema(function.parameters)
        if parameters.get("properties"):
            declaration["parameters"] = parameters
        declarations.append(declaration)
    return declarations


def _function_calling(choice: object) -> dict[str, Any] | None:
    if choice is None:
        return None
    if isinstance(choice, str) and choice in _CHOICE_MODES:
        return {"mode": _CHOICE_MODES[choice]}
    function = choice.get("function") if isinstance(choice, Mapping) else None
    if isinstance(function, Mapping) and isinstance(function.get("name"), str):
        return {"mode": "ANY", "allowedFunctionNames": [function["name"]]}
    raise refused(f"`tool_choice` {choice!r} has no Gemini equivalent; use auto, required, none")


def _generation(chat: Mapping[str, Any]) -> dict[str, Any]:
    config: dict[str, Any] = {
        ours: chat[theirs]
        for theirs, ours in _GENERATION_FIELDS.items()
        if isinstance(chat.get(theirs), int | float) and not isinstance(chat.get(theirs), bool)
    }
    if max_tokens := max_output_tokens(chat):
        config["maxOutputTokens"] = max_tokens
    if stops := stop_sequences(chat):
        config["stopSequences"] = stops
    config.update(_response_format(chat.get("response_format")))
    return config


def _response_format(response_format: object) -> dict[str, Any]:
    kind = response_format.get("type") if isinstance(response_format, Mapping) else None
    if kind not in ("json_object", "json_schema") or not isinstance(response_format, Mapping):
        return {}
    config: dict[str, Any] = {"responseMimeType": "application/json"}
    spec = response_format.get("json_schema")
    if kind == "json_schema" and isinstance(spec, Mapping) and isinstance(spec.get("schema"), Mapping):
        config["responseSchema"] = gemini_schema(spec["schema"])
    return config
