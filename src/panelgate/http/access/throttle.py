"""Failed logins counted per client address: a few a minute, then wait.

Kept in this process's memory (a login is a person at a browser, and one
process answers a given browser's connection); the table forgets addresses
whose failures are all older than the window, so it cannot grow without bound.
"""

from __future__ import annotations

import time
from collections import deque

WINDOW_S = 60.0


class LoginThrottle:
    def __init__(self, per_minute: int) -> None:
        self._per_minute = per_minute
        self._failures: dict[str, deque[float]] = {}

    def wait_s(self, address: str, now: float | None = None) -> float:
        """Seconds before `address` may try again; 0 when it may now."""
        now = time.monotonic() if now is None else now
        failures = self._recent(address, now) if address in self._failures else deque()
        if len(failures) < self._per_minute:
            return 0.0
        return max(0.0, failures[0] + WINDOW_S - now)

    def failed(self, address: str, now: float | None = None) -> None:
        now = time.monotonic() if now is None else now
        self._recent(address, now).append(now)
        if len(self._failures) > 10_000:
            self._forget_old(now)

    def succeeded(self, address: str) -> None:
        self._failures.pop(address, None)

    def _recent(self, address: str, now: float) -> deque[float]:
        failures = self._failures.setdefault(address, deque())
        while failures and failures[0] <= now - WINDOW_S:
            failures.popleft()
        return failures

    def _forget_old(self, now: float) -> None:
        for address in [a for a, f in self._failures.items() if not f or f[-1] <= now - WINDOW_S]:
            del self._failures[address]
