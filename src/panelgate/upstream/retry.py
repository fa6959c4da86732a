"""When a failed upstream call is worth sending again, and how long to wait first.

Only failures that say "try again" are retried: the endpoint could not be
reached, or it answered 408, 409, 429 or 5xx. The wait is the endpoint's own
`Retry-After` when it gives one (capped, because a provider asking for ten
minutes would hold a seat far past what any caller waits), else a short
doubling backoff with jitter so a burst of seats does not return in lockstep.
A wait that would end past the call's deadline is never started: the caller
gets the error at once, while it can still do something else.
"""

from __future__ import annotations

import random
import time
from collections.abc import Mapping
from email.utils import parsedate_to_datetime

MAX_RETRIES = 2
RETRY_STATUSES = frozenset({408, 409, 429})
_BACKOFF_FIRST_S = 0.5
_BACKOFF_CAP_S = 8.0


def is_retry_status(status: int) -> bool:
    return status in RETRY_STATUSES or 500 <= status <= 599


def retry_after(headers: Mapping[str, str]) -> float | None:
    """Seconds the endpoint asked us to wait (`retry-after-ms`, or `retry-after`
    as seconds or an HTTP date), or None when it did not ask."""
    millis = headers.get("retry-after-ms")
    if millis:
        try:
            return max(0.0, float(millis) / 1000)
        except ValueError:
            pass
    value = headers.get("retry-after")
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - time.time())


def wait_before_retry(asked: float | None, failures: int, cap_s: float) -> float:
    """How long to wait before retry number `failures` (1 for the first retry)."""
    if asked is not None:
        return min(asked, cap_s)
    backoff: float = min(_BACKOFF_CAP_S, _BACKOFF_FIRST_S * 2.0 ** (failures - 1))
    return backoff * random.uniform(0.75, 1.0)
