"""Issuing panel ids that this process never repeats.

A panel id is `p<YYYYmmdd-HHMMSS>-<4 hex>`, the shape clients already parse,
which leaves 65,536 ids a second: at a few hundred panels a second two random
tokens meet often. The issuer remembers the tokens of the current second and
draws again on a repeat. Given a slot (see `process_slot`), it draws only
tokens of that slot, so gateway processes sharing a machine never repeat each
other's; without one, the record's primary key catches the rare repeat.
"""

from __future__ import annotations

import secrets
from datetime import datetime

from panelgate.core.ids import panel_id

TOKENS_PER_SECOND = 16**4


class PanelIdIssuer:
    def __init__(self, slot: int | None = None, slots: int = 1) -> None:
        """Tokens `t` with `t % slots == slot`; every token when `slot` is None."""
        self._slot, self._slots = (slot, slots) if slot is not None else (0, 1)
        self._per_second = TOKENS_PER_SECOND // self._slots
        self._second = ""
        self._used: set[int] = set()

    def issue(self, now: datetime) -> str:
        second = now.strftime("%Y%m%d%H%M%S")
        if second != self._second:
            self._second, self._used = second, set()
        if len(self._used) >= self._per_second:
            raise RuntimeError(f"more than {self._per_second:,} panels in one second")
        while (drawn := secrets.randbelow(self._per_second)) in self._used:
            pass
        self._used.add(drawn)
        return panel_id(now, f"{drawn * self._slots + self._slot:04x}")
