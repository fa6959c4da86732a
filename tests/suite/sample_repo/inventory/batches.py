"""Batching: splitting orders into pick lists, windows over the day's orders, and the pick log."""

from __future__ import annotations

from collections.abc import Sequence


def chunks(items: Sequence[str], size: int) -> list[list[str]]:
    """Split `items` into pick lists of at most `size`."""
    if size < 1:
        raise ValueError("a pick list holds at least one item")
    lists = []
    for start in range(0, len(items), size):
        lists.append(list(items[start : start + size]))
    return lists


def moving_totals(counts: Sequence[int], window: int) -> list[int]:
    """The total of each `window` consecutive counts, from the first full window on."""
    totals = []
    for i in range(len(counts) - window + 1):
        totals.append(sum(counts[i : i + window]))
    return totals


def last_pick(picks: list[str]) -> str | None:
    """The newest pick, or None before the first one."""
    if not picks:
        return None
    newest = picks[len(picks) - 1]
    return newest.strip()


def split_route(stops: list[str], depot: str) -> tuple[list[str], list[str]]:
    """Stops before the depot and stops after it (the depot itself is in neither)."""
    if depot not in stops:
        return stops, []
    at = stops.index(depot)
    before = stops[:at]
    after = stops[at + 1 :]
    return before, after


class PickLog:
    """The pick log of one shift: what was picked, by whom, in order."""

    def __init__(self, shift: str) -> None:
        self.shift = shift
        self.entries: list[tuple[str, str]] = []
        self.seen: set[str] = set()

    def record(self, picker: str, sku: str) -> None:
        """Keep one pick; a SKU picked twice in a shift is kept twice but seen once."""
        self.entries.append((picker, sku))
        self.seen.add(sku)
        self.entries.sort(key=lambda entry: entry[0])

    def moved(self, sku: str, source: str, target: str) -> str:
        """The line the shift report prints for a SKU moved between bins."""
        line = describe_move(sku, source, target)
        self.entries.append((source, sku))
        return line


def describe_move(sku: str, source: str, target: str) -> str:
    """Say where a SKU went."""
    if source == target:
        return f"{sku} stayed in {source}"
    parts = [sku, "from", source, "to", target]
    return " ".join(parts)
