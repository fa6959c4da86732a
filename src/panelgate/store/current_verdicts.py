"""A call's current verdict is its newest: a later verdict supersedes, and every tally reads only those.

The one subquery the record's counts (per model, per shape, per pair of
seats) join to, so they all agree on which verdict stands.
"""

from __future__ import annotations

from sqlalchemy import Subquery, func, select

from panelgate.store.tables import verdicts


def current_verdict_ids() -> Subquery:
    """`id`: the newest verdict of each judged call."""
    return select(func.max(verdicts.c.id).label("id")).group_by(verdicts.c.call).subquery()
