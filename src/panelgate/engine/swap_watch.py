"""A model that keeps answering as another: its action-needed item, raised and cleared as seats end.

A swap now and then is worth a note on the seat (`served_as`), not a
person's time; a model that keeps answering as another one is: its
evidence is being earned by other weights. The rule: the alert
`swapped:<alias>` holds while the model's newest answered seat named another
model and at least `SWAPPED` of its last `LAST` answered seats did; one
answer as itself clears it. The gateway setting `swap_alerts` turns the
alert off (seats keep `served_as` either way).

It is checked after a panel's reply has gone, never on the caller's wait,
and only for models that answered as another in that panel or that have an
open alert, as this process last read them (re-read at most every
`REREAD_S`, so another process's alert is cleared here too): a panel
without a swap costs one set lookup per seat.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Mapping, Sequence
from datetime import UTC, datetime

from panelgate.core.types import GatewayLimits, ModelInfo, SeatResult
from panelgate.store import Database
from panelgate.store.alerts import RaisedAlert

log = logging.getLogger(__name__)

LAST = 5
SWAPPED = 3
ANSWERED = ("ok", "empty")
"""Seat statuses whose reply named a model."""
REREAD_S = 60.0
PREFIX = "swapped:"


def utcnow() -> datetime:
    return datetime.now(UTC)


class SwapWatch:
    def __init__(self, db: Database, now: Callable[[], datetime] = utcnow) -> None:
        self._db = db
        self._now = now
        self._open: set[str] = set()
        """Aliases with an open swap alert, as last read or held here."""
        self._read_at: float | None = None

    async def after_panel(
        self, seats: Sequence[SeatResult], roster: Mapping[str, ModelInfo], limits: GatewayLimits
    ) -> None:
        """Raise or clear the alert of each model whose seat could change it; never raises."""
        if not limits.swap_alerts:
            return
        try:
            if self._read_at is None or time.monotonic() - self._read_at >= REREAD_S:
                await self._reread()
            flagged = self._open
            worth = {
                s.alias
                for s in seats
                if (s.served_as is not None or s.alias in flagged)
                and s.status in ANSWERED
                and s.alias in roster
            }
            for alias in sorted(worth):
                await self._check(roster[alias])
        except Exception:  # the reply is gone; the next panel checks again
            log.exception("could not check whether models answer as others")

    async def _reread(self) -> None:
        self._read_at = time.monotonic()
        keys = await self._db.alerts.open_keys(PREFIX)
        self._open = {key.removeprefix(PREFIX) for key in keys}

    async def _check(self, model: ModelInfo) -> None:
        if model.model_id is None:
            return
        lately = await self._db.panels.served.lately(model.model_id, LAST)
        newest = lately[0] if lately else None
        swapped = sum(1 for name in lately if name is not None)
        alert = _alert(model, newest, swapped, len(lately)) if newest and swapped >= SWAPPED else None
        if alert is None and model.alias not in self._open:
            return
        await self._db.alerts.hold(PREFIX + model.alias, alert, self._now())
        if alert is None:
            self._open.discard(model.alias)
        else:
            self._open.add(model.alias)


def _alert(model: ModelInfo, served_as: str, swapped: int, seen: int) -> RaisedAlert:
    return RaisedAlert(
        key=PREFIX + model.alias,
        kind="swapped",
        subject=model.alias,
        message=(
            f"`{model.alias}` answered as `{served_as}` in {swapped} of its last {seen} answered seats, "
            f"though `{model.endpoint}` was asked for `{model.served_id}`: it may be serving another model "
            f"under that name. Ask the provider, or point `{model.alias}` at the id it really serves; "
            "this clears when it answers as itself."
        ),
    )
