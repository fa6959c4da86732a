"""Reading a request body: JSON objects only, within the size cap.

Checked before anything else reads the body, so an oversized or non-JSON
request is refused without being buffered whole. A handler that reads its
body here declares it to the OpenAPI document with `json_body`, since
FastAPI cannot see it.

Ollama's server reads any body as JSON, and its own examples (`curl ... -d
'{...}'`) send no JSON type: curl's default form type, or none at all. The
Ollama routes take those too (`untyped=True`) when the body is JSON.
"""

from __future__ import annotations

from typing import Any

import orjson
from pydantic import BaseModel
from starlette.requests import ClientDisconnect, Request

from panelgate.core.errors import BadRequest, TooLarge, UnsupportedMedia

MAX_DEPTH = 254
"""The most nesting orjson writes back (no real request comes near it)."""
UNTYPED_MEDIA = frozenset({"", "application/x-www-form-urlencoded"})
"""What a body sent without saying it is JSON is typed as: nothing, or curl's `-d` default."""
NOT_JSON = "send the body as JSON with `Content-Type: application/json`"


def _megabytes(n: int) -> str:
    return f"{n / 1_000_000:g} MB"


def media_type(content_type: str) -> str:
    """The media type of a `Content-Type` value, lower-case, without its parameters."""
    return content_type.split(";", 1)[0].strip().lower()


def is_json_media(media: str) -> bool:
    """`application/json`, or a `+json` type (`application/vnd.api+json`, RFC 6839), parameters dropped
    (`media_type`): the one rule the access layer's write check and every handler read by."""
    if media == "application/json":
        return True
    top, _, subtype = media.partition("/")
    return top == "application" and subtype.endswith("+json") and subtype != "+json" and "/" not in subtype


async def read_json_object(request: Request, max_bytes: int, *, untyped: bool = False) -> dict[str, Any]:
    """The body as a JSON object; `untyped` also takes one sent without a JSON type (Ollama's way)."""
    media = media_type(request.headers.get("content-type", ""))
    typed = is_json_media(media)
    if not typed and not (untyped and media in UNTYPED_MEDIA):
        raise UnsupportedMedia(NOT_JSON)
    declared = request.headers.get("content-length")
    if declared is not None:
        if not declared.isdigit():
            raise BadRequest("the Content-Length header is not a number of bytes")
        if int(declared) > max_bytes:
            raise TooLarge(
                f"the body is larger than {_megabytes(max_bytes)}; "
                "send images as http(s) URLs instead of inline data"
            )
    chunks: list[bytes] = []
    size = 0
    more = True
    # The ASGI messages themselves: `request.stream()` is an async generator, which the
    # event loop tracks in a WeakSet, a measurable part of a small request's cost.
    while more:
        message = await request.receive()
        if message["type"] == "http.disconnect":
            raise ClientDisconnect()
        chunk = message.get("body", b"")
        more = message.get("more_body", False)
        size += len(chunk)
        if size > max_bytes:
            raise TooLarge(
                f"the body is larger than {_megabytes(max_bytes)}; "
                "send images as http(s) URLs instead of inline data"
            )
        chunks.append(chunk)
    try:
        body = orjson.loads(b"".join(chunks))
    except orjson.JSONDecodeError as exc:
        if not typed:  # it never said it was JSON, and it is not
            raise UnsupportedMedia(NOT_JSON) from None
        raise BadRequest(f"the body is not valid JSON ({exc.msg} at character {exc.pos})") from None
    if not isinstance(body, dict):
        raise BadRequest("the body must be a JSON object")
    if _too_deep_to_write(body):
        raise BadRequest(f"the body nests arrays and objects more than {MAX_DEPTH} levels deep")
    return body


def _too_deep_to_write(body: dict[str, Any]) -> bool:
    """Whether orjson refuses to write `body` back: it reads 1,024 levels but writes only 254, and
    every decoder and the route engine write parts of a body again (a C-speed check, unlike a walk)."""
    try:
        orjson.dumps(body)
    except orjson.JSONEncodeError:
        return True
    return False


def json_body(model: type[BaseModel]) -> dict[str, Any]:
    """`openapi_extra` declaring `model` as the route's required JSON body (documentation only: the
    handler still reads and checks the body itself).

    The model must be flat (no nested models): its schema is inlined, and a
    `$defs` reference would not resolve inside the OpenAPI document.
    """
    schema = model.model_json_schema()
    if "$defs" in schema:
        raise TypeError(f"{model.__name__} nests models; keep request bodies flat")
    return {"requestBody": {"required": True, "content": {"application/json": {"schema": schema}}}}
