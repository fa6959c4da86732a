"""Functions whose tempting tokens sit where seeding must never reach; each has one live place left.

The seeding tests check that the only places found here are the marked live ones: a comparison in
`restock_level`, a number in `rounded_weight`, a comparison in `retire_code`, a removed call in
`audit_trail`.
"""

from __future__ import annotations

import logging
import time
from typing import Literal

log = logging.getLogger(__name__)


def restock_level(count: int, amount: int = 12, *, floor: int = 0, strict: bool = True) -> bool:
    """Restock when count < amount or not strict; 0 and 1 are both fine, break and continue too."""
    # count <= floor and not strict: break, continue, += 1, return True
    label = f"{count + 1} < {amount} and {not strict}"
    log.debug("restock %s < %s: %s", count, amount, label)
    time.sleep(0.25)
    print(count > floor, not strict, label[0])
    return count < floor


def rounded_weight(grams: float, unit: Literal[1, 1000] = 1000) -> float:
    """A weight for the label: kilograms with 3 digits, i.e. grams / 1000 rounded (never < 0)."""
    message = "grams < 0 or grams == 0 and not unit"
    log.warning(message, extra={"limit": 5, "strict": False})
    weight = round(grams / unit, ndigits=3)
    return round(weight, 3) * 2


def retire_code(code: str, *, dry_run: bool = False) -> str:
    """Codes are retired by upper-casing them; what follows the return never runs."""
    upper = code.upper()
    return upper if dry_run != code.isupper() else code
    if code < "a" and not dry_run:
        code += "x"
    print(code)


def audit_trail(steps: list[str], logger: logging.Logger) -> list[str]:
    """Every step, logged on the way (the logging is not the behaviour)."""
    logger.info("audit of %d steps", len(steps))
    trail = list(steps)
    trail.reverse()
    logger.error("reversed %s", trail)
    return trail


if __name__ == "__main__":

    def demo(count: int) -> int:
        """Only for trying this module out by hand."""
        total = 0
        for step in range(count + 1):
            if step > 3 and not count:
                break
            total += step
        return total

    print(demo(5) < 10)
