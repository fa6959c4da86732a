"""Price watch: a free model whose price turns non-zero is held until a person allows it.

People run a bench on free tiers; a provider that starts charging for a
model must not quietly start spending their money. After each refresh the
merged price of every model is compared with the one before: a model that
was free (a known price of zero) and is now priced is *held*: seating skips
it with the reason, route mode passes it over, no merge is given to it, and
it stays in the action-needed list until a person allows it
(`POST /api/models/{alias}/allow-paid`), which is for good.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime

from panelgate.catalog.facts import price_of
from panelgate.catalog.merge import Merged
from panelgate.store import Database
from panelgate.store.alerts import RaisedAlert
from panelgate.store.fact_book import HoldCandidate, HoldRecord

ALERT_KINDS = ("paid",)


def turned_paid(before: Mapping[int, Merged], after: Mapping[int, Merged]) -> list[HoldCandidate]:
    """The models (by id) whose merged price was free in `before` and is priced in `after`."""
    found = []
    for model_id, now in after.items():
        was = before.get(model_id)
        old = None if was is None else price_of(was.value)
        new = price_of(now.value)
        if old is not None and old.free and new is not None and not new.free and now.chosen is not None:
            price = {"input": new.input, "output": new.output}
            found.append(HoldCandidate(model_id, price, now.chosen.source))
    return found


def held_reason(hold: HoldRecord) -> str:
    """Why a held model is not called, as `bench.skipped` says it."""
    price = price_of(hold.price)
    shown = f"{price.words()}, per {hold.source}" if price is not None else f"per {hold.source}"
    return f"turned paid ({shown}); not called until a person allows it"


async def sync_alerts(db: Database, now: datetime) -> None:
    """One open alert per model on the bench that is held, none for the others."""
    holds = await db.facts.holds()
    raised = [
        RaisedAlert(
            key=f"model:paid:{model.id}",
            kind="paid",
            subject=model.alias,
            message=(
                f"`{model.alias}` ({model.served_id} on {model.endpoint}) {held_reason(holds[model.id])}: "
                f"allow it with POST /api/models/{model.alias}/allow-paid, or retire it"
            ),
        )
        for model in await db.models.list()
        if model.id in holds and holds[model.id].state == "held"
    ]
    await db.alerts.sync(raised, ALERT_KINDS, now)
