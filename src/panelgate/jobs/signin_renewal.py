"""`signin-renewal`: every gateway process looks every half minute for sign-in tokens about to expire.

Not a scheduled job of the runner: those run at most daily, only while
the scheduler is on (it starts off), and a token lives about an hour.
Renewal keeps working the endpoints a person signed in to, in every
scheduler mode, and the claim each renewal takes in the database
(`connect.Renewer`) makes the looking cheap and the renewing happen once
across the cluster, whichever process looks first.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator

from panelgate.connect import Renewer

log = logging.getLogger(__name__)

EVERY_S = 30.0


class RenewalLoop:
    def __init__(self, renewer: Renewer, every_s: float = EVERY_S) -> None:
        self._renewer = renewer
        self._every_s = every_s

    @contextlib.asynccontextmanager
    async def running(self) -> AsyncIterator[None]:
        """Look in the background while the block runs."""
        loop = asyncio.create_task(self._loop(), name="signin renewal")
        try:
            yield
        finally:
            loop.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await loop

    async def _loop(self) -> None:
        while True:
            try:
                report = await self._renewer.renew_due()
                if report.renewed or report.failed or report.dropped:
                    log.info("sign-in renewal: %s", report.summary())
            except Exception:  # the next look tries again
                log.warning("looking for sign-ins to renew failed", exc_info=True)
            await asyncio.sleep(self._every_s)
