"""`/record`: what the verdicts say about each model, per shape of work, and whom the explorer seats try next.

A person opens it to see which model the record trusts on each shape and
how sure it is: each model's estimated share of useful answers with its
90 % credible interval, drawn as a dot on a band, the verdicts behind it
and, when "better than" verdicts were given, its pairwise strength. Below:
verdicts per day (is the record still being fed?) and, per shape, the order
the explorer rule would seat candidates on the next panel, with the reason
for each. Last, the newest verdicts one by one with who gave them and from
where (`claude-code`), filtered by source, so a person can tell their own
verdicts from an agent's.

The page draws `http/admin/record.read_record`, the reading `GET /api/record`
returns; static/record.js polls that route every 2 s while the tab is
visible and redraws, so a new panel or verdict shows without a reload.
"""

from __future__ import annotations

from datetime import UTC, datetime

from fastapi import APIRouter, Request
from starlette.responses import HTMLResponse

from panelgate.core.errors import GatewayError
from panelgate.core.shapes import checked_shape
from panelgate.http.admin.record import checked_source, find_collection, read_record
from panelgate.http.services import Services
from panelgate.web.estimate_svg import estimate_bar, hundredths, percent, timeline_chart
from panelgate.web.frame import render

router = APIRouter(include_in_schema=False)


def seats_line(seats: int, floor: int, rule: str, collection: str | None) -> str:
    """The sentence over a shape's candidates (static/record.js writes the same)."""
    where = f" of bench/{collection}" if collection else ""
    if seats == 0:
        return (
            f"A panel{where} has no explorer seat now (the gateway limits on Collections set how many); "
            "this is the order they would be filled in."
        )
    said = (
        f"{seats} explorer seat{'' if seats == 1 else 's'} a panel{where}; "
        f"every candidate sits at least once in {floor} panels."
    )
    return said + (" The gateway seats them stalest first." if rule == "stalest" else "")


@router.get("/record")
async def record_page(
    request: Request, collection: str = "", shape: str = "", source: str = ""
) -> HTMLResponse:
    """`?collection=` narrows the record to one collection's verdicts, `?shape=` to one shape,
    `?source=` the newest verdicts to one source; an unknown one shows the whole record, saying so."""
    services: Services = request.app.state.services
    collections = (await services.db.bench.snapshot()).collections
    note = ""
    try:
        asked, asked_shape = find_collection(collections, collection), checked_shape(shape)
        asked_source = checked_source(source)
    except GatewayError as refused:
        said = refused.message
        asked, asked_shape, asked_source = None, None, None
        note = f"{said[:1].upper()}{said[1:]}. Showing the whole record."
    today = datetime.now(UTC).date()
    record = await read_record(services.db, asked, asked_shape, today, asked_source)
    return await render(
        request,
        "record",
        record=record,
        collections=sorted(collections),
        note=note,
        timeline=timeline_chart(record["timeline"]["days"]),
        estimate_bar=estimate_bar,
        percent=percent,
        hundredths=hundredths,
        seats_line=seats_line,
    )
