"""Gateway: the recent panels, live, with the verdicts they still owe; and a seat's answer as HTML.

The card is drawn and kept live by static/gateway-card.js from
`GET /api/panels`; its seat dialog records a verdict with `POST /api/verdicts`,
and every panel opens in the Judge view (`/judge?panel=…`), where a person
judges all of its seats on one screen. The one piece of HTML either page
takes from the server after loading is a seat's answer, which `seat_answer`
(read by `http/dashboard/gateway.py`) renders here from markdown and
sanitizes (web/answer_html.py) before it leaves: answers are written by
models and treated as hostile text.
"""

from __future__ import annotations

from html import escape

from fastapi import APIRouter, Request
from starlette.responses import HTMLResponse

from panelgate.http.dashboard.gateway import SeatAnswer, read_seat_answer
from panelgate.http.services import services
from panelgate.web.frame import PAGE_HEADERS, render

router = APIRouter(include_in_schema=False)
SHOWN = 30
"""Panels on the card: enough to see what just happened, few enough to poll every two seconds."""


@router.get("/gateway")
async def gateway_page(request: Request) -> HTMLResponse:
    return await render(request, "gateway", shown=SHOWN)


@router.get("/gateway/seats/{call}/answer")
async def seat_answer(request: Request, call: str) -> HTMLResponse:
    """A seat's answer as a sanitized HTML fragment, for the seat dialog and the Judge view to insert."""
    seat = await read_seat_answer(services(request), call)
    if seat is None:
        missing = f'<p class="muted">No seat with the call id <code>{escape(call)}</code> is recorded.</p>'
        return HTMLResponse(missing, status_code=404, headers=PAGE_HEADERS)
    return HTMLResponse(answer_fragment(seat), headers=PAGE_HEADERS)


def answer_fragment(seat: SeatAnswer) -> str:
    from panelgate.web.answer_html import answer_html  # markdown-it loaded by the first answer shown

    failed = f'<p class="seat-error">The seat failed: {escape(seat.error)}</p>' if seat.error else ""
    if seat.answer.strip():
        return failed + answer_html(seat.answer)
    return failed or '<p class="muted">The model answered with nothing.</p>'
