"""The first-run banner: add an endpoint, put a model on the bench, make a collection, ask it.

Each step ticks off from what the store holds, so the banner is right
however the step was done (dashboard, CLI, config import) and disappears
once a panel has been asked.
"""

from __future__ import annotations

from dataclasses import dataclass

from panelgate.http.services import Services


@dataclass(frozen=True)
class Step:
    title: str
    done: bool
    page: str
    """Where the step is done."""


async def first_run(services: Services) -> tuple[Step, ...] | None:
    """The steps while any is left; None once every step is done."""
    bench = await services.db.bench.snapshot()
    asked = bool(await services.db.panels.recent(limit=1))
    steps = (
        Step("Add an endpoint", bool(bench.endpoints), "/endpoints"),
        Step("Put a model on the bench", any(not m.retired for m in bench.roster.values()), "/models"),
        Step("Make a collection", bool(bench.collections), "/collections"),
        Step("Ask it (curl, an SDK or the CLI)", asked, "/collections#ask"),
    )
    return None if all(step.done for step in steps) else steps
