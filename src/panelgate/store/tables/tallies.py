"""Current verdicts counted as they are written, so reading the record costs the same at any size.

Every verdict ever given is kept (`record.verdicts`), and the record's
readers (seating's evidence, `/bench/record`, the Record page) want only
counts of the current ones. Counting a million verdicts on each read takes
seconds; these tables hold the counts, kept in the verdict's own
transaction (`store/verdict_tallies.py`), and are read in a millisecond.
A key part the verdict lacks is stored as `''` (no collection, no shape,
no source), so each cell has one row on both databases.
"""

from __future__ import annotations

from sqlalchemy import Boolean, Column, Date, ForeignKey, Integer, Table, Text

from panelgate.store.tables.columns import UtcDateTime, metadata

verdict_tallies = Table(
    "verdict_tallies",
    metadata,
    Column("model_id", Integer, ForeignKey("models.id"), primary_key=True),
    Column("collection", Text, primary_key=True),
    Column("shape", Text, primary_key=True),
    Column("source", Text, primary_key=True),
    Column("useful", Boolean, primary_key=True),
    Column("judged", Integer, nullable=False),
    # the newest verdict counted here: a superseded one is always older than what superseded it
    Column("last_at", UtcDateTime, nullable=False),
)
"""Current verdicts per model, collection, shape, source and useful."""

verdict_days = Table(
    "verdict_days",
    metadata,
    Column("day", Date, primary_key=True),
    Column("collection", Text, primary_key=True),
    Column("useful", Boolean, primary_key=True),
    Column("judged", Integer, nullable=False),
)
"""Current verdicts per UTC day they were given, collection and useful: the Record page's timeline."""
