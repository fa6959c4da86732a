"""Judge: one panel's seats side by side, each judged useful or not and one chosen best, from the keyboard.

Judging seat by seat from a dialog is slow enough that verdicts go unowed;
here a person reads every answer of a panel at once and moves through the
panels still owed a verdict (`GET /api/panels?owed=true`). The page only
reads; static/judge.js draws the panel, fetches each answer as sanitized
HTML (`/gateway/seats/{call}/answer`) and records through `POST /api/verdicts`.
"Best answer" is a pairwise verdict: the best seat's verdict names the other
answered seats in `better_than`, which feeds the per-shape ranking.
"""

from __future__ import annotations

from fastapi import APIRouter, Request
from starlette.responses import HTMLResponse

from panelgate.web.frame import render

router = APIRouter(include_in_schema=False)
SHORTCUTS = (
    ("1–9", "go to seat 1–9"),
    ("u", "the seat's answer is useful"),
    ("n", "the seat's answer is not useful"),
    ("b", "the seat's answer is the best of the panel"),
    ("j or →", "next panel"),
    ("k or ←", "previous panel"),
    ("?", "show or hide these keys"),
)
OWED_READ = 200
"""Panels owed a verdict read at once (the API's most). The list is read again at its end: the panels
judged meanwhile have left it, so the next ones, and any asked since, come in."""


@router.get("/judge")
async def judge_page(request: Request, panel: str = "") -> HTMLResponse:
    """`?panel=<id>` opens that panel first, owed or not (a judged one can be judged again)."""
    return await render(request, "judge", panel=panel.strip(), shortcuts=SHORTCUTS, owed_read=OWED_READ)
