"""The record and the seating clock, read for the explorer rule once per panel.

The explorer rule (`core/explorer_policy.py`) needs each model's posterior
on the panel's shape (the evidence book, `engine/record_book.py`) and how
many panels in a row each model has gone unseated (the staleness floor),
counted from when each model last sat and the times of the newest panels.
Beside the record: which models sit on an endpoint marked preferred (they
win ties), worked out again only when the bench changes, and the weekly
speed test's long-prompt figures (`engine/long_prompt_figures.py`), which
seating reads on long prompts.
"""

from __future__ import annotations

import random
from bisect import bisect_right
from collections.abc import Mapping
from datetime import datetime

from panelgate.core.explorer_floor import MIN_FLOOR
from panelgate.core.explorer_policy import ExplorerEvidence
from panelgate.core.types import GatewayLimits, ModelInfo
from panelgate.engine.long_prompt_figures import LongPromptFigures
from panelgate.engine.record_book import RecordBook
from panelgate.store import Database


class SeatingEvidence:
    def __init__(self, db: Database, book: RecordBook, rng: random.Random) -> None:
        self._db = db
        self._book = book
        self._rng = rng
        self._long_prompt = LongPromptFigures(db)
        self._preferred: tuple[Mapping[str, ModelInfo] | None, frozenset[str]] = (None, frozenset())

    async def for_panel(
        self, roster: Mapping[str, ModelInfo], limits: GatewayLimits, last_seated: Mapping[str, datetime]
    ) -> ExplorerEvidence | None:
        """What the evidence rule reads for this panel; None when the gateway seats stalest first."""
        if limits.explorer_rule == "stalest":
            return None
        book = await self._book.current(roster)
        # twice the longest floor the bench can have: a model unseated that long is due either way
        depth = 2 * max(limits.explorer_floor, len(roster), MIN_FLOOR)
        times = await self._db.panels.recent_times(depth)
        unseated = {alias: len(times) - bisect_right(times, at) for alias, at in last_seated.items()}
        return ExplorerEvidence(
            book,
            unseated,
            self._rng,
            preferred=await self._preferred_of(roster),
            long_prompt=await self._long_prompt.current(roster),
        )

    async def _preferred_of(self, roster: Mapping[str, ModelInfo]) -> frozenset[str]:
        """The aliases on an endpoint marked preferred; read again only for a new roster."""
        known, aliases = self._preferred
        if known is not roster:
            endpoints = (await self._db.bench.snapshot()).endpoints
            aliases = frozenset(
                alias
                for alias, model in roster.items()
                if (endpoint := endpoints.get(model.endpoint)) is not None and endpoint.preferred
            )
            self._preferred = (roster, aliases)
        return aliases
