"""A call's current verdict is its newest: a later verdict supersedes, and every tally reads only those.

The one rule the record's readers share, so they all agree on which verdict
stands. (The tallies the record counts are kept as verdicts are written,
`verdict_tallies`; this is for the readers that read verdicts themselves.)
"""

from __future__ import annotations

from sqlalchemy import ColumnElement, exists

from panelgate.store.tables import verdicts


def is_current() -> ColumnElement[bool]:
    """True for a `verdicts` row no later verdict on its call supersedes: one probe of the call's index
    per row read, rather than grouping every verdict first (so a query reading a few verdicts, such
    as the newest twenty, costs the same with a million of them)."""
    newer = verdicts.alias("newer")
    return ~exists().where(newer.c.call == verdicts.c.call, newer.c.id > verdicts.c.id)
