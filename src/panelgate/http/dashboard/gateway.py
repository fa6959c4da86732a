"""What the Gateway page and the Judge view take from the server after loading: a seat's answer.

Only its text and its error leave here; the page renders them as sanitized HTML.
"""

from __future__ import annotations

from dataclasses import dataclass

from panelgate.http.services import Services


@dataclass(frozen=True)
class SeatAnswer:
    answer: str
    error: str
    """Why the seat failed; empty when it answered."""


async def read_seat_answer(services: Services, call: str) -> SeatAnswer | None:
    """The answer of the seat with the call id `call`; None when no such seat is recorded."""
    seat = await services.db.panels.seat(call)
    return None if seat is None else SeatAnswer(seat.answer, seat.error)
