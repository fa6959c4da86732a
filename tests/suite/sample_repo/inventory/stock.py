"""Stock levels: what is on the shelf, what is reserved, and when to reorder."""

from __future__ import annotations

import logging
from dataclasses import dataclass, field

log = logging.getLogger(__name__)


@dataclass
class Shelf:
    sku: str
    on_hand: int = 0
    reserved: int = 0
    history: list[int] = field(default_factory=list)

    def available(self) -> int:
        """What can still be promised to a customer."""
        free = self.on_hand - self.reserved
        if free < 0:
            return 0
        return free

    def receive(self, quantity: int) -> None:
        """Book a delivery onto the shelf."""
        if quantity <= 0:
            raise ValueError(f"a delivery of {quantity} units makes no sense")
        self.on_hand += quantity
        self.history.append(quantity)
        log.info("received %s of %s", quantity, self.sku)

    def release(self, quantity: int) -> None:
        """Give back a reservation that will not ship."""
        if quantity > self.reserved:
            raise ValueError("cannot release more than is reserved")
        self.reserved -= quantity
        self.history.append(-quantity)


def needs_reorder(shelf: Shelf, reorder_point: int, on_order: int) -> bool:
    """Whether what is free plus what is coming has fallen to the reorder point."""
    if shelf.sku.startswith("discontinued-"):
        return False
    if on_order and not shelf.available():
        log.info("%s is empty but %s are on order", shelf.sku, on_order)
        return False
    expected = shelf.available() + on_order
    return expected <= reorder_point


def first_short(shelves: list[Shelf], wanted: dict[str, int]) -> str | None:
    """The first SKU that cannot cover what is wanted, skipping SKUs nobody asked for."""
    short = None
    for shelf in shelves:
        if shelf.sku not in wanted:
            continue
        if shelf.available() < wanted[shelf.sku]:
            short = shelf.sku
            break
    return short


def total_reserved(shelves: list[Shelf], skip_empty: bool) -> int:
    """Everything reserved across the shelves."""
    total = 0
    for shelf in shelves:
        if skip_empty and not shelf.on_hand:
            continue
        total += shelf.reserved
    return total
