"""Read the pieces of an OpenAI chat body that every outbound translation reads alike.

Anthropic and Gemini each want the same facts out of a chat-completions body,
then word them their own way: a message's text and images (an image's URL, or
its media type and base64 data), a tool call's name and arguments as an
object, the function tools, the output-token limit, the stop sequences.
Reading them once, here, keeps the translations from drifting apart on what a
loose body means (a percent-encoded data: URL, arguments that are not JSON,
`stop` as one string) and on what they refuse. A refusal is worded by the
translation that reads (`Refusal`), so it names the API that cannot take the turn.
"""

from __future__ import annotations

import base64
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import unquote_to_bytes

import orjson

from panelgate.upstream.errors import UpstreamError

Refusal = Callable[[str], UpstreamError]
"""A translation's own refusal: the turn it cannot carry, and why."""


@dataclass(frozen=True, slots=True)
class LinkedImage:
    """An image given by its http(s) URL."""

    url: str


@dataclass(frozen=True, slots=True)
class InlineImage:
    """An image given inline, as a `data:` URL: its media type and base64 data."""

    media_type: str
    data: str


ContentPart = str | LinkedImage | InlineImage
"""One piece of a message's content: its text (possibly empty), or an image."""


@dataclass(frozen=True, slots=True)
class CalledFunction:
    """An assistant's tool call: the function's name, the call's id (if any), its arguments."""

    name: str
    call_id: str | None
    arguments: dict[str, Any]


@dataclass(frozen=True, slots=True)
class FunctionTool:
    """A function tool: its name, its description when it has a non-empty one, its schema as sent."""

    name: str
    description: str | None
    parameters: object


def content_parts(content: object, where: str, refused: Refusal) -> list[ContentPart]:
    """A message's content in order; none for no content, one text for a string.

    Which text is too empty to send is the translation's call (Anthropic refuses
    blank text, Gemini only empty text). Parts other than text and images are refused.
    """
    if content is None:
        return []
    if isinstance(content, str):
        return [content]
    if not isinstance(content, list):
        raise refused(f"{where}.content must be text or a list of parts")
    parts: list[ContentPart] = []
    for number, part in enumerate(content):
        at = f"{where}.content[{number}]"
        kind = part.get("type") if isinstance(part, Mapping) else None
        if kind == "text" and isinstance(part, Mapping) and isinstance(part.get("text"), str):
            parts.append(part["text"])
        elif kind == "image_url" and isinstance(part, Mapping):
            parts.append(_image(part.get("image_url"), at, refused))
        else:
            raise refused(f"{at} is a {kind!r} part; only text and image parts can be sent")
    return parts


def _image(image: object, where: str, refused: Refusal) -> LinkedImage | InlineImage:
    url = image.get("url") if isinstance(image, Mapping) else image
    if isinstance(url, str) and url.startswith(("http://", "https://")):
        return LinkedImage(url)
    if isinstance(url, str) and url.startswith("data:"):
        found = data_url(url)
        if found is None:
            raise refused(f"{where} is a data: URL without data")
        return InlineImage(*found)
    raise refused(f"{where} is an image that is neither a data: URL nor an http(s) URL")


def data_url(url: str) -> tuple[str, str] | None:
    """The media type and base64 data of a `data:` URL, or None when it carries no data.

    A percent-encoded payload is base64-encoded here: the APIs we translate to take only base64.
    """
    head, comma, payload = url[5:].partition(",")
    if not comma:
        return None
    media_type, *params = head.split(";")
    if "base64" in params:
        return media_type or "application/octet-stream", payload
    return media_type or "text/plain", base64.b64encode(unquote_to_bytes(payload)).decode()


def called_function(call: object, where: str, refused: Refusal) -> CalledFunction:
    """An assistant's tool call; one without a function name is refused, an id is the caller's to need."""
    function = call.get("function") if isinstance(call, Mapping) else None
    if not isinstance(function, Mapping) or not isinstance(function.get("name"), str):
        raise refused(f"{where} is a tool call without a function name")
    call_id = call.get("id") if isinstance(call, Mapping) else None
    return CalledFunction(
        function["name"],
        call_id if isinstance(call_id, str) else None,
        tool_arguments(function.get("arguments")),
    )


def function_tools(tools: object, refused: Refusal) -> list[FunctionTool]:
    """The function tools of `tools`, each with a name; tools that are not functions are refused."""
    if not isinstance(tools, list):
        raise refused("`tools` must be a list")
    functions: list[FunctionTool] = []
    for number, tool in enumerate(tools):
        function = tool.get("function") if isinstance(tool, Mapping) else None
        if not isinstance(tool, Mapping) or tool.get("type", "function") != "function":
            raise refused(f"tools[{number}] is not a function tool")
        if not isinstance(function, Mapping) or not isinstance(function.get("name"), str):
            raise refused(f"tools[{number}] has no function name")
        said = function.get("description")
        described = said if isinstance(said, str) and said else None
        functions.append(FunctionTool(function["name"], described, function.get("parameters")))
    return functions


def tool_arguments(arguments: object) -> dict[str, Any]:
    """A tool call's arguments as an object: parsed JSON, `{}` when empty, else `{"raw": text}`.

    Arguments that are not a JSON object are a model's broken output, replayed by
    the agent; refusing them would make the member unusable for the rest of the
    conversation.
    """
    if isinstance(arguments, Mapping):
        return dict(arguments)
    if not isinstance(arguments, str) or not arguments.strip():
        return {}
    try:
        parsed = orjson.loads(arguments)
    except orjson.JSONDecodeError:
        return {"raw": arguments}
    return parsed if isinstance(parsed, dict) else {"raw": arguments}


def max_output_tokens(chat: Mapping[str, Any]) -> int | None:
    """`max_completion_tokens`, else `max_tokens`, whichever is first a positive integer."""
    for field in ("max_completion_tokens", "max_tokens"):
        value = chat.get(field)
        if isinstance(value, int) and not isinstance(value, bool) and value > 0:
            return value
    return None


def stop_sequences(chat: Mapping[str, Any]) -> list[str]:
    """`stop` (one string or a list) as the list of its non-empty strings."""
    stop = chat.get("stop")
    stops = [stop] if isinstance(stop, str) else stop if isinstance(stop, list) else []
    return [s for s in stops if isinstance(s, str) and s]
