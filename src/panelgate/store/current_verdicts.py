"""A call's current verdict is its newest: a later verdict supersedes, and every tally reads only those.

The one rule the record's readers share, so they all agree on which verdict
stands: a subquery to join to when every verdict is read, a condition when
only a few are.
"""

from __future__ import annotations

from sqlalchemy import ColumnElement, Subquery, exists, func, select

from panelgate.store.tables import verdicts


def current_verdict_ids() -> Subquery:
    """`id`: the newest verdict of each judged call."""
    return select(func.max(verdicts.c.id).label("id")).group_by(verdicts.c.call).subquery()


def is_current() -> ColumnElement[bool]:
    """True for a `verdicts` row no later verdict on its call supersedes: one probe of the call's index
    per row, where `current_verdict_ids` groups every verdict first (a query reading a few verdicts,
    such as the newest twenty, costs the same with a million of them)."""
    newer = verdicts.alias("newer")
    return ~exists().where(newer.c.call == verdicts.c.call, newer.c.id > verdicts.c.id)
