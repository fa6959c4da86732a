"""Endpoints: list, add (after a listing test), change key, hub and admin key, remove, make default,
mark preferred, what each serves.

A new endpoint, or a new key for one, is saved only after `<base>/models`
answered with the key it will use, so a typo in the URL or key is caught
when it is typed, not at the first panel. The key itself goes to the key
file (0600), never the database, the audit log or a reply. A hub's admin
key (`admin_key`) is kept the same way, as `<key name>-admin`, and so is each
extra header's value, as `<endpoint>-header-<header name, lower-cased>`:
replies show a header's name, its key name and where it is kept.
"""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Request
from pydantic import BaseModel, Field
from starlette.responses import Response

from panelgate.core.errors import BadRequest, NotFound
from panelgate.core.naming import COLLECTION_RE
from panelgate.http.admin.models import default_alias
from panelgate.http.admin.schemas import NON_BLANK, Body, Removed
from panelgate.http.admin.shapes import flag, only_fields, plain, text_field
from panelgate.http.body import json_body, read_json_object
from panelgate.http.panel_route import caller_of
from panelgate.http.responses import json_response
from panelgate.http.services import Services, services
from panelgate.store.header_keys import check_header_value, header_key_name, keep_values
from panelgate.store.records import EndpointApi, EndpointHub, EndpointKind, EndpointRecord
from panelgate.store.rules import (
    HEADER_NAME_RULE,
    HUBS,
    KEY_NAME_RULE,
    check_base_url,
    check_choice,
    check_headers,
)
from panelgate.upstream import UpstreamError
from panelgate.upstream.keys import env_name

router = APIRouter()
HeaderName = Annotated[str, Field(pattern=HEADER_NAME_RULE.pattern)]


class NewEndpoint(Body):
    """`POST /api/endpoints`: where models are served from, and the key to list them with."""

    name: str = Field(pattern=COLLECTION_RE.pattern)
    base_url: str = Field(
        pattern=r"^\s*https?://", description="http(s), usually ending in /v1; no credentials or query"
    )
    kind: EndpointKind | None = Field(default=None, description="null: provider")
    api: EndpointApi | None = Field(default=None, description="null: chat")
    key_name: str | None = Field(
        default=None,
        pattern=KEY_NAME_RULE.pattern,
        description="the name the key is kept under; null: the endpoint's name when `key` is given",
    )
    key: str | None = Field(default=None, pattern=NON_BLANK, description="kept in the key file, never shown")
    headers: dict[HeaderName, str] | None = Field(
        default=None,
        description="sent with every call; each value is kept in the key file as "
        "`<name>-header-<header name, lower-cased>`, never shown",
    )
    default: bool | None = Field(default=None, description="make it the default endpoint")
    preferred: bool | None = Field(
        default=None, description="its models sit first among explorer candidates the record ties"
    )
    test: bool | None = Field(default=None, description="only list its models; save nothing")
    hub: EndpointHub | None = Field(default=None, description="the hub program behind it; null: none")
    admin_key: str | None = Field(
        default=None,
        pattern=NON_BLANK,
        description="a hub's admin key, kept as `<key name>-admin` in the key file, never shown",
    )


ADD_FIELDS = set(NewEndpoint.model_fields)


class HeaderShown(BaseModel):
    """An extra header as replies show it: where its value is kept, never the value."""

    key_name: str = Field(description="the name its value is kept under")
    key: Literal["env", "file"] | None = Field(description="where the value is kept; null: nowhere yet")


class EndpointShown(BaseModel):
    name: str
    base_url: str
    kind: EndpointKind
    api: EndpointApi
    key_name: str | None
    headers: dict[str, HeaderShown]
    is_default: bool
    created_at: datetime
    updated_at: datetime
    hub: EndpointHub | None
    admin_key_name: str | None
    preferred: bool = Field(description="its models sit first among explorer candidates the record ties")
    key: Literal["env", "file"] | None = Field(description="where its key is kept (never the key itself)")
    admin_key: Literal["env", "file"] | None = Field(description="where its hub admin key is kept")


class EndpointList(BaseModel):
    endpoints: list[EndpointShown]


class AddedEndpoint(BaseModel):
    endpoint: EndpointShown
    listed: list[str] = Field(description="the model ids the endpoint listed")


class TestedEndpoint(BaseModel):
    ok: Literal[True]
    tested: Literal[True]
    listed: list[str]


class KeyChange(Body):
    """`PUT /api/endpoints/{name}/key`: the endpoint's new key, tested by listing its models first."""

    key: str | None = Field(pattern=NON_BLANK, description="kept in the key file, never shown; null: no key")


class HubChange(Body):
    """`PUT /api/endpoints/{name}/hub`: the hub program behind the endpoint, and its admin key."""

    hub: EndpointHub | None = Field(description="null: not a hub")
    admin_key: str | None = Field(
        default=None, pattern=NON_BLANK, description="left out: unchanged; null: none; never shown"
    )


class PreferredChange(Body):
    """`PUT /api/endpoints/{name}/preferred`: whether its models break explorer ties."""

    preferred: bool


class ServedModel(BaseModel):
    served_id: str
    alias: str = Field(description="the alias it gets on the bench when none is given")
    on_bench: list[str] = Field(description="aliases on the bench serving this id through the endpoint")
    retired: list[str] = Field(description="retired aliases that served it")


class ServedList(BaseModel):
    endpoint: str
    served: list[ServedModel] = Field(description="every id the endpoint's listing holds")
    unlisted: list[str] = Field(description="aliases on the bench whose served id the listing lacks")


class DefaultEndpoint(BaseModel):
    ok: Literal[True]
    default: str


def _endpoint_json(svc: Services, endpoint: EndpointRecord) -> dict[str, Any]:
    shown: dict[str, Any] = plain(endpoint)
    shown["headers"] = {
        name: {"key_name": kept, "key": svc.keys.source(kept)}
        for name, kept in shown.pop("header_keys").items()
    }
    shown["key"] = svc.keys.source(endpoint.key_name) if endpoint.key_name else None
    admin = endpoint.admin_key_name
    shown["admin_key"] = svc.keys.source(admin) if admin else None
    return shown


@router.get("/endpoints", response_model=EndpointList)
async def list_endpoints(request: Request) -> Response:
    svc = services(request)
    return json_response({"endpoints": [_endpoint_json(svc, e) for e in await svc.db.endpoints.list()]})


async def _endpoint(svc: Services, name: str) -> EndpointRecord:
    endpoint = await svc.db.endpoints.get(name)
    if endpoint is None:
        known = ", ".join(e.name for e in await svc.db.endpoints.list()) or "none yet; add one first"
        raise NotFound(f"no endpoint named `{name}`; endpoints: {known}", param="name")
    return endpoint


async def _listing_test(
    svc: Services,
    base_url: str,
    key: str | None,
    headers: dict[str, str] | None = None,
    *,
    key_name: str | None = None,
    header_keys: dict[str, str] | None = None,
) -> list[str]:
    """The ids `<base_url>/models` lists with `key` and `headers` as given, or as kept (`key_name`,
    `header_keys`); or a refusal."""
    try:
        listed = await svc.upstream.list_models(
            base_url, key=key, key_name=key_name, headers=headers, header_keys=header_keys
        )
    except UpstreamError as exc:
        raise BadRequest(
            f"{base_url}/models did not answer as a model listing ({exc.kind}: {exc.message}); "
            "check the base URL (usually ending in /v1) and the key",
            param="base_url",
        ) from None
    return sorted(str(m.get("id")) for m in listed if isinstance(m, dict) and m.get("id"))


@router.post(
    "/endpoints",
    status_code=201,
    response_model=AddedEndpoint,
    responses={200: {"model": TestedEndpoint, "description": "Tested only (`test`): nothing saved"}},
    openapi_extra=json_body(NewEndpoint),
)
async def add_endpoint(request: Request) -> Response:
    svc = services(request)
    body = only_fields(await read_json_object(request, 1_000_000), ADD_FIELDS)
    name = text_field(body, "name")
    # the store's rules for the URL and headers, before the listing test sends them anywhere
    base_url = check_base_url(text_field(body, "base_url"))
    headers = body.get("headers") or {}
    if not isinstance(headers, dict) or not all(isinstance(v, str) for v in headers.values()):
        raise BadRequest("`headers` must be an object of header names to strings", param="headers")
    headers = {header: check_header_value(header, value) for header, value in check_headers(headers).items()}
    key = body.get("key")
    if key is not None and (not isinstance(key, str) or not key.strip()):
        raise BadRequest("`key` must be a non-empty string when given", param="key")
    key_name = text_field(body, "key_name", required=False) or (name if key else None)
    hub = _hub(body)
    admin_key = _secret(body, "admin_key")
    admin_key_name = f"{key_name or name}-admin" if admin_key else None
    test_only, make_default = flag(body, "test"), flag(body, "default")
    listed = await _listing_test(
        svc, base_url, key or (svc.keys.get(key_name) if key_name else None), headers
    )
    if test_only:
        return json_response({"ok": True, "tested": True, "listed": listed}, 200)
    endpoint = await svc.db.endpoints.add(
        str(name),
        base_url,
        kind=body.get("kind") or "provider",
        api=body.get("api") or "chat",
        key_name=key_name,
        header_keys={header: header_key_name(str(name), header) for header in headers},
        make_default=make_default,
        hub=hub,
        admin_key_name=admin_key_name,
        preferred=flag(body, "preferred"),
        actor=caller_of(request),
    )
    if key and key_name:
        svc.keys.set(key_name, key.strip())
    if admin_key and admin_key_name:
        svc.keys.set(admin_key_name, admin_key)
    keep_values(endpoint.name, headers, svc.keys.set)
    return json_response({"endpoint": _endpoint_json(svc, endpoint), "listed": listed}, 201)


def _hub(body: dict[str, Any]) -> str | None:
    value = body.get("hub")
    return None if value is None else check_choice(value, HUBS, "hub")


def _secret(body: dict[str, Any], field: str) -> str | None:
    """A secret field: one line of text, stripped; None when left out or null."""
    value = body.get(field)
    if value is None:
        return None
    if not isinstance(value, str) or not value.strip():
        raise BadRequest(f"`{field}` must be a non-empty string, or null for none", param=field)
    if any(ord(c) < 32 or ord(c) == 127 for c in value.strip()):
        raise BadRequest(f"`{field}` must be one line of text without control characters", param=field)
    return value.strip()


@router.put("/endpoints/{name}/hub", response_model=EndpointShown, openapi_extra=json_body(HubChange))
async def change_hub(request: Request, name: str) -> Response:
    """Say which hub program serves behind the endpoint, and keep (or clear) its admin key.

    The admin key is kept as `<key name>-admin` (the endpoint's name when it
    has no key name); it is not tried here: `GET /api/hubs` shows whether
    the hub takes it.
    """
    svc = services(request)
    body = only_fields(await read_json_object(request, 100_000), set(HubChange.model_fields))
    if "hub" not in body:
        raise BadRequest("`hub` is required: litellm, openwebui, cliproxy, or null for none", param="hub")
    hub, changes_key = _hub(body), "admin_key" in body
    admin_key = _secret(body, "admin_key")
    endpoint = await _endpoint(svc, name)
    admin_key_name = endpoint.admin_key_name or f"{endpoint.key_name or name}-admin"
    if changes_key and svc.keys.source(admin_key_name) == "env":
        raise BadRequest(
            f"the admin key of `{name}` comes from {env_name(admin_key_name)} in the server's "
            "environment, which wins over a key saved here; change it there",
            param="admin_key",
        )
    actor = caller_of(request)
    endpoint = await svc.db.endpoints.update(name, {"hub": hub}, actor=actor)
    if changes_key:
        if admin_key is None:
            svc.keys.remove(admin_key_name)
        else:
            svc.keys.set(admin_key_name, admin_key)
        endpoint = await svc.db.endpoints.key_changed(
            name,
            None if admin_key is None else admin_key_name,
            cleared=admin_key is None,
            actor=actor,
            which="admin_key_name",
        )
    return json_response(_endpoint_json(svc, endpoint))


@router.put(
    "/endpoints/{name}/preferred", response_model=EndpointShown, openapi_extra=json_body(PreferredChange)
)
async def change_preferred(request: Request, name: str) -> Response:
    """Mark the endpoint preferred (or not): its models go first among equally good explorer candidates."""
    svc = services(request)
    body = only_fields(await read_json_object(request, 1_000), {"preferred"})
    if not isinstance(body.get("preferred"), bool):
        raise BadRequest("`preferred` is required: true or false", param="preferred")
    endpoint = await svc.db.endpoints.update(name, {"preferred": body["preferred"]}, caller_of(request))
    return json_response(_endpoint_json(svc, endpoint))


@router.delete("/endpoints/{name}", response_model=Removed)
async def remove_endpoint(request: Request, name: str) -> Response:
    await services(request).db.endpoints.remove(name, actor=caller_of(request))
    return json_response({"ok": True, "removed": name})


@router.post("/endpoints/{name}/default", response_model=DefaultEndpoint)
async def make_default(request: Request, name: str) -> Response:
    svc = services(request)
    await svc.db.endpoints.set_default(name, actor=caller_of(request))
    return json_response({"ok": True, "default": name})


def _new_key(body: dict[str, Any]) -> str | None:
    if "key" not in body:
        raise BadRequest(
            "`key` is required: the new key, or null to leave the endpoint without one", param="key"
        )
    key = body["key"]
    if key is None:
        return None
    if not isinstance(key, str) or not key.strip():
        raise BadRequest("`key` must be a non-empty string, or null for no key", param="key")
    if any(ord(c) < 32 or ord(c) == 127 for c in key.strip()):
        raise BadRequest("`key` must be one line of text without control characters", param="key")
    return key.strip()


@router.put("/endpoints/{name}/key", response_model=AddedEndpoint, openapi_extra=json_body(KeyChange))
async def change_key(request: Request, name: str) -> Response:
    """Test the new key (or none) against the endpoint's listing, then keep it in the key file.

    The endpoint's key name stays (its own name when it had none); every
    endpoint sharing that name uses the new key. A key set in the server's
    environment wins over the file, so changing it here would change nothing.
    A sign-in the endpoint came from ends: its token is no longer the key.
    """
    svc = services(request)
    key = _new_key(only_fields(await read_json_object(request, 100_000), {"key"}))
    endpoint = await _endpoint(svc, name)
    key_name = endpoint.key_name or name
    if svc.keys.source(key_name) == "env":
        raise BadRequest(
            f"the key of `{name}` comes from {env_name(key_name)} in the server's environment, which wins "
            "over a key saved here; change or unset it there and restart the server",
            param="key",
        )
    listed = await _listing_test(svc, endpoint.base_url, key, header_keys=endpoint.header_keys)
    if key is None:
        svc.keys.remove(key_name)
    else:
        svc.keys.set(key_name, key)
    changed = await svc.db.endpoints.key_changed(
        name, key_name, cleared=key is None, actor=caller_of(request)
    )
    await svc.connect.key_typed(name, caller_of(request))
    return json_response({"endpoint": _endpoint_json(svc, changed), "listed": listed})


@router.get("/endpoints/{name}/served", response_model=ServedList)
async def served_models(request: Request, name: str) -> Response:
    """The endpoint's listing now, each id with the aliases that already serve it."""
    svc = services(request)
    endpoint = await _endpoint(svc, name)
    listed = await _listing_test(
        svc, endpoint.base_url, None, key_name=endpoint.key_name, header_keys=endpoint.header_keys
    )
    through = [
        m
        for m in await svc.db.models.list(include_retired=True)
        if m.endpoint == name and not m.endpoint_gone
    ]
    listed_ids = set(listed)
    served = [
        {
            "served_id": served_id,
            "alias": default_alias(served_id),
            "on_bench": [m.alias for m in through if m.served_id == served_id and not m.retired],
            "retired": [m.alias for m in through if m.served_id == served_id and m.retired],
        }
        for served_id in listed
    ]
    unlisted = sorted(m.alias for m in through if not m.retired and m.served_id not in listed_ids)
    return json_response({"endpoint": name, "served": served, "unlisted": unlisted})
