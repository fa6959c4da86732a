"""Whether a gateway key has spent one of its budgets, and when it may spend again.

A key's budgets are tokens and US dollars per UTC day and per calendar
month (UTC). A key at or over any of them is refused with 429 until that
window ends; when several are spent, the one that resets last is the one the
caller is told about, since nothing goes through before it resets.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import datetime

from panelgate.core.errors import RateLimited
from panelgate.core.rate_windows import Window, per_window_words, period_end, period_of, seconds_until
from panelgate.http.access.refusal import Refusal
from panelgate.store.gateway_keys import Budgets


@dataclass(frozen=True, slots=True)
class Spent:
    """What a key used in one window. A call whose price is unknown costs nothing here (counted apart)."""

    tokens: int = 0
    cost: float = 0.0
    unpriced_calls: int = 0

    def plus(self, other: Spent) -> Spent:
        return Spent(
            self.tokens + other.tokens, self.cost + other.cost, self.unpriced_calls + other.unpriced_calls
        )


@dataclass(frozen=True, slots=True)
class KeySpent:
    day: Spent = Spent()
    """Since midnight UTC."""
    month: Spent = Spent()
    """Since the first of the month, midnight UTC."""


def window_start(window: Window, now: datetime) -> datetime:
    return period_end(window, period_of(window, now) - 1)


def refusal_for(budgets: Budgets, spent: KeySpent, now: datetime) -> Refusal | None:
    """The 429 for a key at or over a budget (the latest reset of those spent); None while within them.

    Runs on every request of a key with a budget, so the words are made only for a refusal."""
    spent_ones = [
        (period_end(window, period_of(window, now)), window, limit, used, unit)
        for window, limit, used, unit in _measures(budgets, spent)
        if limit is not None and used >= limit
    ]
    if not spent_ones:
        return None
    resets, window, limit, used, unit = max(spent_ones)
    wait = max(1, math.ceil(seconds_until(resets, now)))
    per = f"{per_window_words(window)} (UTC)"
    words = (
        f"${limit:,.2f} {per}: ${used:,.4f} used"
        if unit == "cost"
        else f"{limit:,} tokens {per}: {used:,} used"
    )
    return Refusal(
        RateLimited(
            f"this gateway key has used its budget of {words}; "
            f"it resets at {resets:%Y-%m-%d %H:%M} UTC, in {wait:,} s"
        ),
        {"Retry-After": str(wait)},
    )


def _measures(budgets: Budgets, spent: KeySpent) -> tuple[tuple[Window, float | None, float, str], ...]:
    """(window, limit, used, unit) for each of the four budgets; the unit is `tokens` or `cost`."""
    return (
        ("day", budgets.tokens_per_day, spent.day.tokens, "tokens"),
        ("day", budgets.cost_per_day, spent.day.cost, "cost"),
        ("month", budgets.tokens_per_month, spent.month.tokens, "tokens"),
        ("month", budgets.cost_per_month, spent.month.cost, "cost"),
    )
