"""Learning from refusals: an upstream that says a model's window is smaller than we thought.

The usage ledger tells the learner the words of every upstream call that
failed (wired in the app); the learner reads them (`error_words`) and, when
they state a ceiling, notes it for every model served as that id on that
endpoint, only ever lower, with the words as evidence. The note is written
in a task of its own so the failing call's path never waits on the store;
`settled` lets a reader in this process see every note it has heard.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from datetime import UTC, datetime

from panelgate.catalog.error_words import stated_limits
from panelgate.store.fact_book import FactBook

log = logging.getLogger(__name__)


def _utcnow() -> datetime:
    return datetime.now(UTC)


class Learner:
    def __init__(self, facts: FactBook, now: Callable[[], datetime] = _utcnow) -> None:
        self._facts = facts
        self._now = now
        self._pending: set[asyncio.Task[None]] = set()

    def hear(self, endpoint: str, served_id: str, words: str) -> None:
        """A call to `served_id` on `endpoint` failed saying `words`."""
        limits = stated_limits(words)
        if not limits:
            return
        task = asyncio.get_running_loop().create_task(self._learn(endpoint, served_id, limits, words))
        self._pending.add(task)
        task.add_done_callback(self._pending.discard)

    async def _learn(self, endpoint: str, served_id: str, limits: dict[str, int], words: str) -> None:
        try:
            for fact, value in limits.items():
                learned = await self._facts.learn(endpoint, served_id, fact, value, words, self._now())
                if learned:
                    log.info("learned %s %s of %s from a refusal", fact, value, ", ".join(learned))
        except Exception:  # a lesson missed is not worth a failure anywhere else
            log.warning("could not note what a refusal said of %s on %s", served_id, endpoint, exc_info=True)

    async def settled(self) -> None:
        """Return once every note heard so far is written."""
        while self._pending:
            await asyncio.gather(*list(self._pending), return_exceptions=True)
