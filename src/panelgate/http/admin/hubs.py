"""Hubs: what each hub endpoint serves, a dry-run plan, and adding a model through one.

`GET /api/hubs` asks every endpoint that has a `hub` for its version and
connections (a hub that does not answer is reported, the others still
shown). `POST /api/hubs/{endpoint}/plan` is the adapter's dry run: nothing
is written, and the reply lists the exact requests an add would send.
`POST /api/hubs/{endpoint}/add` sends them and then queues the model for
onboarding, as `POST /api/onboarding` does, so it reaches the bench the
ordinary way. Other rooms (Discover) call `add_via_hub`.

The hub's admin API is reached with httpx (`hubs.admin_client`), one client per admin request:
these calls are rare and never on a panel's path. A key a hub refused is
kept (hashed, in this app's memory) so it is never sent twice.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any

from fastapi import APIRouter, Request
from pydantic import BaseModel, Field
from starlette.responses import Response

from panelgate.core.errors import NotFound, error_for_status
from panelgate.engine.health import PROBE_DEADLINE_S
from panelgate.engine.onboarding_suite import SUITE_CHOICES, SuiteChoice
from panelgate.http.admin.models import default_alias
from panelgate.http.admin.schemas import NON_BLANK, AdminError, Body
from panelgate.http.admin.shapes import only_fields, plain, text_field
from panelgate.http.body import json_body, read_json_object
from panelgate.http.panel_route import caller_of
from panelgate.http.responses import json_response
from panelgate.http.services import Services, services
from panelgate.hubs import ADAPTERS, HubError, Plan, RefusedKeys, admin_client, hub_for, is_checked
from panelgate.store import EndpointRecord
from panelgate.store.errors import Conflict
from panelgate.store.onboarding_book import NewItem
from panelgate.store.rules import check_alias, check_choice

if TYPE_CHECKING:
    import httpx

router = APIRouter()
HUB_FAILED: dict[int | str, dict[str, Any]] = {
    502: {"model": AdminError, "description": "The hub refused its admin key, or did not answer"}
}


class HubAsk(Body):
    """A model to add through a hub, and the connection (as `GET /api/hubs` names it) to add it to."""

    model: str = Field(max_length=512, pattern=NON_BLANK, description="the id the connection knows it by")
    connection: str = Field(max_length=256, pattern=NON_BLANK)


class HubAdd(HubAsk):
    alias: str | None = Field(default=None, description="its alias on the bench; null: from the id")
    suite: SuiteChoice = Field(default="full", description="onboarding's suite step, as POST /api/onboarding")


class RequestShown(BaseModel):
    method: str
    path: str
    body: Any = Field(description="the JSON sent (a hub's own keys, written back unchanged, are not shown)")


class PlanShown(BaseModel):
    hub: str
    endpoint: str
    model: str
    connection: str
    served_id: str = Field(description="the id the hub will list it under")
    requests: list[RequestShown] = Field(description="exactly what an add sends, in order")
    notes: list[str]
    already: bool = Field(description="the hub serves it through that connection already: add sends nothing")
    blocked: str | None = Field(description="why an add would be refused; null: it would go through")
    version: str | None
    checked: bool = Field(description="whether the hub's version is one the adapter was checked against")


class PlanReply(BaseModel):
    plan: PlanShown


class AddReply(BaseModel):
    plan: PlanShown
    sent: list[RequestShown] = Field(
        description="the writes the hub received (none when it served it already)"
    )
    onboarding: dict[str, Any] | None = Field(
        description="the queued onboarding item; null: on the bench already"
    )
    on_bench: str | None = Field(description="the alias it is on the bench as, when it was already")


class ConnectionShown(BaseModel):
    name: str
    detail: str
    models: list[str]


class HubShown(BaseModel):
    endpoint: str
    hub: str
    program: str
    supports: str
    checked_against: list[str]
    version: str | None
    checked: bool
    connections: list[ConnectionShown]
    error: str | None = Field(description="why the hub could not be read (the others are still shown)")


class HubList(BaseModel):
    hubs: list[HubShown]


def _refusal(exc: HubError) -> Exception:
    """The admin API's error for a hub's refusal: 409 is the store's Conflict (core has no 409)."""
    if exc.status == 409:
        return Conflict(exc.message, field=exc.field)
    error = error_for_status(exc.status, exc.message)
    error.param = exc.field
    return error


def plan_json(plan: Plan) -> dict[str, Any]:
    shown: dict[str, Any] = plain(plan)
    shown["requests"] = [{"method": r.method, "path": r.path, "body": r.body} for r in plan.requests]
    return shown


async def _hub_endpoint(svc: Services, name: str) -> EndpointRecord:
    endpoint = await svc.db.endpoints.get(name)
    if endpoint is None or endpoint.hub is None:
        hubs = ", ".join(e.name for e in await svc.db.endpoints.list() if e.hub) or "none yet"
        what = f"no endpoint named `{name}`" if endpoint is None else f"endpoint `{name}` is not a hub"
        raise NotFound(
            f"{what}; hub endpoints: {hubs} (PUT /api/endpoints/{{name}}/hub makes one)", param="endpoint"
        )
    return endpoint


async def _shown(
    svc: Services, endpoint: EndpointRecord, http: httpx.AsyncClient, refused: RefusedKeys
) -> dict[str, Any]:
    hub = hub_for(endpoint, svc.keys, http, refused)
    shown: dict[str, Any] = {
        "endpoint": endpoint.name,
        "hub": endpoint.hub,
        "program": hub.PROGRAM,
        "supports": hub.SUPPORTS,
        "checked_against": list(hub.CHECKED),
        "version": None,
        "checked": False,
        "connections": [],
        "error": None,
    }
    try:
        connections = await hub.connections()
        version = await hub.version()
    except HubError as exc:
        shown["error"] = exc.message
        return shown
    shown.update(version=version, checked=is_checked(version, hub.CHECKED), connections=plain(connections))
    return shown


@router.get("/hubs", response_model=HubList, responses=HUB_FAILED)
async def list_hubs(request: Request) -> Response:
    """Every hub endpoint with its version and connections, read now."""
    svc = services(request)
    hubs = [e for e in await svc.db.endpoints.list() if e.hub in ADAPTERS]
    async with admin_client() as http:
        shown = await asyncio.gather(*(_shown(svc, e, http, svc.hub_refusals) for e in hubs))
    return json_response({"hubs": shown})


async def _ask(request: Request, allowed: set[str]) -> tuple[dict[str, Any], str, str]:
    body = only_fields(await read_json_object(request, 100_000), allowed)
    return body, str(text_field(body, "model")), str(text_field(body, "connection"))


@router.post(
    "/hubs/{endpoint}/plan", response_model=PlanReply, responses=HUB_FAILED, openapi_extra=json_body(HubAsk)
)
async def plan_add(request: Request, endpoint: str) -> Response:
    """What adding the model would send to the hub; nothing is written."""
    _, model, connection = await _ask(request, set(HubAsk.model_fields))
    svc = services(request)
    target = await _hub_endpoint(svc, endpoint)
    async with admin_client() as http:
        try:
            plan = await hub_for(target, svc.keys, http, svc.hub_refusals).plan(model, connection)
        except HubError as exc:
            raise _refusal(exc) from None
    return json_response({"plan": plan_json(plan)})


@router.post(
    "/hubs/{endpoint}/add", response_model=AddReply, responses=HUB_FAILED, openapi_extra=json_body(HubAdd)
)
async def add(request: Request, endpoint: str) -> Response:
    """Add the model through the hub, then queue it for onboarding (it reaches the bench from there)."""
    body, model, connection = await _ask(request, set(HubAdd.model_fields))
    alias = text_field(body, "alias", required=False)
    suite = check_choice(body.get("suite", "full"), SUITE_CHOICES, "suite")
    reply = await add_via_hub(request, endpoint, model, connection, alias=alias, suite=suite)
    return json_response(reply)


async def add_via_hub(
    request: Request,
    endpoint: str,
    model: str,
    connection: str,
    *,
    alias: str | None = None,
    suite: SuiteChoice = "full",
) -> dict[str, Any]:
    """Add `model` to the hub behind `endpoint` through `connection`, then queue it for onboarding.

    The reply of `POST /api/hubs/{endpoint}/add`: `plan`, `sent`, and the
    queued `onboarding` item (the one already waiting, when there is one;
    None, with `on_bench`, when the bench has it already), so a second add
    changes nothing. Refusals are raised as the admin API's errors.
    """
    svc = services(request)
    target = await _hub_endpoint(svc, endpoint)
    async with admin_client() as http:
        try:
            added = await hub_for(target, svc.keys, http, svc.hub_refusals).add(model, connection)
        except HubError as exc:
            raise _refusal(exc) from None
    served = added.plan.served_id
    reply: dict[str, Any] = {
        "plan": plan_json(added.plan),
        "sent": [{"method": r.method, "path": r.path, "body": r.body} for r in added.sent],
        "onboarding": None,
        "on_bench": None,
    }
    for waiting in await svc.db.onboarding.waiting():
        if (waiting.endpoint, waiting.served_id) == (endpoint, served):
            reply["onboarding"] = plain(waiting)
            return reply
    for on_bench in await svc.db.models.list():
        if (on_bench.endpoint, on_bench.served_id) == (endpoint, served):
            reply["on_bench"] = on_bench.alias
            return reply
    item = NewItem(endpoint=endpoint, served_id=served, alias=check_alias(alias or default_alias(served)))
    queued = await svc.onboarding.enqueue(
        [item], suite=suite, probe_deadline_s=PROBE_DEADLINE_S, asked_by=caller_of(request)
    )
    reply["onboarding"] = plain(queued[0])
    return reply
