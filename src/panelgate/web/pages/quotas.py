"""Quotas: per connection, what each provider says is left and when it resets, the limits set by hand,
what was sent in the last 24 hours and this month, and which models are resting.

A person on free tiers opens this page to see why a model was skipped or
made to wait, and whether today's calls will last. It reads what
`/api/limits` and `/api/usage` read (the stated limits, the hand-set rules
with what was spent under them, the usage ledger), through
`http/dashboard/quotas.py`; setting and removing a limit go through
`/api/limits`. A model is *resting* when its provider told it to wait (a
stated retry time) or a stated window is used up until its reset: pacing
holds every call to it until then.
"""

from __future__ import annotations

from datetime import UTC, datetime

from fastapi import APIRouter, Request
from starlette.responses import HTMLResponse

from panelgate.core.rate_windows import MEASURES, WINDOWS
from panelgate.http.dashboard.quotas import MEASURE_WORDS, TOKEN_MEASURES, read_quotas
from panelgate.http.services import services
from panelgate.web.frame import render

router = APIRouter(include_in_schema=False)


@router.get("/quotas")
async def quotas_page(request: Request) -> HTMLResponse:
    connections = await read_quotas(services(request), datetime.now(UTC))
    return await render(
        request,
        "quotas",
        connections=connections,
        resting=[(c.endpoint.name, m) for c in connections for m in c.resting],
        measures=MEASURES,
        windows=WINDOWS,
        token_measures=TOKEN_MEASURES,
        measure_words=MEASURE_WORDS,
    )
