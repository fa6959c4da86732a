"""Checks of the stock module (seeding passes over a repository's tests)."""

from inventory.stock import Shelf


def check_available_never_goes_negative() -> None:
    shelf = Shelf("a-1", on_hand=1, reserved=3)
    assert shelf.available() == 0
    assert shelf.available() >= 0
    assert shelf.available() < 1
