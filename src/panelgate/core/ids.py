"""Panel and call ids.

A panel id carries the second it was seated, so ids sort by time and a person
reading a log can tell when a panel ran; the 4-hex token (random, chosen by
the caller) keeps two panels of one second apart. A call id names one seat of
one panel and is what a verdict is recorded against.
"""

from __future__ import annotations

import re
from datetime import datetime

_TOKEN_RE = re.compile(r"[0-9a-f]{4}")


def panel_id(now: datetime, token: str) -> str:
    """`p<YYYYmmdd-HHMMSS>-<token>` for a panel seated at `now`."""
    if not _TOKEN_RE.fullmatch(token):
        raise ValueError(f"a panel token is 4 lower-case hex characters, got {token!r}")
    return f"p{now:%Y%m%d-%H%M%S}-{token}"


def call_id(panel: str, suffix: str) -> str:
    """The call id of one seat: `<panel>.<suffix>` (`member1`, `explorer2`, `merger`)."""
    return f"{panel}.{suffix}"
