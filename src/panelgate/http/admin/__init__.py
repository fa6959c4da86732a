"""The admin JSON API under `/api/`: what the CLI and the dashboard edit the bench with.

One set of rules: handlers only read the body and pass it to the store, which
validates and writes the change with its audit row; refusals come back as
`{"error": {"message", "field"}}` with 400, 404 or 409 (the OpenAPI document
says so for every route, see `schemas.py`).
"""

from fastapi import APIRouter, Depends

from panelgate.http.admin import (
    activity,
    alerts,
    audit,
    catalog,
    collections,
    config,
    connect,
    discover,
    endpoints,
    gateway_settings,
    hubs,
    keys,
    limits,
    model_health,
    models,
    onboarding,
    panels,
    record,
    routes,
    scheduler,
    status,
    suite,
    suite_import,
    suite_mine,
    suite_seed,
    usage,
)
from panelgate.http.admin.schemas import REFUSALS
from panelgate.http.admin.shapes import storable_parameters

router = APIRouter(prefix="/api", responses=REFUSALS, dependencies=[Depends(storable_parameters)])
for module in (
    status,
    endpoints,
    models,
    collections,
    gateway_settings,
    keys,
    limits,
    config,
    panels,
    record,
    routes,
    usage,
    activity,
    audit,
    scheduler,
    model_health,
    catalog,
    alerts,
    onboarding,
    hubs,
    discover,
    connect,
    suite,
    suite_seed,
    suite_mine,
    suite_import,
):
    router.include_router(module.router)
