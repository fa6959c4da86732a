"""`GET /metrics`: this process's figures (or, under `--workers`, its server's) in Prometheus' format.

Each replica of a cluster answers with its own figures: Prometheus scrapes
every replica and sums them. The access layer guards it like the admin API
(the admin token or the login cookie) unless `PANELGATE_METRICS_PUBLIC=1`.
Prices for the cost figures are read once per scrape; when the database
cannot be read the figures are still served, without cost, since a scrape
is wanted most when something is wrong. The scrape's code is imported by
the first one (`observe/__init__.py` says why).
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from fastapi import APIRouter, Request
from starlette.responses import Response

from panelgate.http.access.paths import METRICS_PATH
from panelgate.http.services import Services, services

if TYPE_CHECKING:
    from panelgate.observe.exposition import Prices

log = logging.getLogger(__name__)

router = APIRouter()


@router.get(METRICS_PATH, include_in_schema=False)
async def metrics(request: Request) -> Response:
    from panelgate.observe.exposition import CONTENT_TYPE, scrape  # the first scrape loads it

    held = services(request)
    return Response(scrape(held.meter, await _prices(held)), media_type=CONTENT_TYPE)


async def _prices(held: Services) -> Prices:
    """Each model's price by (endpoint, alias), the labels the token counters carry."""
    try:
        by_place = await held.catalog.prices()
        models = await held.db.models.list(include_retired=True)
    except Exception:
        log.warning("could not read the prices for /metrics; figures served without cost", exc_info=True)
        return {}
    prices = {}
    for model in models:
        price = by_place.get((model.endpoint, model.served_id))
        if price is not None:
            prices[(model.endpoint, model.alias)] = (price.input, price.output)
    return prices
