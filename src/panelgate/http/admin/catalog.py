"""The catalog: a model's facts with their sources, overriding them, allowing a paid model, refreshing.

`GET /api/models/{alias}/facts` shows each fact (context window, output
limit, vision, tools, structured output, reasoning, price, limits) with the
value the gateway uses, the source it comes from (`listing`, `models.dev`,
`openrouter`, `learned` or `override`), what an override replaced, and every
source's word. `PUT /api/models/{alias}/facts` sets the person's overrides
(null clears one); overrides win over every source. `POST
/api/models/{alias}/allow-paid` lets a model the price watch held be called
again. `GET /api/catalog` and `PUT /api/catalog/sources/{source}` show and
change where the public catalogs are fetched from; `POST /api/catalog/refresh`
reads them (and each endpoint's listing) now.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, Literal

from fastapi import APIRouter, Request
from pydantic import BaseModel, Field
from starlette.responses import Response

from panelgate.catalog.desk import ModelFacts
from panelgate.catalog.facts import FACTS, FactName, Known, Source, price_of
from panelgate.catalog.refresh import RefreshReport
from panelgate.core.errors import BadRequest
from panelgate.http.admin.schemas import Body
from panelgate.http.admin.shapes import only_fields, plain
from panelgate.http.body import json_body, read_json_object
from panelgate.http.panel_route import caller_of
from panelgate.http.responses import json_response
from panelgate.http.services import services
from panelgate.store.catalog_book import SourceState
from panelgate.store.errors import Invalid
from panelgate.store.fact_book import HoldRecord
from panelgate.store.model_rows import LARGEST_WINDOW
from panelgate.store.rules import check_base_url

router = APIRouter()
PublicSource = Literal["models.dev", "openrouter"]


class PriceShown(BaseModel):
    input: float = Field(description="US dollars per million input tokens")
    output: float = Field(description="US dollars per million output tokens")


class LimitsShown(BaseModel):
    rpm: int | None = None
    rpd: int | None = None
    tpm: int | None = None
    tpd: int | None = None


FactValue = int | bool | PriceShown | LimitsShown | None


class KnownShown(BaseModel):
    source: Source
    value: FactValue
    at: datetime | None = Field(description="when the source said so (a catalog: its last refresh)")
    evidence: str = Field(
        description="the catalog entry it was read from, the listing, the upstream's words, or who set it"
    )


class FactShown(BaseModel):
    name: FactName
    value: FactValue = Field(description="what the gateway uses; null: not known")
    source: Source | None = Field(description="where the value comes from; null: no source knows it")
    overridden: KnownShown | None = Field(
        description="what the override replaced: the value the sources give without it"
    )
    known: list[KnownShown] = Field(description="every source's word: override, learned, listing, catalogs")


class HoldShown(BaseModel):
    state: Literal["held", "allowed"] = Field(
        description="held: a free model that turned paid, never called; allowed: a person let it cost money"
    )
    since: datetime
    price: PriceShown | None = Field(description="the price it was held at")
    source: str = Field(description="the source that priced it")
    changed_by: str | None = Field(description="who allowed it")


class ModelFactsShown(BaseModel):
    alias: str
    served_id: str
    endpoint: str
    facts: list[FactShown]
    free: bool | None = Field(description="its price is zero; null: no price is known")
    matched: dict[str, str] = Field(description="public catalog → the entry matched to the model")
    paid_hold: HoldShown | None


class FactOverrides(Body):
    """`PUT /api/models/{alias}/facts`: each fact given is overridden; null clears its override."""

    context_window: int | None = Field(default=None, ge=1, le=LARGEST_WINDOW)
    max_output: int | None = Field(default=None, ge=1, le=LARGEST_WINDOW)
    vision: bool | None = None
    tools: bool | None = None
    structured_output: bool | None = None
    reasoning: bool | None = None
    price: dict[str, float] | None = Field(
        default=None, description="`input` and `output`: US dollars per million tokens (0 and 0: free)"
    )
    limits: dict[str, int] | None = Field(default=None, description="any of `rpm`, `rpd`, `tpm`, `tpd`")


class SourceShown(BaseModel):
    source: PublicSource
    url: str = Field(description="where it is fetched from; empty: never fetched, its cached copy is read")
    refreshed_at: datetime | None
    origin: str = Field(description="how the last refresh read it: fetched, cache or unavailable")
    detail: str
    entries: int = Field(description="models it lists")


class CatalogShown(BaseModel):
    sources: list[SourceShown]


class SourceChange(Body):
    url: str = Field(description="an http(s) address, or empty to never fetch it (its cached copy is read)")


class ListingShown(BaseModel):
    endpoint: str
    read: bool
    detail: str


class RefreshShown(BaseModel):
    sources: list[SourceShown]
    listings: list[ListingShown] = Field(description="each chat endpoint with models on the bench")
    held: list[str] = Field(description="models held by this refresh: free before, priced now")
    summary: str


@router.get("/models/{alias}/facts", response_model=ModelFactsShown)
async def model_facts(request: Request, alias: str) -> Response:
    return json_response(facts_shown(await services(request).catalog.facts_of(alias)))


@router.put("/models/{alias}/facts", response_model=ModelFactsShown, openapi_extra=json_body(FactOverrides))
async def override_facts(request: Request, alias: str) -> Response:
    body = only_fields(await read_json_object(request, 100_000), set(FACTS))
    found = await services(request).catalog.set_overrides(alias, body, caller_of(request))
    return json_response(facts_shown(found))


@router.post("/models/{alias}/allow-paid", response_model=ModelFactsShown)
async def allow_paid(request: Request, alias: str) -> Response:
    """Let the model be called though it costs money (it leaves the price watch for good)."""
    found = await services(request).catalog.allow_paid(alias, caller_of(request))
    return json_response(facts_shown(found))


@router.get("/catalog", response_model=CatalogShown)
async def show_catalog(request: Request) -> Response:
    return json_response({"sources": [_source(s) for s in await services(request).catalog.sources()]})


@router.put("/catalog/sources/{source}", response_model=CatalogShown, openapi_extra=json_body(SourceChange))
async def change_source(request: Request, source: PublicSource) -> Response:
    body = only_fields(await read_json_object(request, 100_000), {"url"})
    url = body.get("url")
    if not isinstance(url, str):
        raise BadRequest(
            "`url` must be an http(s) address, or empty to never fetch this catalog", param="url"
        )
    url = url.strip()
    if url:
        try:
            url = check_base_url(url)
        except Invalid as exc:
            raise BadRequest(exc.message.replace("base_url", "url"), param="url") from None
    catalog = services(request).catalog
    await catalog.set_source_url(source, url, caller_of(request))
    return json_response({"sources": [_source(s) for s in await catalog.sources()]})


@router.post("/catalog/refresh", response_model=RefreshShown)
async def refresh_catalog(request: Request) -> Response:
    """Read the public catalogs (fetched, else their cached copies) and each endpoint's listing now."""
    report: RefreshReport = await services(request).catalog.refresh()
    return json_response(
        {
            "sources": [_source(s) for s in report.sources],
            "listings": plain(report.listings),
            "held": report.held,
            "summary": report.summary(),
        }
    )


def facts_shown(found: ModelFacts) -> dict[str, Any]:
    price = found.price
    return {
        "alias": found.model.alias,
        "served_id": found.model.served_id,
        "endpoint": found.model.endpoint,
        "facts": [
            {
                "name": fact,
                "value": merged.value,
                "source": None if merged.chosen is None else merged.chosen.source,
                "overridden": None if merged.overridden is None else _known(merged.overridden),
                "known": [_known(word) for word in merged.known],
            }
            for fact, merged in found.merged.items()
        ],
        "free": None if price is None else price.free,
        "matched": {source: match.named() for source, match in found.matches.items()},
        "paid_hold": None if found.hold is None else _hold(found.hold),
    }


def _known(word: Known) -> dict[str, Any]:
    return {"source": word.source, "value": word.value, "at": plain(word.at), "evidence": word.evidence}


def _hold(hold: HoldRecord) -> dict[str, Any]:
    price = price_of(hold.price)
    return {
        "state": hold.state,
        "since": hold.since.isoformat(),
        "price": None if price is None else {"input": price.input, "output": price.output},
        "source": hold.source,
        "changed_by": hold.changed_by,
    }


def _source(state: SourceState) -> dict[str, Any]:
    return {
        "source": state.source,
        "url": state.url or "",
        "refreshed_at": plain(state.refreshed_at),
        "origin": state.origin,
        "detail": state.detail,
        "entries": state.entries,
    }
