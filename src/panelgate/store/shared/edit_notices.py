"""Tells every gateway process on the same Redis, at once, that someone edited the configuration.

Separate servers (a cluster's replicas) otherwise notice an edit only when
their cached bench is a second old and they ask the database's config
version, so the first requests after an edit could still see the old bench.
Every committed edit publishes a short notice on the bench's channel; each
process counts the notices of the others, and `Connections.config_generation`
moves with that count, so the next request on any replica re-reads the bench.
Redis delivers a notice to its listeners before it answers the edit's
publish, and the edit's reply goes out after that answer.

A notice is a hint, never the record: one that cannot be sent is logged and
left to the one-second check, and a listener that lost its connection counts
one notice when it is back, since it may have missed some.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets

from redis.exceptions import RedisError

from panelgate.store.shared.redis_link import RedisLink, SharedStateUnavailable

log = logging.getLogger(__name__)

QUIET_WAIT_S = 30.0
"""How long one wait for a notice lasts before the listener waits again (an idle channel is normal)."""
RETRY_AFTER_S = 1.0


class EditNotices:
    def __init__(self, link: RedisLink) -> None:
        self._link = link
        self._channel = link.key("config-edits")
        self._sender = secrets.token_hex(8).encode()
        self._pubsub = link.client.pubsub(ignore_subscribe_messages=True)
        self._listening: asyncio.Task[None] | None = None
        self.heard = 0
        """Notices of other processes' edits (and reconnections) heard so far."""

    async def start(self) -> None:
        """Subscribe before the process serves, so no edit made after it started goes unheard."""
        await self._link.run(self._pubsub.subscribe(self._channel))
        self._listening = asyncio.create_task(self._listen())

    async def announce(self) -> None:
        """Tell the others this process committed an edit."""
        try:
            await self._link.run(self._link.client.publish(self._channel, self._sender))
        except SharedStateUnavailable as exc:
            log.warning("could not tell the other gateway processes about an edit: %s", exc)

    async def _listen(self) -> None:
        lost = False
        while True:
            try:
                message = await self._pubsub.get_message(ignore_subscribe_messages=True, timeout=QUIET_WAIT_S)
            except (RedisError, OSError) as exc:
                if not lost:
                    log.warning(
                        "lost the notices of other processes' edits (%s); retrying", type(exc).__name__
                    )
                lost = True
                await asyncio.sleep(RETRY_AFTER_S)
                continue
            if lost:
                lost = False
                self.heard += 1  # notices sent while the connection was down are lost: re-read once
            if message is not None and message.get("data") != self._sender:
                self.heard += 1

    async def close(self) -> None:
        if self._listening is not None:
            self._listening.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._listening
        with contextlib.suppress(RedisError):
            await self._pubsub.aclose()  # type: ignore[no-untyped-call]  # redis-py leaves it untyped
