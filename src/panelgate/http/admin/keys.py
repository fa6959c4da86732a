"""Gateway keys: list, make (the key's text is shown in that reply only), change limits, revoke.

The body is read like every admin write (JSON only, size-capped) and then
checked against a pydantic model, which is also what the OpenAPI document
shows; the ranges and the collections' existence are the store's rules.
No reply here carries a key's hash, and only the creating one its text.
A key with a budget is shown with what it spent this UTC day and month, as
the access guard last read it (a few seconds behind at most).
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from fastapi import APIRouter, Request
from fastapi.exceptions import RequestValidationError
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from panelgate.http.access.budgets import KeySpent
from panelgate.http.admin.shapes import only_fields
from panelgate.http.body import json_body, read_json_object
from panelgate.http.panel_route import caller_of
from panelgate.http.services import services
from panelgate.store import GatewayKeyRecord
from panelgate.store.gateway_keys import LIMIT_FIELDS, MAX_COST, MAX_NAME, MAX_RPM, MAX_TOKENS, MIN_COST

router = APIRouter()
MAX_BODY = 100_000


class NewKey(BaseModel):
    """`POST /api/keys`: a name, and optionally a collection scope and a rate."""

    model_config = ConfigDict(extra="forbid", strict=True)

    name: str = Field(
        min_length=1,
        max_length=MAX_NAME,
        description="shown for its caller: no active key's name (409), no name the gateway uses (400)",
    )
    collections: list[str] | None = Field(
        default=None, min_length=1, description="collection names the key may use; null: every collection"
    )
    rpm: int | None = Field(default=None, ge=1, le=MAX_RPM, description="requests per minute; null: no limit")
    ad_hoc: bool = Field(default=False, description="may seat ad hoc models by naming them in `with`")
    tokens_per_day: int | None = Field(
        default=None, ge=1, le=MAX_TOKENS, description="tokens in and out a UTC day; null: no limit"
    )
    tokens_per_month: int | None = Field(
        default=None,
        ge=1,
        le=MAX_TOKENS,
        description="tokens in and out a calendar month (UTC); null: no limit",
    )
    cost_per_day: float | None = Field(
        default=None, ge=MIN_COST, le=MAX_COST, description="US dollars a UTC day; null: no limit"
    )
    cost_per_month: float | None = Field(
        default=None,
        ge=MIN_COST,
        le=MAX_COST,
        description="US dollars a calendar month (UTC); null: no limit",
    )


class KeyLimits(BaseModel):
    """`PATCH /api/keys/{id}`: the limits named change (null lifts one), the rest stay."""

    model_config = ConfigDict(extra="forbid")

    rpm: int | None = Field(default=None, ge=1, le=MAX_RPM)
    tokens_per_day: int | None = Field(default=None, ge=1, le=MAX_TOKENS)
    tokens_per_month: int | None = Field(default=None, ge=1, le=MAX_TOKENS)
    cost_per_day: float | None = Field(default=None, ge=MIN_COST, le=MAX_COST)
    cost_per_month: float | None = Field(default=None, ge=MIN_COST, le=MAX_COST)


class Used(BaseModel):
    tokens: int
    cost: float = Field(description="US dollars at the catalog's prices now")
    unpriced_calls: int = Field(description="calls whose price is unknown: they count no dollars")


class Spending(BaseModel):
    day: Used = Field(description="since midnight UTC")
    month: Used = Field(description="since the first of the month, UTC")


class KeyShown(BaseModel):
    """A gateway key as the admin API shows it: its hint, never its text or hash."""

    id: int
    name: str
    hint: str = Field(description="the key's last four characters")
    collections: list[str] | None
    rpm: int | None
    ad_hoc: bool
    created_at: datetime
    last_used_at: datetime | None = Field(description="recorded at most once a minute")
    revoked: bool
    revoked_at: datetime | None
    tokens_per_day: int | None
    tokens_per_month: int | None
    cost_per_day: float | None
    cost_per_month: float | None
    spent: Spending | None = Field(default=None, description="counted for keys with a budget only")


class CreatedKey(KeyShown):
    key: str = Field(description="the key itself: shown in this reply only, never again")


class KeyList(BaseModel):
    keys: list[KeyShown]


def _fields(record: GatewayKeyRecord) -> dict[str, Any]:
    return {
        "id": record.id,
        "name": record.name,
        "hint": record.hint,
        "collections": None if record.collections is None else list(record.collections),
        "rpm": record.rpm,
        "ad_hoc": record.ad_hoc,
        "created_at": record.created_at,
        "last_used_at": record.last_used_at,
        "revoked": record.revoked,
        "revoked_at": record.revoked_at,
        **record.budgets.as_dict(),
    }


async def _shown(request: Request, record: GatewayKeyRecord) -> KeyShown:
    if not record.budgets.any or record.revoked:
        return KeyShown(**_fields(record))
    spent: KeySpent = await services(request).key_spend.spent(record)
    return KeyShown(**_fields(record), spent=Spending.model_validate(spent, from_attributes=True))


async def _new_key(request: Request) -> NewKey:
    body = await read_json_object(request, MAX_BODY)
    try:
        return NewKey.model_validate(body)
    except ValidationError as exc:
        # the app's handler for FastAPI's own body errors words the refusal
        raise RequestValidationError([{**e, "loc": ("body", *e["loc"])} for e in exc.errors()]) from None


@router.get("/keys", response_model=KeyList)
async def list_keys(request: Request) -> KeyList:
    keys = await services(request).db.keys.list()
    return KeyList(keys=[await _shown(request, key) for key in keys])


@router.post("/keys", status_code=201, response_model=CreatedKey, openapi_extra=json_body(NewKey))
async def create_key(request: Request) -> CreatedKey:
    """Make a key; its text is in this reply and nowhere else, ever."""
    asked = await _new_key(request)
    record, plaintext = await services(request).db.keys.create(
        asked.name,
        collections=asked.collections,
        rpm=asked.rpm,
        ad_hoc=asked.ad_hoc,
        budgets=asked.model_dump(include=set(LIMIT_FIELDS) - {"rpm"}),
        actor=caller_of(request),
    )
    return CreatedKey(key=plaintext, **_fields(record))


@router.patch("/keys/{key_id}", response_model=KeyShown, openapi_extra=json_body(KeyLimits))
async def change_limits(request: Request, key_id: int) -> KeyShown:
    """Change a key's rpm and budgets; the ones left out stay as they are."""
    body = only_fields(await read_json_object(request, MAX_BODY), set(LIMIT_FIELDS))
    record = await services(request).db.keys.set_limits(key_id, body, actor=caller_of(request))
    return await _shown(request, record)


@router.post("/keys/{key_id}/revoke", response_model=KeyShown)
async def revoke_key(request: Request, key_id: int) -> KeyShown:
    record = await services(request).db.keys.revoke(key_id, actor=caller_of(request))
    return KeyShown(**_fields(record))
