"""What each gateway key with a budget spent this UTC day and month, as this process last read it.

Budgets must hold across every gateway process, yet a query per request
would put the database on every call's path. So each process keeps the
sums in memory and re-reads them from the usage ledger (which every process
writes, with or without Redis) at most every `REFRESH_S`, in the background:
a request only looks them up. A request waits for the read only when the
sums are missing for its key or older than `STALE_S` (a process that was
idle). Today's calls are re-read each time; the month's earlier days, and
the catalog's prices that turn tokens into dollars, every `EARLIER_S`.

So a key may overshoot a budget by the calls it has in flight when it
reaches it, plus what it finishes in the few seconds before every process
has read the ledger again (each process writes its ledger about once a
second).
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable, Iterable, Mapping
from datetime import UTC, datetime

from panelgate.catalog.costs import Prices, spend_cost
from panelgate.core.rate_windows import period_end, period_of
from panelgate.http.access.budgets import KeySpent, Spent, window_start
from panelgate.store import Database, GatewayKeyRecord
from panelgate.store.usage_book import CallerSpend, Spend

log = logging.getLogger(__name__)
REFRESH_S = 2.0
STALE_S = 10.0
EARLIER_S = 60.0


class KeySpendWatch:
    """One per process (made in the app's lifespan): the sums each budgeted key's checks read."""

    def __init__(self, db: Database, prices: Callable[[], Awaitable[Prices]]) -> None:
        self._db = db
        self._prices = prices
        self._spent: dict[int, KeySpent] = {}
        self._read_at = -1e9
        self._good_until = 0.0
        """When the day the sums were read for ends (epoch seconds): after it they are yesterday's."""
        self._reading: asyncio.Task[None] | None = None
        self._earlier: dict[str, Spent] = {}
        self._earlier_of: tuple[datetime, float] | None = None
        """(the day whose earlier days `_earlier` sums, when it was read)."""
        self._priced: tuple[Prices, float] | None = None

    async def spent(self, key: GatewayKeyRecord) -> KeySpent:
        """What `key` spent: no I/O unless this process has no recent sums for it."""
        age = time.monotonic() - self._read_at
        found = self._spent.get(key.id)
        if found is None or age > STALE_S or time.time() >= self._good_until:
            await asyncio.shield(self._start_reading())
            return self._spent.get(key.id, KeySpent())
        if age > REFRESH_S:
            self._start_reading()
        return found

    async def aclose(self) -> None:
        """Wait for a read under way, so it does not outlive the database."""
        if self._reading is not None and not self._reading.done():
            await asyncio.gather(self._reading, return_exceptions=True)

    def _start_reading(self) -> asyncio.Task[None]:
        if self._reading is None or self._reading.done():
            self._reading = asyncio.get_running_loop().create_task(self._read())
            self._reading.add_done_callback(_log_failure)
        return self._reading

    async def _read(self) -> None:
        now = datetime.now(UTC)
        keys = [key for key in await self._db.keys.list() if key.budgets.any and not key.revoked]
        day, month = window_start("day", now), window_start("month", now)
        prices = await self._prices_for(keys)
        today = await self._db.usage.spend_of_callers({key.name: max(day, key.created_at) for key in keys})
        earlier = await self._earlier_days(keys, day, month, prices)
        by_name = _sums(today, prices)
        spent: dict[int, KeySpent] = {}
        for key in keys:
            on_day = by_name.get(key.name, Spent())
            spent[key.id] = KeySpent(on_day, on_day.plus(earlier.get(key.name, Spent())))
        self._spent, self._read_at = spent, time.monotonic()
        self._good_until = period_end("day", period_of("day", now)).timestamp()

    async def _prices_for(self, keys: list[GatewayKeyRecord]) -> Prices:
        """The catalog's prices, re-read every `EARLIER_S` and only while a key has a cost budget."""
        if not any(k.budgets.cost_per_day or k.budgets.cost_per_month for k in keys):
            return {}
        if self._priced is None or time.monotonic() - self._priced[1] > EARLIER_S:
            self._priced = (await self._prices(), time.monotonic())
        return self._priced[0]

    async def _earlier_days(
        self, keys: list[GatewayKeyRecord], day: datetime, month: datetime, prices: Prices
    ) -> Mapping[str, Spent]:
        """The month's days before today, per key name: they change only by a late ledger write."""
        fresh = (
            self._earlier_of is not None
            and self._earlier_of[0] == day
            and time.monotonic() - self._earlier_of[1] <= EARLIER_S
            and all(key.name in self._earlier for key in keys)
        )
        if not fresh:
            since = {key.name: max(month, key.created_at) for key in keys if key.created_at < day}
            found = _sums(await self._db.usage.spend_of_callers(since, day), prices)
            self._earlier = {key.name: found.get(key.name, Spent()) for key in keys}
            self._earlier_of = (day, time.monotonic())
        return self._earlier


def _sums(rows: Iterable[CallerSpend], prices: Prices) -> dict[str, Spent]:
    """Per caller: tokens in and out, and dollars at the catalog's prices now (unknown prices apart)."""
    sums: dict[str, Spent] = {}
    for row in rows:
        cost = spend_cost(
            Spend(
                row.endpoint, row.served_id, "", None, row.calls, row.tokens_in, row.tokens_out, row.untallied
            ),
            prices,
        )
        part = Spent(row.tokens_in + row.tokens_out, cost or 0.0, row.calls if cost is None else 0)
        sums[row.caller] = sums.get(row.caller, Spent()).plus(part)
    return sums


def _log_failure(task: asyncio.Task[None]) -> None:
    if not task.cancelled() and task.exception() is not None:
        log.warning("could not read the gateway keys' spend", exc_info=task.exception())
