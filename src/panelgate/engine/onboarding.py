"""The onboarding queue: models a person asked for, brought onto the bench one at a time.

Every gateway process runs a small loop (`running()`, from the app's
lifespan, whatever the scheduler's mode: a person asked for this); the
one holding the queue's lease in the database works it, one item at a
time, oldest first. A process that took a request wakes its own loop at
once; the others look every `poll_s` seconds.

While an item is worked the lease is renewed every `renew_s` seconds, and
every write about the item checks it is still held, so two processes never
work the queue at once: if a stalled process finds its lease taken, it
stops. On a clean shutdown the item being worked is left where it stood and
the lease let go, so the next process (or the same one, restarted) resumes
it at once; after a crash the lease runs out first (`lease_s`). How an item
resumes is `onboarding_steps`' business.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
from collections.abc import AsyncIterator, Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime

from panelgate.engine.onboarding_batch import check_batch
from panelgate.engine.onboarding_candidates import Candidates, find_candidates
from panelgate.engine.onboarding_steps import OnboardingSteps
from panelgate.engine.onboarding_suite import SuiteChoice, SuiteRunner
from panelgate.store import Database
from panelgate.store.errors import Invalid
from panelgate.store.onboarding_book import Lease, LeaseLost, NewItem, OnboardingItem
from panelgate.upstream import UpstreamClient

log = logging.getLogger(__name__)

POLL_S = 2.0
RENEW_S = 2.0
LEASE_S = 10.0


def utcnow() -> datetime:
    return datetime.now(UTC)


@dataclass(frozen=True)
class QueueView:
    items: list[OnboardingItem]
    lease: Lease | None
    holder: str
    """This process's name as a lease holder (the scheduler's: one name per gateway process)."""


class OnboardingQueue:
    def __init__(
        self,
        db: Database,
        client: UpstreamClient,
        *,
        holder: str,
        run_suite: SuiteRunner,
        now: Callable[[], datetime] = utcnow,
        poll_s: float = POLL_S,
        renew_s: float = RENEW_S,
        lease_s: float = LEASE_S,
    ) -> None:
        self._db = db
        self._client = client
        self._steps = OnboardingSteps(db, client, run_suite, now)
        self._now = now
        self.holder = holder
        self._poll_s = poll_s
        self._renew_s = renew_s
        self._lease_s = lease_s
        self._wake = asyncio.Event()
        self._held = False

    # ---- what a person asks ------------------------------------------------------------

    async def enqueue(
        self, items: Sequence[NewItem], *, suite: SuiteChoice, probe_deadline_s: float, asked_by: str
    ) -> list[OnboardingItem]:
        """Check the batch (all or nothing), queue it, and wake the worker; the queued items."""
        await check_batch(self._db, self._client, items)
        queued = await self._db.onboarding.enqueue(
            items,
            batch=secrets.token_hex(4),
            suite=suite,
            probe_deadline_s=probe_deadline_s,
            asked_by=asked_by,
            now=self._now(),
        )
        self._wake.set()
        return queued

    async def stop(self, actor: str) -> tuple[int, int]:
        """Items not begun end `stopped`; the one being worked stops after its current call."""
        return await self._db.onboarding.stop(actor, self._now())

    async def clear(self) -> int:
        return await self._db.onboarding.clear()

    async def view(self, batch: str | None = None) -> QueueView:
        items = await self._db.onboarding.items(batch)
        return QueueView(items, await self._db.onboarding.lease(), self.holder)

    async def candidates(self, endpoint: str | None = None) -> Candidates:
        return await find_candidates(self._db, self._client, endpoint)

    async def dismiss(self, endpoint: str, served_ids: Sequence[str], actor: str) -> list[str]:
        await self._require_endpoint(endpoint)
        return await self._db.onboarding.dismiss(endpoint, served_ids, actor, self._now())

    async def undismiss(self, endpoint: str, served_ids: Sequence[str], actor: str) -> list[str]:
        await self._require_endpoint(endpoint)
        return await self._db.onboarding.undismiss(endpoint, served_ids, actor)

    async def _require_endpoint(self, name: str) -> None:
        if await self._db.endpoints.get(name) is None:
            known = ", ".join(e.name for e in await self._db.endpoints.list()) or "none yet"
            raise Invalid(f"no endpoint named `{name}`; endpoints: {known}", field="endpoint")

    # ---- the worker ----------------------------------------------------------------------

    @contextlib.asynccontextmanager
    async def running(self) -> AsyncIterator[None]:
        """Work the queue in the background while the block runs; then let the lease go."""
        loop = asyncio.create_task(self._loop(), name=f"onboarding {self.holder}")
        try:
            yield
        finally:
            loop.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await loop
            if self._held:
                with contextlib.suppress(Exception):
                    await self._db.onboarding.release_lease(self.holder, self._now())

    async def _loop(self) -> None:
        while True:
            self._wake.clear()
            try:
                await self.work_queue()
            except Exception:  # the next round tries again; an item that keeps failing ends (MAX_STARTS)
                log.warning("the onboarding queue's worker failed", exc_info=True)
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._wake.wait(), self._poll_s)

    async def work_queue(self) -> int:
        """Work items while there are any and this process holds the lease; how many it ended."""
        ended = 0
        book = self._db.onboarding
        while await book.next_item() is not None:
            self._held = await book.take_lease(self.holder, self._now(), self._lease_s)
            if not self._held:
                return ended
            item = await book.next_item()  # again, now that this process holds the queue
            if item is None:
                break
            try:
                await self._work_holding(item)
            except LeaseLost:
                log.warning("another gateway process took the onboarding queue over from %s", self.holder)
                self._held = False
                return ended
            ended += 1
        if self._held:
            await book.release_lease(self.holder, self._now())
            self._held = False
        return ended

    async def _work_holding(self, item: OnboardingItem) -> None:
        """Work one item, renewing the lease as it goes; a lease lost stops the work."""
        begun = await self._db.onboarding.begin(item.id, self.holder, self._now())
        work = asyncio.create_task(self._steps.work(begun, self.holder), name=f"onboarding item {item.id}")
        try:
            while not work.done():
                await asyncio.wait({work}, timeout=self._renew_s)
                if not work.done() and not await self._db.onboarding.take_lease(
                    self.holder, self._now(), self._lease_s
                ):
                    raise LeaseLost(f"{self.holder} could not renew the onboarding queue's lease")
            work.result()
        finally:
            if not work.done():
                work.cancel()
                with contextlib.suppress(asyncio.CancelledError, LeaseLost):
                    await work
