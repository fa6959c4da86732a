"""What a provider says about its rate limits, read from response headers and 429 bodies.

Providers spell the same facts differently: OpenAI and Groq send
`x-ratelimit-{limit,remaining,reset}-{requests,tokens}` with resets as
durations ("6m0s", "20ms"); Anthropic sends `anthropic-ratelimit-*` with
RFC 3339 reset times; OpenRouter sends `X-RateLimit-*` with the reset in
epoch milliseconds, and repeats them inside a 429 body's `metadata.headers`;
Gemini sends no headers but a 429 body with `RetryInfo.retryDelay` and the
quota it hit. Everything becomes `StatedLimits` with absolute reset times,
so pacing never has to know who said it. Pure: the caller passes `now`.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from email.utils import parsedate_to_datetime
from typing import Any, Literal
from zoneinfo import ZoneInfo

Measure = Literal["requests", "tokens", "input_tokens", "output_tokens"]
Style = Literal["openai", "anthropic", "openrouter", "gemini"]

_DURATION_PART = re.compile(r"(\d+(?:\.\d+)?)(ms|h|m|s)")
_STATING_PREFIXES = ("anthropic-ratelimit-", "x-ratelimit-")
_OPENAI_MEASURES: dict[str, Measure] = {"requests": "requests", "tokens": "tokens"}
_ANTHROPIC_MEASURES: dict[str, Measure] = {
    "requests": "requests",
    "tokens": "tokens",
    "input-tokens": "input_tokens",
    "output-tokens": "output_tokens",
}
PACIFIC = ZoneInfo("America/Los_Angeles")
_EPOCH_MS_FLOOR = 10_000_000_000
"""Epoch values above this are milliseconds (seconds would be the year 2286)."""


@dataclass(frozen=True)
class StatedWindow:
    """One stated limit: how much of `measure` it allows, how much is left, and when that resets."""

    measure: Measure
    limit: int | None
    remaining: int | None
    resets_at: datetime | None
    quota: str = ""
    """The provider's name for the quota, when it gave one (Gemini's quotaId)."""

    @property
    def exhausted(self) -> bool:
        return self.remaining is not None and self.remaining <= 0


@dataclass(frozen=True)
class StatedLimits:
    style: Style
    windows: tuple[StatedWindow, ...] = ()
    retry_at: datetime | None = None
    """When the provider said to try again (Retry-After, Gemini's retryDelay)."""

    def window(self, measure: Measure) -> StatedWindow | None:
        return next((w for w in self.windows if w.measure == measure), None)

    def free_at(self, now: datetime) -> datetime | None:
        """When a call may go again: the retry time, or the latest reset of an exhausted window."""
        times = [w.resets_at for w in self.windows if w.exhausted and w.resets_at is not None]
        if self.retry_at is not None:
            times.append(self.retry_at)
        later = [t for t in times if t > now]
        return max(later) if later else None


def parse_duration(text: str) -> float | None:
    """Seconds in a Go-style duration ("6m0s", "1.5s", "20ms", "1h2m") or a bare number of seconds."""
    text = text.strip().lower()
    if not text:
        return None
    try:
        return max(0.0, float(text))
    except ValueError:
        pass
    parts = _DURATION_PART.findall(text)
    if not parts or "".join(n + u for n, u in parts) != text:
        return None
    scale = {"h": 3600.0, "m": 60.0, "s": 1.0, "ms": 0.001}
    return sum(float(number) * scale[unit] for number, unit in parts)


def _int(value: str | None) -> int | None:
    if value is None:
        return None
    try:
        return int(float(value.strip()))
    except ValueError:
        return None


def _instant(value: str | None, now: datetime) -> datetime | None:
    """An RFC 3339 time, epoch seconds or milliseconds, or a duration from `now`."""
    if value is None or not value.strip():
        return None
    text = value.strip()
    if re.fullmatch(r"\d{9,}(\.\d+)?", text):  # before ISO: Python reads bare digits as a basic-format date
        epoch = float(text)
        return datetime.fromtimestamp(epoch / 1000 if epoch > _EPOCH_MS_FLOOR else epoch, UTC)
    try:
        stamp = datetime.fromisoformat(text.replace("Z", "+00:00"))
        return stamp if stamp.tzinfo else stamp.replace(tzinfo=UTC)
    except ValueError:
        pass
    seconds = parse_duration(text)
    return None if seconds is None else now + timedelta(seconds=seconds)


def _retry_at(headers: Mapping[str, str], now: datetime) -> datetime | None:
    if (millis := headers.get("retry-after-ms")) is not None and (ms := _int(millis)) is not None:
        return now + timedelta(milliseconds=ms)
    value = headers.get("retry-after")
    if value is None:
        return None
    seconds = _int(value)
    if seconds is not None and value.strip().isdigit():
        return now + timedelta(seconds=seconds)
    try:
        return parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None


def read_headers(raw: Mapping[str, str], now: datetime) -> StatedLimits | None:
    """The limits a response's headers state, or None when they state none."""
    headers = {k.lower(): v for k, v in raw.items()}
    retry_at = _retry_at(headers, now)
    # Read on every upstream reply: most state nothing, and those that do state it in a few names.
    stating = [k for k in headers if k.startswith(_STATING_PREFIXES)]
    if not stating:
        return None if retry_at is None else StatedLimits("openai", (), retry_at)
    windows: list[StatedWindow] = []
    style: Style | None = None
    for suffix, measure in _ANTHROPIC_MEASURES.items():
        prefix = f"anthropic-ratelimit-{suffix}-"
        if any([k.startswith(prefix) for k in stating]):
            style = "anthropic"
            windows.append(
                StatedWindow(
                    measure,
                    _int(headers.get(prefix + "limit")),
                    _int(headers.get(prefix + "remaining")),
                    _instant(headers.get(prefix + "reset"), now),
                )
            )
    for suffix, measure in _OPENAI_MEASURES.items():
        names = [f"x-ratelimit-{part}-{suffix}" for part in ("limit", "remaining", "reset")]
        if any([name in headers for name in names]):
            style = style or "openai"
            limit, remaining, reset = [headers.get(name) for name in names]
            windows.append(StatedWindow(measure, _int(limit), _int(remaining), _instant(reset, now)))
    if not windows and ("x-ratelimit-limit" in headers or "x-ratelimit-remaining" in headers):
        style = "openrouter"
        windows.append(_openrouter_window(headers, now))
    if style is None:
        return None if retry_at is None else StatedLimits("openai", (), retry_at)
    return StatedLimits(style, tuple(windows), retry_at)


def _openrouter_window(headers: Mapping[str, str], now: datetime) -> StatedWindow:
    return StatedWindow(
        "requests",
        _int(headers.get("x-ratelimit-limit")),
        _int(headers.get("x-ratelimit-remaining")),
        _instant(headers.get("x-ratelimit-reset"), now),
    )


def read_refusal(body: Any, headers: Mapping[str, str], now: datetime) -> StatedLimits | None:
    """The limits a 429 states, from its headers and its body (OpenRouter's metadata, Gemini's details)."""
    stated = read_headers(headers, now)
    error = body.get("error") if isinstance(body, dict) else None
    if not isinstance(error, dict):
        return stated
    metadata = error.get("metadata")
    inner = metadata.get("headers") if isinstance(metadata, dict) else None
    if isinstance(inner, dict) and stated is None:
        stated = read_headers({str(k): str(v) for k, v in inner.items()}, now)
    details = error.get("details")
    if isinstance(details, list):
        gemini = _gemini_refusal(details, now)
        if gemini is not None:
            return (
                gemini
                if stated is None
                else StatedLimits(
                    stated.style, stated.windows + gemini.windows, gemini.retry_at or stated.retry_at
                )
            )
    return stated


def _gemini_refusal(details: list[Any], now: datetime) -> StatedLimits | None:
    retry_at: datetime | None = None
    windows: list[StatedWindow] = []
    for detail in details:
        if not isinstance(detail, dict):
            continue
        kind = str(detail.get("@type", ""))
        if kind.endswith("RetryInfo"):
            seconds = parse_duration(str(detail.get("retryDelay", "")))
            retry_at = None if seconds is None else now + timedelta(seconds=seconds)
        elif kind.endswith("QuotaFailure"):
            for violation in detail.get("violations") or []:
                if isinstance(violation, dict):
                    windows.append(_gemini_window(violation, now))
    if retry_at is None and not windows:
        return None
    return StatedLimits("gemini", tuple(windows), retry_at)


def _gemini_window(violation: Mapping[str, Any], now: datetime) -> StatedWindow:
    """A quota Gemini says was hit: exhausted until the minute or the day (Pacific midnight) ends."""
    quota = str(violation.get("quotaId", ""))
    measure: Measure = "tokens" if "Token" in quota else "requests"
    if "PerDay" in quota:
        resets_at = _next_pacific_midnight(now)
    elif "PerMinute" in quota:
        resets_at = now.replace(second=0, microsecond=0) + timedelta(minutes=1)
    else:
        resets_at = None
    return StatedWindow(measure, _int(str(violation.get("quotaValue", ""))), 0, resets_at, quota)


def _next_pacific_midnight(now: datetime) -> datetime:
    """Gemini's daily quotas reset at midnight Pacific time."""
    tomorrow = now.astimezone(PACIFIC).date() + timedelta(days=1)
    return datetime(tomorrow.year, tomorrow.month, tomorrow.day, tzinfo=PACIFIC).astimezone(UTC)
