"""Discover: the public catalogs' models with free/new marks and reach; adding one to the bench.

`GET /api/discover` lists rows (see `http/dashboard/discover.py` for what is
read, `catalog/discover_pick.py` for the filters and order) with the
catalogs' refresh state, so a gateway that could not fetch them says it is
reading cached copies. `POST /api/discover/add` puts one row's model on the
bench through a route by queueing it for onboarding, exactly as
`POST /api/onboarding` would, and answers 202 with the batch: through an
endpoint that serves it, or through a hub connection to its provider, whose
adapter first tells the hub to serve it (as `POST /api/hubs/{endpoint}/add`
does). Refusals come in the admin shape with the field at fault.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Depends, Request
from pydantic import BaseModel, Field
from starlette.responses import Response

from panelgate.catalog.discover_add import free_alias, route_for
from panelgate.catalog.discover_reach import Route
from panelgate.core.errors import BadRequest
from panelgate.core.naming import ALIAS_RE
from panelgate.engine.health import PROBE_DEADLINE_S
from panelgate.engine.onboarding_suite import SUITE_CHOICES, SuiteChoice
from panelgate.http.admin.hubs import add_via_hub
from panelgate.http.admin.models import default_alias
from panelgate.http.admin.schemas import NON_BLANK, Body
from panelgate.http.admin.shapes import only_fields, plain, text_field
from panelgate.http.body import json_body, read_json_object
from panelgate.http.dashboard.discover import (
    CatalogState,
    DiscoverQuery,
    discover_query,
    discovery,
    read_discover,
)
from panelgate.http.panel_route import caller_of
from panelgate.http.responses import json_response
from panelgate.http.services import Services, services
from panelgate.store.errors import Conflict, StoreError
from panelgate.store.onboarding_book import NewItem, OnboardingItem
from panelgate.store.rules import check_choice

router = APIRouter()
MAX_LIMIT = 5000
ITEM_FIELDS = {"items[0].endpoint": "endpoint", "items[0].served_id": "model", "items[0].alias": "alias"}
"""Onboarding's names for the fields of its one item, and this route's."""


class RouteShown(BaseModel):
    via: Literal["endpoint", "hub"] = Field(
        description="endpoint: onboarded from it directly; hub: its adapter adds the model first"
    )
    endpoint: str
    served_id: str = Field(description="the id the endpoint serves the model as")
    connection: str | None = Field(description="through a hub: the connection the model is added to")


class PriceShown(BaseModel):
    input: float = Field(description="US dollars per million input tokens")
    output: float = Field(description="US dollars per million output tokens")


class RowShown(BaseModel):
    provider: str = Field(description="the catalog's provider id (models.dev), or `openrouter`")
    model: str = Field(description="the provider's id for the model")
    name: str
    free: bool = Field(description="priced zero in and out, or a `:free` variant")
    new: bool = Field(description="first listed within the last 7 days")
    first_seen: str | None = Field(description="when it was first listed; null: in the first catalogs read")
    reach: Literal["on bench", "connected", "easy to add", "other"]
    routes: list[RouteShown] = Field(description="ways onto the bench, the one `add` takes first")
    on_bench: list[str] = Field(description="aliases of the bench's models that serve it")
    queued: bool = Field(description="waiting in the onboarding queue")
    addable: bool = Field(description="`POST /api/discover/add` can put it on the bench now")
    hint: str = Field(description="what to do to reach it, when it cannot be added yet")
    sources: list[str] = Field(description="the catalogs that list it")
    context_window: int | None
    max_output: int | None
    price: PriceShown | None = Field(description="null: no catalog states one")
    vision: bool | None
    tools: bool | None
    reasoning: bool | None
    api: str | None = Field(description="the endpoint API that reaches its provider; null: not known")
    base_url: str = Field(description="its provider's API address, when a catalog states it")


class CatalogShown(BaseModel):
    source: str
    url: str
    refreshed_at: str | None
    origin: str = Field(description="fetched, cache, unavailable, or empty: never refreshed")
    reading: str = Field(description="how its rows were read, in words")
    detail: str
    entries: int


class ListingShown(BaseModel):
    endpoint: str
    read: bool
    why: str


class DiscoverShown(BaseModel):
    rows: list[RowShown]
    total: int = Field(description="rows the filters kept (before `limit`)")
    offered: int = Field(description="every model the catalogs offer (text models, not deprecated)")
    offline: bool = Field(description="every row comes from cached copies: no catalog was fetched")
    catalogs: list[CatalogShown]
    listings: list[ListingShown] = Field(description="each endpoint's listing, when `listings` asked")


class DiscoverAdd(Body):
    """`POST /api/discover/add`: a row to put on the bench."""

    provider: str = Field(pattern=NON_BLANK)
    model: str = Field(pattern=NON_BLANK)
    endpoint: str | None = Field(default=None, description="null: the row's first route")
    alias: str | None = Field(
        default=None, pattern=ALIAS_RE.pattern, description="null: the served id's own, made unique"
    )
    suite: SuiteChoice = Field(default="full", description="as `POST /api/onboarding` takes it")


class DiscoverAdded(BaseModel):
    batch: str = Field(description="follow it with GET /api/onboarding?batch=")
    provider: str
    model: str
    route: RouteShown
    alias: str
    items: list[dict[str, Any]] = Field(description="the queued item, as GET /api/onboarding shows it")
    hub: dict[str, Any] | None = Field(
        description="through a hub: the plan it followed and the writes sent (as its add answers them)"
    )


@router.get("/discover", response_model=DiscoverShown)
async def list_discover(
    request: Request, query: Annotated[DiscoverQuery, Depends(discover_query)], limit: int = 200
) -> Response:
    """Free first, new first, then by reach and name. With no filter: free models, and paid ones on
    providers already reached (`all` adds the rest); `provider`, `q` and `new` search every row;
    `listings` asks each endpoint what it lists (a call to each)."""
    if not 1 <= limit <= MAX_LIMIT:
        raise BadRequest(f"`limit` must be between 1 and {MAX_LIMIT}", param="limit")
    view = await read_discover(services(request), query, limit)
    return json_response(
        {
            "rows": view.rows,
            "total": view.total,
            "offered": view.offered,
            "offline": view.offline,
            "catalogs": [_catalog(c) for c in view.catalogs],
            "listings": plain(view.listings),
        }
    )


@router.post(
    "/discover/add", status_code=202, response_model=DiscoverAdded, openapi_extra=json_body(DiscoverAdd)
)
async def add(request: Request) -> Response:
    """Queue a row's model for onboarding through one of its routes (each endpoint's listing is read)."""
    body = only_fields(await read_json_object(request, 10_000), set(DiscoverAdd.model_fields))
    key = (str(text_field(body, "provider")), str(text_field(body, "model")))
    endpoint = text_field(body, "endpoint", required=False)
    asked_alias = text_field(body, "alias", required=False)
    suite = check_choice(body.get("suite", "full"), SUITE_CHOICES, "suite")
    found = services(request)
    seen, _ = await discovery(found, listings=True)
    route = route_for(key, seen.rows, seen.left_out, endpoint, [e.name for e in seen.endpoints])
    taken = {a.lower() for m in seen.models for a in (m.alias, *m.former_aliases)}
    taken |= {item.alias.lower() for item in await found.db.onboarding.waiting()}
    alias = asked_alias or free_alias(default_alias(route.served_id), key[0], taken)
    if route.via == "hub":
        return await _through_hub(request, key, route, alias, suite)
    queued = await _onboard(found, route, alias, suite, caller_of(request))
    return json_response(
        {
            "batch": queued[0].batch,
            "provider": key[0],
            "model": key[1],
            "route": plain(route),
            "alias": alias,
            "items": plain(queued),
            "hub": None,
        },
        202,
    )


async def _through_hub(
    request: Request, key: tuple[str, str], route: Route, alias: str, suite: SuiteChoice
) -> Response:
    """Have the hub serve the model through the route's connection, then queue it from the hub."""
    assert route.connection is not None  # every hub route names its connection
    added = await add_via_hub(
        request, route.endpoint, route.served_id, route.connection, alias=alias, suite=suite
    )
    item = added["onboarding"]
    if item is None:
        raise Conflict(f"`{key[0]}/{key[1]}` is on the bench already as `{added['on_bench']}`", field="model")
    served = replace(route, served_id=added["plan"]["served_id"])
    return json_response(
        {
            "batch": item["batch"],
            "provider": key[0],
            "model": key[1],
            "route": plain(served),
            "alias": item["alias"],
            "items": [item],
            "hub": {"plan": added["plan"], "sent": added["sent"]},
        },
        202,
    )


async def _onboard(
    found: Services, route: Route, alias: str, suite: SuiteChoice, asked_by: str
) -> list[OnboardingItem]:
    """Queue the model for onboarding through the route's endpoint, as `POST /api/onboarding` would.
    Onboarding's refusals name its item's fields; here they are this route's."""
    try:
        return await found.onboarding.enqueue(
            [NewItem(route.endpoint, route.served_id, alias)],
            suite=suite,
            probe_deadline_s=PROBE_DEADLINE_S,
            asked_by=asked_by,
        )
    except StoreError as exc:
        exc.field = ITEM_FIELDS.get(exc.field or "", exc.field)
        raise


def _catalog(catalog: CatalogState) -> dict[str, Any]:
    state = catalog.state
    return {
        "source": state.source,
        "url": state.url or "",
        "refreshed_at": None if state.refreshed_at is None else state.refreshed_at.isoformat(),
        "origin": state.origin,
        "reading": catalog.reading,
        "detail": state.detail,
        "entries": state.entries,
    }
