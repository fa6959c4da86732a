"""The evidence book of the current record, fitted once per change of the record or the bench.

Seating, the merger's choice and route mode's member order all read what
the record says of each model (`core/evidence.py`). Fitting the book is the
costly part (a fraction of a millisecond on a 30-model bench,
`benchmarks/seating_cost.py`), so one book is kept and fitted again only
when the verdict store hands back new counts (it keeps the same object
while its copy is fresh) or the bench snapshot changed (the same object
until an edit).
"""

from __future__ import annotations

from collections.abc import Mapping

from panelgate.core.evidence import Counts, EvidenceBook, fit_evidence
from panelgate.core.family import family
from panelgate.core.types import ModelInfo
from panelgate.store import Database

_Fitted = tuple[dict[tuple[str, str], Counts], Mapping[str, ModelInfo], EvidenceBook]
"""The counts and the bench a book was fitted from, and the book."""


class RecordBook:
    def __init__(self, db: Database) -> None:
        self._db = db
        self._fitted: _Fitted | None = None

    async def current(self, roster: Mapping[str, ModelInfo]) -> EvidenceBook:
        """The book for the record as it stands and the bench `roster` belongs to."""
        counts = await self._db.verdicts.evidence_counts()
        fitted = self._fitted
        if fitted is None or fitted[0] is not counts or fitted[1] is not roster:
            families = {alias: family(model.served_id) for alias, model in roster.items()}
            fitted = (counts, roster, fit_evidence(counts, families))
            self._fitted = fitted
        return fitted[2]
