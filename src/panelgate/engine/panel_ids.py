"""Issuing panel ids that this process never repeats.

A panel id is `p<YYYYmmdd-HHMMSS>-<4 hex>`, the shape clients already parse,
which leaves 65,536 ids a second: at a few hundred panels a second two random
tokens meet often. The issuer remembers the tokens of the current second and
draws again on a repeat (the record's primary key catches the rare repeat
from another gateway process).
"""

from __future__ import annotations

import secrets
from datetime import datetime

from panelgate.core.ids import panel_id

TOKENS_PER_SECOND = 16**4


class PanelIdIssuer:
    def __init__(self) -> None:
        self._second = ""
        self._used: set[str] = set()

    def issue(self, now: datetime) -> str:
        second = now.strftime("%Y%m%d%H%M%S")
        if second != self._second:
            self._second, self._used = second, set()
        if len(self._used) >= TOKENS_PER_SECOND:
            raise RuntimeError("more than 65,536 panels in one second")
        while (token := secrets.token_hex(2)) in self._used:
            pass
        self._used.add(token)
        return panel_id(now, token)
