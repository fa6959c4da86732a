"""What the Benchmarks page shows: the suite's standings and heatmap, and each model's speed.

It reads what `/api/suite/status` and `/api/suite/answers` read (each
model's newest answer to each task as the task is now, through the suite's
desk) and the newest speed probes `/api/health` shows.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from panelgate.http.dashboard.suite_heat import ShapeHeat, heatmap
from panelgate.http.dashboard.suite_standings import ModelRow, Wrong, confidently_wrong, model_rows
from panelgate.http.services import Services
from panelgate.store.health_book import ProbeRecord
from panelgate.store.records import ModelRecord
from panelgate.suite.desk import SuiteDesk

SPEED_PROBES = ("speed-tiny", "speed-large")
SPEED_SINCE = timedelta(days=365)


@dataclass(frozen=True)
class Speed:
    alias: str
    short: ProbeRecord | None
    long: ProbeRecord | None


@dataclass(frozen=True)
class Benchmarks:
    rows: list[ModelRow]
    on_bench: bool
    """Whether any model is on the bench (to say what to do when nothing was asked yet)."""
    heat: list[ShapeHeat]
    wrong: list[Wrong]
    speeds: list[Speed]


async def read_benchmarks(services: Services) -> Benchmarks:
    desk = SuiteDesk(services.db, services.upstream, services.settings.data_dir)
    catalogue = await desk.catalogue()
    answers = await desk.current_answers()
    models = await services.db.models.list(include_retired=True)
    tallies = await desk.standings()
    rows = model_rows(models, [t for t in tallies if t.shapes])
    return Benchmarks(
        rows=rows,
        on_bench=any(not m.retired for m in models),
        heat=heatmap(rows, catalogue.runnable(), list(catalogue.tasks.values()), answers),
        wrong=confidently_wrong(models, tallies, answers),
        speeds=await speeds(services, models),
    )


async def speeds(services: Services, models: Sequence[ModelRecord]) -> list[Speed]:
    """The newest speed test of every model on the bench, and of retired models that had one."""
    since = datetime.now(UTC) - SPEED_SINCE
    probes = await services.db.health.latest_probes([m.id for m in models], since)
    found = []
    for model in sorted(models, key=lambda m: (m.retired, m.alias.lower())):
        newest = probes.get(model.id, {})
        short, long = (newest.get(kind) for kind in SPEED_PROBES)
        if not model.retired or short or long:
            found.append(Speed(model.alias, short, long))
    return found
