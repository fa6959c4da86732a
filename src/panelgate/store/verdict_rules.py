"""What a verdict may say, decided once for every way of judging (API, dashboard, CLI, MCP).

- Only a call that answered (`ok` or `empty`) is judged. A seat that failed
  says something about the model's health (it is in the health record and
  the ledger), nothing about whether its answers are useful: a verdict on it
  would count an outage or a rate limit as a bad answer.
- `better_than` (a pairwise verdict) names other seats of the same panel,
  never the judged call itself, each one answered: "better than" compares
  answers to one prompt, and a failed seat gave none.

The store's `Verdicts.record` checks these inside the transaction that
writes the verdict, so a refusal reads the same from every surface.
"""

from __future__ import annotations

from collections.abc import Sequence

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncConnection

from panelgate.core.types import JUDGEABLE
from panelgate.store.errors import Invalid, NotFound
from panelgate.store.rules import storable
from panelgate.store.tables import evidence, seats

MAX_BETTER_THAN = 20
"""More seats than any panel has (10 calls and a merger)."""


def refuse_failed(call: str, status: str) -> None:
    """Refuse judging a call that failed: failures are health, not usefulness."""
    if status == "timeout":  # its panel replied by the caller's deadline; the call still runs
        raise Invalid(
            f"`{call}` had not answered by its panel's deadline and has not ended yet; judge it once "
            "its panel's record (GET /api/panels/<panel>) shows its answer",
            field="call",
        )
    if status not in JUDGEABLE:
        raise Invalid(
            f"`{call}` failed (status {status}): a failure counts against the model's health, not its "
            "usefulness, so a failed seat is not judged; judge the seats that answered",
            field="call",
        )


async def checked_better_than(
    connection: AsyncConnection, call: str, panel: str | None, better_than: Sequence[str]
) -> tuple[str, ...]:
    """The calls `call`'s answer beat, checked: seats of its `panel` that answered; sorted, once each."""
    named = list(dict.fromkeys(better_than))
    if not named:
        return ()
    if len(named) > MAX_BETTER_THAN:
        raise Invalid(f"`better_than` names {len(named)} calls; a panel has at most {MAX_BETTER_THAN}")
    if call in named:
        raise Invalid(
            f"`better_than` names `{call}`, the call being judged; name other seats of its panel",
            field="better_than",
        )
    if panel is None:
        raise Invalid(
            f"`{call}` is not a seat of a panel (a route turn, say); `better_than` compares the seats "
            "of one panel",
            field="better_than",
        )
    query = (
        select(evidence.c.call, evidence.c.status, seats.c.panel)
        .select_from(evidence.outerjoin(seats, seats.c.call == evidence.c.call))
        .where(evidence.c.call.in_([other for other in named if storable(other)]))
    )
    found = {row.call: row for row in (await connection.execute(query)).all()}
    for other in named:
        row = found.get(other)
        if row is None:
            raise NotFound(
                f"`better_than` names `{other}`, which is no recorded call; name call ids from the "
                "same reply's bench.seats",
                field="better_than",
            )
        if row.panel != panel:
            where = f"panel `{row.panel}`" if row.panel else "no panel (a route turn)"
            raise Invalid(
                f"`better_than` names `{other}`, a call of {where}; a pairwise verdict compares seats "
                f"of one panel, here `{panel}`",
                field="better_than",
            )
        if row.status not in JUDGEABLE:
            raise Invalid(
                f"`better_than` names `{other}`, which failed (status {row.status}): it gave no answer "
                "to compare; name seats that answered",
                field="better_than",
            )
    return tuple(sorted(named))
