"""What the OpenAPI document says about the bench routes: `/bench/verdict`, `/record` and `/pending`.

The handlers in `bench.py` read their own bodies and answer with
`json_response`, so FastAPI sees neither: these models declare them (the
handlers' own checks stay the rules), and `REFUSALS` the OpenAI-shaped error
body every bench refusal has (see `errors.py`).
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, Field

from panelgate.engine.verdict_desk import MAX_NOTE
from panelgate.store.verdict_rules import MAX_BETTER_THAN
from panelgate.store.verdicts import MAX_CLAIMS

Claim = Annotated[str, Field(max_length=1000, description="one claim (the store's limit: 1,000 characters)")]


class VerdictBody(BaseModel):
    """`POST /bench/verdict`: fields left out (or null) keep their earlier value on the call.

    A seat that failed (status `error`) is not judged: failures are health, not usefulness."""

    call: str = Field(pattern=r"\S", description="a seat's call id from a reply's `bench.seats`")
    useful: bool
    note: str | None = Field(default=None, max_length=MAX_NOTE)
    real: list[Claim] | None = Field(default=None, max_length=MAX_CLAIMS, description="verified claims")
    false: list[Claim] | None = Field(default=None, max_length=MAX_CLAIMS, description="claims found false")
    better_than: list[Annotated[str, Field(pattern=r"\S")]] | None = Field(
        default=None,
        max_length=MAX_BETTER_THAN,
        description=(
            "call ids of other seats of the same panel whose answers this one beat (a pairwise verdict); "
            "a later verdict's list replaces it, `[]` clears it"
        ),
    )


class PendingBody(BaseModel):
    """`POST /bench/pending`: which of these calls still need a verdict (the first 1,000 are read)."""

    calls: list[str]


class VerdictRecorded(BaseModel):
    ok: Literal[True]
    call: str
    useful: bool
    result: Literal["created", "superseded", "unchanged"]


class Tally(BaseModel):
    useful: int
    notUseful: int
    judged: int
    lastAt: str | None = Field(description="the last verdict's time (ISO 8601)")


class Record(BaseModel):
    collection: str = Field(description="as asked")
    task: str = Field(description="as asked")
    aliases: dict[str, Tally] = Field(description="per model alias, over current verdicts")


class Pending(BaseModel):
    pending: list[str] = Field(description="the calls asked about that answered and have no verdict yet")


class OpenAIErrorDetail(BaseModel):
    message: str
    type: str
    param: str | None
    code: str = Field(description="the HTTP status")


class OpenAIError(BaseModel):
    """The error body of the bench routes: OpenAI's, the one most clients read."""

    error: OpenAIErrorDetail


REFUSALS: dict[int | str, dict[str, Any]] = {
    "4XX": {"model": OpenAIError, "description": "Refused: what to change, and the field at fault"}
}
