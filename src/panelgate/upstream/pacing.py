"""Pacing: no call is sent that a known rate limit would refuse.

Before each request to a model, `admit` checks what its provider last said
(an exhausted window, a stated wait) and the limits set by hand for its
connection or for it (each request is counted in the shared store before it
is sent, under every rule that covers it at once or under none, so the count
holds across gateway processes and a request held by one rule spends
nothing of another's window while it waits). When room frees
before the call's deadline the call waits for it; when it does not, the
call is refused without being sent (`capacity`), saying when room frees.
After each reply `observe` reads what the provider states in its headers
or its 429 body, and `spent` counts the tokens the reply used against
token rules.

What providers state is kept in this process at once and written to the
store when it matters (a window used up, a wait asked for, little left) or
every few seconds otherwise; other processes pick it up within a second.

When the shared store cannot be reached (Redis down), a call that must be
counted is refused unsent, as `capacity` (so no model's health pays for
it), saying why.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable, Mapping
from datetime import UTC, datetime

import orjson

from panelgate.core.rate_limits import StatedLimits, read_headers, read_refusal
from panelgate.core.rate_windows import period_end, period_of, seconds_until
from panelgate.observe import Meter
from panelgate.store.rate_book import RateBook
from panelgate.store.records import RateRule, StatedRow
from panelgate.store.shared import SharedStateUnavailable
from panelgate.upstream.errors import UpstreamError

log = logging.getLogger(__name__)

RulesReader = Callable[[], Awaitable[tuple[RateRule, ...]]]
Key = tuple[str, str]
"""(endpoint, served id)."""

RECORD_EVERY_S = 5.0
REREAD_EVERY_S = 1.0
LOW_SHARE = 0.1
"""A window with at most this share left is written at once, not on the next round."""


def _utcnow() -> datetime:
    return datetime.now(UTC)


class Pacer:
    def __init__(
        self,
        rates: RateBook,
        rules: RulesReader,
        *,
        now: Callable[[], datetime] = _utcnow,
        meter: Meter | None = None,
    ) -> None:
        """`meter` counts waits and refusals for `/metrics` (None: a meter of its own)."""
        self._rates = rates
        self._meter = meter or Meter()
        self._rules = rules
        self._now = now
        self._free_at: dict[Key, datetime] = {}
        self._recorded_at: dict[Key, float] = {}
        self._read_at = 0.0
        self._reading: asyncio.Task[None] | None = None

    async def aclose(self) -> None:
        """Stop a re-read in flight, so no database connection outlives the client."""
        if self._reading is not None and not self._reading.done():
            self._reading.cancel()
            await asyncio.gather(self._reading, return_exceptions=True)

    async def admit(self, endpoint: str, served_id: str, deadline: float, *, may_wait: bool = True) -> None:
        """Return when a request to `served_id` on `endpoint` may be sent; raise `capacity` when it may not
        before `deadline` (a `time.monotonic()` value), or at once when it may not now and `may_wait` is
        false (a route member with others to fail over to)."""
        self._reread_soon()
        key = (endpoint, served_id)
        if not may_wait:
            deadline = time.monotonic()
        while (free_at := self._free_at.get(key)) is not None and free_at > self._now():
            why = f"`{endpoint}` said {served_id} is at its limit"
            await self._wait_until(free_at, deadline, endpoint, why)
        rules = [rule for rule in await self._rules() if rule.covers(endpoint, served_id)]
        if rules:
            try:
                await self._room_under(rules, deadline)
            except SharedStateUnavailable as exc:
                self._meter.pacing_refused(endpoint)
                refused = UpstreamError(f"not sent: {exc.message}", kind="capacity", provider=endpoint)
                refused.attempts = 0
                raise refused from exc

    async def _room_under(self, rules: list[RateRule], deadline: float) -> None:
        """Count the request under every request rule at once, when every token rule has room left."""
        while True:
            now = self._now()
            full = await self._spent_up([rule for rule in rules if rule.measure == "tokens"], now)
            takes = [(rule, period_of(rule.window, now)) for rule in rules if rule.measure == "requests"]
            held = full or await self._rates.take_all(takes, 1)
            if held is None:
                return
            scope = held.served_id or "all its models together"
            why = f"`{held.endpoint}` is limited to {held.most} {held.measure} a {held.window} ({scope})"
            ends = period_end(held.window, period_of(held.window, now))
            await self._wait_until(ends, deadline, held.endpoint, why)

    async def _spent_up(self, rules: list[RateRule], now: datetime) -> RateRule | None:
        """The first token rule whose window is spent, if any."""
        if not rules:
            return None
        periods = {rule.id: period_of(rule.window, now) for rule in rules}
        used = await self._rates.used(list(periods), sorted(set(periods.values())))
        return next((rule for rule in rules if used.get((rule.id, periods[rule.id]), 0) >= rule.most), None)

    async def _wait_until(self, moment: datetime, deadline: float, endpoint: str, why: str) -> None:
        wait = seconds_until(moment, self._now())
        if time.monotonic() + wait >= deadline:
            refused = UpstreamError(
                f"not sent: {why}, and room frees at {moment:%H:%M:%S} UTC (in {wait:.0f} s), "
                "after this call's deadline",
                kind="capacity",
                provider=endpoint,
                retry_after=wait,
            )
            refused.attempts = 0
            self._meter.pacing_refused(endpoint)
            raise refused
        self._meter.pacing_waited(endpoint, wait)
        await asyncio.sleep(wait)

    async def observe(
        self, endpoint: str, served_id: str, status: int, headers: Mapping[str, str], body: bytes = b""
    ) -> None:
        """Learn what a reply's headers (and a 429's body) say about the model's limits."""
        now = self._now()
        if status == 429:
            stated = read_refusal(_json_or_none(body), headers, now)
        else:
            stated = read_headers(headers, now)
        if stated is None:
            return
        key = (endpoint, served_id)
        free_at = stated.free_at(now)
        if free_at is not None:
            self._free_at[key] = free_at
        if self._worth_recording(key, stated, free_at):
            self._recorded_at[key] = time.monotonic()
            try:
                await self._rates.record_stated(endpoint, served_id, stated)
            except Exception:  # pacing must never fail the call it paces
                log.warning("could not record %s's stated limits", endpoint, exc_info=True)

    def _worth_recording(self, key: Key, stated: StatedLimits, free_at: datetime | None) -> bool:
        if free_at is not None:
            return True
        for window in stated.windows:
            if window.limit and window.remaining is not None and window.remaining <= window.limit * LOW_SHARE:
                return True
        return time.monotonic() - self._recorded_at.get(key, 0.0) >= RECORD_EVERY_S

    async def spent(self, endpoint: str, served_id: str, tokens: int) -> None:
        """Count a reply's tokens against the token rules covering its model."""
        if tokens <= 0:
            return
        now = self._now()
        for rule in await self._rules():
            if rule.measure == "tokens" and rule.covers(endpoint, served_id):
                try:
                    await self._rates.add(rule, period_of(rule.window, now), tokens)
                except SharedStateUnavailable as exc:  # the call was answered: its answer matters more
                    log.warning("could not count %s tokens against rate rule %s: %s", tokens, rule.id, exc)

    async def resting(self) -> dict[Key, datetime]:
        """Each model a provider said to wait for, with when the wait ends (waits already over are left
        out). What other processes learned is read first when the last read is over a second old, so a
        panel is not seated with a model another process was just told to rest."""
        if time.monotonic() - self._read_at >= REREAD_EVERY_S:
            self._read_at = time.monotonic()
            await self._reread()
        now = self._now()
        return {key: free_at for key, free_at in self._free_at.items() if free_at > now}

    def _reread_soon(self) -> None:
        """Pick up what other processes learned, at most once a second, without making a call wait."""
        if time.monotonic() - self._read_at < REREAD_EVERY_S or (self._reading and not self._reading.done()):
            return
        self._read_at = time.monotonic()
        self._reading = asyncio.create_task(self._reread())

    async def _reread(self) -> None:
        try:
            rows = await self._rates.stated()
        except Exception:
            log.warning("could not read the stated rate limits", exc_info=True)
            return
        now = self._now()
        for row in rows:
            free_at = _row_free_at(row, now)
            key = (row.endpoint, row.served_id)
            if free_at is not None and free_at > self._free_at.get(key, now):
                self._free_at[key] = free_at


def _row_free_at(row: StatedRow, now: datetime) -> datetime | None:
    times = [row.retry_at] if row.retry_at is not None else []
    if row.remaining is not None and row.remaining <= 0 and row.resets_at is not None:
        times.append(row.resets_at)
    later = [t for t in times if t > now]
    return max(later) if later else None


def _json_or_none(body: bytes) -> object:
    try:
        return orjson.loads(body) if body else None
    except orjson.JSONDecodeError:
        return None
