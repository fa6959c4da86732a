"""What the admin API's OpenAPI document says that FastAPI cannot see: bodies read by hand, and refusals.

Admin handlers read their own bodies (JSON only, size-capped, the store's
wording for a refusal) and answer with `json_response`, so FastAPI knows
neither. Each route therefore declares its body's model through
`openapi_extra` (`body.json_body`), its reply through `response_model` (a handler
that returns a `Response` sends it as is: the model documents the reply and
never filters it), and `REFUSALS`: every 4xx in the admin shape. The
schemathesis test (tests/http/test_openapi_fuzz.py) holds the document to
what the routes answer.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

NON_BLANK = r"\S"
"""A pattern for text that must hold more than white space (the handlers strip it)."""


class AdminErrorDetail(BaseModel):
    message: str = Field(description="what was refused and what to change")
    field: str | None = Field(description="the body field, parameter or header at fault, when one is")


class AdminError(BaseModel):
    """The admin API's error body."""

    error: AdminErrorDetail


REFUSALS: dict[int | str, dict[str, Any]] = {
    "4XX": {"model": AdminError, "description": "Refused: what to change, and the field at fault"}
}


class Body(BaseModel):
    """A request body the handler reads itself: unknown fields are refused, as `only_fields` does."""

    model_config = ConfigDict(extra="forbid")


def left_out(description: str | None = None, **constraints: Any) -> Any:
    """A field the body may leave out (then unchanged, or the store's default) but never send as null."""
    return Field(default=None, description=description, json_schema_extra=_no_default, **constraints)


def _no_default(schema: dict[str, Any]) -> None:
    schema.pop("default", None)


class Removed(BaseModel):
    ok: Literal[True]
    removed: str = Field(description="the name that was removed")
