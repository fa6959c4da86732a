"""Sign-ins through the admin API: the providers, starting and following a sign-in, the signed-in endpoints.

The dashboard's Connect button and `panelgate connect` drive these. A reply
never carries a token, a verifier or a device code: only what the person
must open or type (the provider's URL, the user code) and how it went.
The browser's way back from the provider is `connect_callback.py`, outside
`/api/`.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, Literal

from fastapi import APIRouter, Request
from pydantic import BaseModel, Field
from starlette.responses import Response

from panelgate.connect import Ask
from panelgate.core.naming import COLLECTION_RE
from panelgate.http.admin.schemas import NON_BLANK, Body
from panelgate.http.admin.shapes import flag, only_fields, text_field
from panelgate.http.body import json_body, read_json_object
from panelgate.http.panel_route import caller_of
from panelgate.http.responses import json_response
from panelgate.http.services import services
from panelgate.store.signins import SigninRecord

router = APIRouter()
SigninStatus = Literal["pending", "connected", "failed", "expired"]


class ProviderShown(BaseModel):
    name: str
    label: str
    flow: Literal["key", "oauth", "device", "local"]
    device: bool = Field(description="a device sign-in is offered, for a browser on another machine")
    client_id: Literal["built-in", "yours", "needed"] | None = Field(
        description="whose client id the sign-in uses; `needed`: send one (`client_id`) or set it in the "
        "providers file; null: the flow takes none"
    )
    connected: list[str] = Field(description="the endpoints signed in to it")


class ProviderList(BaseModel):
    providers: list[ProviderShown]


class NewSignin(Body):
    """`POST /api/connect/{provider}`: where the sign-in goes, and how."""

    endpoint: str | None = Field(
        default=None,
        pattern=COLLECTION_RE.pattern,
        description="the endpoint to make or sign in again; null: the provider's name (or `<name>-2`...)",
    )
    device: bool | None = Field(default=None, description="sign in from a browser on another machine")
    client_id: str | None = Field(
        default=None, pattern=NON_BLANK, description="your own app's public client id"
    )


class StartedSignin(BaseModel):
    signin: str
    provider: str
    flow: str
    endpoint: str
    status: SigninStatus
    url: str | None = Field(default=None, description="open this in a browser (key and OAuth flows)")
    user_code: str | None = Field(default=None, description="type this at `verification_uri` (device)")
    verification_uri: str | None = None
    expires_at: datetime


class SigninShown(BaseModel):
    signin: str
    provider: str
    flow: str
    endpoint: str
    status: SigninStatus
    error: str | None


class SignedInEndpoint(BaseModel):
    endpoint: str
    provider: str
    client_id: Literal["built-in", "yours"]
    expires_at: datetime | None
    refreshes: bool
    renewed_at: datetime | None
    renewal_error: str | None


class SignedInList(BaseModel):
    endpoints: list[SignedInEndpoint]


class Forgotten(BaseModel):
    ok: Literal[True]
    forgotten: str = Field(description="the endpoint whose sign-in record was dropped (the endpoint stays)")


def gateway_base(request: Request) -> str:
    """The address the browser comes back to: the public URL when set, else the one it asked."""
    public = services(request).settings.public_url
    return (public or str(request.base_url)).rstrip("/")


@router.get("/connect/providers", response_model=ProviderList)
async def list_providers(request: Request) -> Response:
    svc = services(request)
    connected: dict[str, list[str]] = {}
    for grant in await svc.db.grants.list():
        connected.setdefault(grant.provider, []).append(grant.endpoint)
    shown = [
        {
            "name": p.name,
            "label": p.label,
            "flow": p.flow,
            "device": p.has_device_flow,
            "client_id": p.client_state(),
            "connected": connected.get(p.name, []),
        }
        for p in svc.connect.providers.values()
    ]
    return json_response({"providers": shown})


@router.post("/connect/{provider}", response_model=StartedSignin, openapi_extra=json_body(NewSignin))
async def start_signin(request: Request, provider: str) -> Response:
    body = only_fields(await read_json_object(request, 10_000), set(NewSignin.model_fields))
    ask = Ask(
        endpoint=text_field(body, "endpoint", required=False),
        device=flag(body, "device"),
        client_id=text_field(body, "client_id", required=False),
    )
    started = await services(request).connect.start(provider, ask, gateway_base(request))
    shown: dict[str, Any] = {
        **_signin_fields(started.signin),
        "expires_at": started.signin.expires_at.isoformat(),
    }
    if started.url is not None:
        shown["url"] = started.url
    if started.signin.user_code is not None:
        shown |= {"user_code": started.signin.user_code, "verification_uri": started.signin.verification_uri}
    return json_response(shown)


@router.get("/connect/signins/{signin}", response_model=SigninShown)
async def signin_status(request: Request, signin: str) -> Response:
    found = await services(request).connect.status(signin)
    return json_response({**_signin_fields(found), "error": found.error})


@router.get("/connect/endpoints", response_model=SignedInList)
async def signed_in_endpoints(request: Request) -> Response:
    grants = await services(request).db.grants.list()
    shown = [
        {
            "endpoint": g.endpoint,
            "provider": g.provider,
            "client_id": g.client_from,
            "expires_at": g.expires_at.isoformat() if g.expires_at else None,
            "refreshes": g.refreshes,
            "renewed_at": g.renewed_at.isoformat() if g.renewed_at else None,
            "renewal_error": g.renewal_error,
        }
        for g in grants
    ]
    return json_response({"endpoints": shown})


@router.delete("/connect/endpoints/{endpoint}", response_model=Forgotten)
async def forget_signin(request: Request, endpoint: str) -> Response:
    await services(request).connect.forget(endpoint, caller_of(request))
    return json_response({"ok": True, "forgotten": endpoint})


def _signin_fields(signin: SigninRecord) -> dict[str, Any]:
    return {
        "signin": signin.id,
        "provider": signin.provider,
        "flow": signin.flow,
        "endpoint": signin.endpoint,
        "status": signin.status,
    }
