"""What the OpenAPI document says about the bench routes: `/bench/verdict`, `/record` and `/pending`.

The handlers in `bench.py` read their own bodies and answer with
`json_response`, so FastAPI sees neither: these models declare them (the
handlers' own checks stay the rules), and `REFUSALS` the OpenAI-shaped error
body every bench refusal has (see `errors.py`).
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, Field

from panelgate.engine.verdict_desk import MAX_NOTE, SOURCE_PATTERN
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
    source: str | None = Field(
        default=None,
        pattern=SOURCE_PATTERN,
        description="where the verdict is given from, e.g. `claude-code` (the Record page filters on it)",
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


class Strength(BaseModel):
    """A model's Bradley–Terry strength on one shape, from "better than" verdicts."""

    value: float = Field(description="log-strength: 0 is an average model, above 0 wins more often")
    low: float = Field(description="the 90 % interval's lower end")
    high: float = Field(description="the 90 % interval's upper end")
    winChance: float = Field(ge=0, le=1, description="the chance its answer beats an average model's")


class Standing(BaseModel):
    """One model on one shape: its Beta posterior on the share of its answers that are useful."""

    alias: str
    mean: float = Field(ge=0, le=1, description="the posterior mean (what seating and ranking read)")
    low: float = Field(ge=0, le=1, description="the 90 % credible interval's lower end (5th percentile)")
    high: float = Field(ge=0, le=1, description="the 90 % credible interval's upper end (95th percentile)")
    judged: int = Field(ge=0, description="the verdicts on this model and shape (the prior's not counted)")
    suite: int = Field(
        ge=0,
        description=(
            "the review-suite results on this model and shape (its newest answer to each task, half a "
            "verdict each; bench-wide, so 0 when a collection is named)"
        ),
    )
    strength: Strength | None = Field(
        description="its pairwise strength; null when no pairwise verdict on this shape names it"
    )


class Record(BaseModel):
    collection: str = Field(description="as asked")
    task: str = Field(description="as asked")
    shape: str = Field(default="", description="as asked")
    source: str = Field(default="", description="as asked")
    aliases: dict[str, Tally] = Field(
        description="per model alias, over current verdicts (`task` and `source` filter these)"
    )
    shapes: dict[str, list[Standing]] = Field(
        default_factory=dict,
        description=(
            "per shape with evidence (only `shape` when asked), each model with verdicts or suite results "
            "on it, best posterior mean first; over the collection's verdicts alone when one is named, with "
            "the prior fitted from the whole bench's; `task` does not narrow these"
        ),
    )


class Pending(BaseModel):
    pending: list[str] = Field(description="the calls asked about that answered and have no verdict yet")


class OwedSeat(BaseModel):
    """A seat of the caller's recent panels that answered and has no verdict yet."""

    call: str = Field(description="the seat's call id, for `POST /bench/verdict`")
    panel: str
    collection: str = Field(description="`bench/<name>`")
    seat: str = Field(description="the seat's label, e.g. member1 or explorer1")
    alias: str
    shape: str = Field(description="the panel's shape: where the verdict counts")
    at: str = Field(description="when the panel was asked (ISO 8601)")
    preview: str = Field(description="the start of the panel's prompt")


class Owed(BaseModel):
    pending: list[OwedSeat] = Field(description="newest panel first, its seats in order")


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
