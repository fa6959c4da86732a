"""The seating clock: a re-read copy never forgets a seat this process recorded while it was read."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from panelgate.store.seating_clock import SeatingClock

T0 = datetime(2025, 3, 1, 12, 0, tzinfo=UTC)


def test_a_reread_keeps_seats_recorded_while_it_was_being_read():
    clock = SeatingClock()
    clock.replace({"alpha": T0, "beta": T0}, generation=1)
    clock.saw(["beta"], T0 + timedelta(seconds=5))  # recorded after the re-read began
    clock.refresh({"alpha": T0 + timedelta(seconds=3), "beta": T0, "gamma": T0}, generation=1)
    assert clock.current(1) == {
        "alpha": T0 + timedelta(seconds=3),
        "beta": T0 + timedelta(seconds=5),
        "gamma": T0,
    }


def test_after_an_edit_the_copy_must_be_read_again_and_a_late_reread_replaces_it_whole():
    clock = SeatingClock()
    clock.replace({"alpha": T0}, generation=1)
    assert clock.current(2) is None
    clock.replace({"first": T0}, generation=2)  # alpha was renamed `first`
    clock.refresh({"alpha": T0}, generation=1)  # a re-read begun before the rename
    assert clock.current(2) is None


def test_an_old_copy_is_still_served():
    clock = SeatingClock(max_age_s=0.0)
    clock.replace({"alpha": T0}, generation=1)
    assert clock.is_old()
    assert clock.current(1) == {"alpha": T0}
