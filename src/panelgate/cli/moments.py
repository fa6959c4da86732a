"""Moments the server sends (ISO 8601), read and shown the same way by every command."""

from __future__ import annotations

from datetime import UTC, datetime


def moment_of(at: str | None) -> datetime | None:
    """The server's ISO moment in UTC (a moment without a zone is read as UTC); None when unreadable."""
    if not at:
        return None
    try:
        moment = datetime.fromisoformat(at)
    except ValueError:
        return None
    return (moment if moment.tzinfo else moment.replace(tzinfo=UTC)).astimezone(UTC)


def minute_utc(at: str | None) -> str | None:
    """`YYYY-MM-DD HH:MM` in UTC, short enough for a table column; None when there is no moment."""
    moment = moment_of(at)
    return moment.strftime("%Y-%m-%d %H:%M") if moment else None
