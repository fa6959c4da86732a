"""The record and the seating clock, read for the explorer rule once per panel.

The explorer rule (`core/explorer_policy.py`) needs each model's posterior
on the panel's shape and how many panels in a row each model has gone
unseated (the staleness floor). Fitting the evidence book is the costly
part, so a book is kept until the counts or the bench change: the verdict
store hands back the same counts object while its copy is fresh, and the
bench snapshot is the same object until an edit.
"""

from __future__ import annotations

import random
from bisect import bisect_right
from collections.abc import Mapping
from datetime import datetime

from panelgate.core.evidence import Counts, EvidenceBook, fit_evidence
from panelgate.core.explorer_floor import MIN_FLOOR
from panelgate.core.explorer_policy import ExplorerEvidence
from panelgate.core.family import family
from panelgate.core.types import GatewayLimits, ModelInfo
from panelgate.store import Database

_Fitted = tuple[dict[tuple[str, str], Counts], Mapping[str, ModelInfo], EvidenceBook]
"""The counts and the bench a book was fitted from, and the book."""


class SeatingEvidence:
    def __init__(self, db: Database, rng: random.Random) -> None:
        self._db = db
        self._rng = rng
        self._fitted: tuple[dict[tuple[str, str], Counts], Mapping[str, ModelInfo], EvidenceBook] | None = (
            None
        )

    async def for_panel(
        self, roster: Mapping[str, ModelInfo], limits: GatewayLimits, last_seated: Mapping[str, datetime]
    ) -> ExplorerEvidence | None:
        """What the evidence rule reads for this panel; None when the gateway seats stalest first."""
        if limits.explorer_rule == "stalest":
            return None
        counts = await self._db.verdicts.evidence_counts()
        fitted = self._fitted
        if fitted is None or fitted[0] is not counts or fitted[1] is not roster:
            families = {alias: family(model.served_id) for alias, model in roster.items()}
            fitted = (counts, roster, fit_evidence(counts, families))
            self._fitted = fitted
        # twice the longest floor the bench can have: a model unseated that long is due either way
        depth = 2 * max(limits.explorer_floor, len(roster), MIN_FLOOR)
        times = await self._db.panels.recent_times(depth)
        unseated = {alias: len(times) - bisect_right(times, at) for alias, at in last_seated.items()}
        return ExplorerEvidence(fitted[2], unseated, self._rng)
