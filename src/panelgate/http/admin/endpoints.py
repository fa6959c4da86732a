"""Endpoints: list, add (after a listing test), change, remove, make default.

A new endpoint is saved only after `<base>/models` answered with the key it
will use, so a typo in the URL or key is caught when it is typed, not at the
first panel. The key itself goes to the key file (0600), never the database.
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request
from starlette.responses import Response

from panelgate.core.errors import BadRequest
from panelgate.http.admin.shapes import only_fields, plain, text_field
from panelgate.http.body import read_json_object
from panelgate.http.panel_route import caller_of
from panelgate.http.responses import json_response
from panelgate.http.services import Services, services
from panelgate.upstream import UpstreamError

router = APIRouter()
ADD_FIELDS = {"name", "base_url", "kind", "api", "key_name", "key", "headers", "default", "test"}


def _endpoint_json(svc: Services, endpoint: Any) -> dict[str, Any]:
    shown: dict[str, Any] = plain(endpoint)
    shown["key"] = svc.keys.source(endpoint.key_name) if endpoint.key_name else None
    return shown


@router.get("/endpoints")
async def list_endpoints(request: Request) -> Response:
    svc = services(request)
    return json_response({"endpoints": [_endpoint_json(svc, e) for e in await svc.db.endpoints.list()]})


async def _listing_test(svc: Services, base_url: str, key: str | None, headers: dict[str, str]) -> list[str]:
    try:
        listed = await svc.upstream.list_models(base_url, key=key, headers=headers)
    except UpstreamError as exc:
        raise BadRequest(
            f"{base_url}/models did not answer as a model listing ({exc.kind}: {exc.message}); "
            "check the base URL (usually ending in /v1) and the key",
            param="base_url",
        ) from None
    return sorted(str(m.get("id")) for m in listed if isinstance(m, dict) and m.get("id"))


@router.post("/endpoints", status_code=201)
async def add_endpoint(request: Request) -> Response:
    svc = services(request)
    body = only_fields(await read_json_object(request, 1_000_000), ADD_FIELDS)
    name = text_field(body, "name")
    base_url = str(text_field(body, "base_url")).rstrip("/")
    headers = body.get("headers") or {}
    if not isinstance(headers, dict) or not all(isinstance(v, str) for v in headers.values()):
        raise BadRequest("`headers` must be an object of header names to strings", param="headers")
    key = body.get("key")
    if key is not None and (not isinstance(key, str) or not key.strip()):
        raise BadRequest("`key` must be a non-empty string when given", param="key")
    key_name = text_field(body, "key_name", required=False) or (name if key else None)
    listed = await _listing_test(
        svc, base_url, key or (svc.keys.get(key_name) if key_name else None), headers
    )
    if body.get("test"):
        return json_response({"ok": True, "tested": True, "listed": listed}, 200)
    endpoint = await svc.db.endpoints.add(
        str(name),
        base_url,
        kind=body.get("kind") or "provider",
        api=body.get("api") or "chat",
        key_name=key_name,
        headers=headers,
        make_default=bool(body.get("default")),
        actor=caller_of(request),
    )
    if key and key_name:
        svc.keys.set(key_name, key.strip())
    return json_response({"endpoint": _endpoint_json(svc, endpoint), "listed": listed}, 201)


@router.delete("/endpoints/{name}")
async def remove_endpoint(request: Request, name: str) -> Response:
    await services(request).db.endpoints.remove(name, actor=caller_of(request))
    return json_response({"ok": True, "removed": name})


@router.post("/endpoints/{name}/default")
async def make_default(request: Request, name: str) -> Response:
    svc = services(request)
    await svc.db.endpoints.set_default(name, actor=caller_of(request))
    return json_response({"ok": True, "default": name})
