"""Login tries counted per client address and overall, in the state every gateway process shares.

Each `POST /login` takes a ticket before the token is compared: first in its
address's count for this clock minute, then, if that is within the
per-address limit, in the count of all addresses. Counting first (one
atomic increment that returns the total) means processes racing each other
can never let more tries through than the limits, and nothing is read then
decided. An address over its own limit takes no ticket from the overall
count, so one address can never use up the others' tries (the admin logging
in from elsewhere); the overall limit is what caps an attacker who rotates
addresses. A right token is refused too while its window is full, and
accepted as soon as the next minute begins.

The counts are the per-minute counters gateway keys' rpm already uses
(`db.key_minutes`: the database, or Redis when configured), under counter
ids no key has: keys are numbered from 1, so the overall count is -1 and an
address is a negative number made from its digest. Two addresses sharing a
number (1 in 2^31) would only share a count. An IPv6 address counts as its
/64, the block one subscriber gets.
"""

from __future__ import annotations

import hashlib
import ipaddress
import math
import time

from panelgate.store.shared.protocols import KeyMinuteCounter

WINDOW_S = 60.0
OVERALL_ID = -1
_ADDRESS_IDS = 2**31 - 2
"""Address counters take ids -2 down to -(2^31 - 1): all within a 32-bit column, none a key's."""


class LoginThrottle:
    def __init__(self, per_address: int, overall: int) -> None:
        self._per_address = per_address
        self._overall = overall

    async def wait_s(self, counter: KeyMinuteCounter, address: str) -> int:
        """Take this try's ticket; the seconds to wait before trying again, 0 when it may go ahead."""
        now = time.time()
        window = int(now // WINDOW_S)
        wait = max(1, math.ceil((window + 1) * WINDOW_S - now))
        if await counter.count(address_id(address), window) > self._per_address:
            return wait
        if await counter.count(OVERALL_ID, window) > self._overall:
            return wait
        return 0


def address_id(address: str) -> int:
    """The counter id of a client address (of its /64 for IPv6)."""
    digest = hashlib.sha256(_counted(address).encode()).digest()
    return -2 - int.from_bytes(digest[:4], "big") % _ADDRESS_IDS


def _counted(address: str) -> str:
    try:
        parsed = ipaddress.ip_address(address)
    except ValueError:
        return address
    if isinstance(parsed, ipaddress.IPv6Address):
        if parsed.ipv4_mapped is not None:
            return str(parsed.ipv4_mapped)
        return str(ipaddress.IPv6Network((parsed, 64), strict=False))
    return str(parsed)
