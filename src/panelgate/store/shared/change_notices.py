"""Tells every gateway process on the same Redis, at once, that the configuration or the record changed.

Separate servers (a cluster's replicas) keep copies of what every request
reads: the bench (collections, roster, limits) and the verdict counts the
explorer rule and route mode weigh. Without a notice another server sees an
edit only once its copy is a second old, and a verdict only after a few
seconds. Each committed edit and each verdict publishes a short notice on
the bench's channel; every process counts the notices of the others by kind,
and the copies compare those counts (`Connections.config_generation`,
`Connections.record_generation`) before each use. Redis hands a notice to
its listeners before it answers the publish, and the change's reply goes
out after that answer, so the next request on any replica sees the change.

A notice is a hint, never the record: one that cannot be sent is logged and
left to the copies' own expiry, and a listener that lost its connection
counts one notice of each kind when it is back, since it may have missed some.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
from typing import Literal

from redis.exceptions import RedisError

from panelgate.store.shared.redis_link import RedisLink
from panelgate.store.shared.unavailable import SharedStateUnavailable

log = logging.getLogger(__name__)

Change = Literal["config", "verdict"]
QUIET_WAIT_S = 30.0
"""How long one wait for a notice lasts before the listener waits again (an idle channel is normal)."""
RETRY_AFTER_S = 1.0


class ChangeNotices:
    def __init__(self, link: RedisLink) -> None:
        self._link = link
        self._channel = link.key("changes")
        self._sender = secrets.token_hex(8)
        self._pubsub = link.client.pubsub(ignore_subscribe_messages=True)
        self._listening: asyncio.Task[None] | None = None
        self.heard: dict[str, int] = {"config": 0, "verdict": 0}
        """Notices of other processes' changes heard so far, by kind (a reconnection counts one of each)."""

    async def start(self) -> None:
        """Subscribe before the process serves, so no change made after it started goes unheard."""
        await self._link.run(self._pubsub.subscribe(self._channel))
        self._listening = asyncio.create_task(self._listen())

    async def announce(self, change: Change) -> None:
        """Tell the others this process committed a change of this kind."""
        try:
            await self._link.run(self._link.client.publish(self._channel, f"{self._sender} {change}"))
        except SharedStateUnavailable as exc:
            log.warning("could not tell the other gateway processes about a %s change: %s", change, exc)

    async def _listen(self) -> None:
        lost = False
        while True:
            try:
                message = await self._pubsub.get_message(ignore_subscribe_messages=True, timeout=QUIET_WAIT_S)
            except (RedisError, OSError) as exc:
                if not lost:
                    log.warning("lost the other processes' change notices (%s); retrying", type(exc).__name__)
                lost = True
                await asyncio.sleep(RETRY_AFTER_S)
                continue
            if lost:
                lost = False
                for change in self.heard:  # notices sent while the connection was down are lost
                    self.heard[change] += 1
            if message is not None:
                self._count(message.get("data"))

    def _count(self, data: object) -> None:
        if not isinstance(data, bytes):
            return
        sender, _, change = data.decode(errors="replace").partition(" ")
        if sender != self._sender and change in self.heard:
            self.heard[change] += 1

    async def close(self) -> None:
        if self._listening is not None:
            self._listening.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._listening
        with contextlib.suppress(RedisError):
            await self._pubsub.aclose()  # type: ignore[no-untyped-call, unused-ignore]  # untyped before redis-py 8
