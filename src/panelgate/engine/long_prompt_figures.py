"""The long-prompt speed test's figures, as seating reads them: read now and then, never per panel.

Seating (`core/long_prompts.py`) skips explorer candidates that failed the
weekly speed test's long prompt or ran far slower than the rest. Reading
the probes on every panel would put a query on the request's path, so the
figures are read when the bench changes (a new roster object) or when the
copy is older than `MAX_AGE_S`; in between every panel gets the same
mapping. The test runs weekly, so a copy minutes old misses nothing.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from datetime import timedelta

from panelgate.core.long_prompts import LongPromptTest
from panelgate.core.types import ModelInfo
from panelgate.store import Database
from panelgate.store.health_book import ProbeRecord
from panelgate.store.tables import utcnow

LONG_PROBE = "speed-large"
MAX_AGE_S = 600.0
"""How old a copy of the figures may get before a panel reads them again."""
NEWEST_WITHIN = timedelta(days=60)
"""A test older than this says nothing of the model today (the speed test runs weekly)."""


class LongPromptFigures:
    def __init__(self, db: Database, clock: Callable[[], float] = time.monotonic) -> None:
        self._db = db
        self._clock = clock
        self._roster: Mapping[str, ModelInfo] | None = None
        self._read_at = 0.0
        self._tests: Mapping[str, LongPromptTest] = {}

    async def current(self, roster: Mapping[str, ModelInfo]) -> Mapping[str, LongPromptTest]:
        """Each tested model's newest long-prompt test, by alias (untested models are absent)."""
        now = self._clock()
        if roster is not self._roster or now - self._read_at > MAX_AGE_S:
            newest = await self._db.health.newest_of_kind(LONG_PROBE, utcnow() - NEWEST_WITHIN)
            self._tests = {
                alias: _test(newest[model.model_id])
                for alias, model in roster.items()
                if model.model_id is not None and model.model_id in newest
            }
            self._roster, self._read_at = roster, now
        return self._tests


def _test(probe: ProbeRecord) -> LongPromptTest:
    measures = probe.measures
    runs = int(measures.get("runs", 1))
    answered = int(measures.get("answered", 1 if probe.status == "ok" else 0))
    p50 = measures.get("p50_s")
    return LongPromptTest(runs, answered, float(p50) if isinstance(p50, int | float) else None)
