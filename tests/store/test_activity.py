"""The last day hour by hour from the store: panels and turns, seats, upstream calls, verdicts."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from panelgate.core.latency_bands import BOUNDS, percentile
from panelgate.store import Database, PanelRecord, SeatRecord
from panelgate.store.activity import (
    CallCount,
    VerdictCount,
    seat_counts,
    traffic,
    upstream_calls,
    verdicts_recorded,
)
from panelgate.store.activity_hours import Hours
from panelgate.store.records import TurnRecord
from panelgate.store.usage_book import UsageEntry

NOW = datetime(2025, 3, 2, 12, 30, tzinfo=UTC)
HOURS = Hours.ending(NOW)
KINDS = ("timeout", "capacity", "other")


def ago(hours: float) -> datetime:
    return NOW - timedelta(hours=hours)


async def panel(db: Database, name: str, at: datetime, *seats: tuple[str, str, float, str]) -> list[str]:
    """A panel at `at` with seats (alias, status, seconds, error line)."""
    records = [
        SeatRecord(
            call=f"{name}.member{n + 1}",
            panel=name,
            position=n,
            label="member",
            kind="member",
            alias=alias,
            status=status,  # type: ignore[arg-type]
            seconds=seconds,
            answer="an answer" if status == "ok" else "",
            error=error,
        )
        for n, (alias, status, seconds, error) in enumerate(seats)
    ]
    await db.panels.record(PanelRecord(name, "core", at, "general", "collection", "all"), records)
    return [seat.call for seat in records]


async def turn(
    db: Database, number: int, at: datetime, alias: str, *failed: str, purpose: str = "turn"
) -> None:
    tried = tuple({"alias": name, "error": "capacity: slow down"} for name in failed)
    record = TurnRecord(
        call=f"r-{number}.turn1",
        conversation=f"r-{number}",
        turn=1,
        at=at,
        collection="agents",
        caller="local",
        alias=alias,
        status="ok" if alias else "error",
        seconds=1.0,
        tried=tried,
        purpose=purpose,
    )
    await db.routes.record_turn(record, None, model_id=None)


def call(
    at: datetime, served_id: str, status: str = "ok", tokens: tuple[int, int] | None = (10, 5)
) -> UsageEntry:
    tokens_in, tokens_out = tokens if tokens is not None else (None, None)
    return UsageEntry(
        at=at,
        endpoint="local",
        served_id=served_id,
        alias=served_id,
        caller="local",
        purpose="panel",
        call=None,
        status=status,
        error_kind="timeout" if status == "error" else None,
        attempts=1,
        tokens_in=tokens_in,
        tokens_out=tokens_out,
        tokens_reasoning=None,
        seconds=1.0,
    )


def test_the_hours_end_with_the_one_now_is_in_and_start_less_than_a_day_ago() -> None:
    assert len(HOURS.starts) == 24
    assert HOURS.starts[-1] == datetime(2025, 3, 2, 12, tzinfo=UTC)
    assert HOURS.since == datetime(2025, 3, 1, 13, tzinfo=UTC) > NOW - timedelta(days=1)
    assert HOURS.until == datetime(2025, 3, 2, 13, tzinfo=UTC)


async def test_panels_and_route_turns_fall_in_their_hour_and_nothing_older_than_the_day_counts(
    bench: Database,
) -> None:
    await panel(bench, "p-old", ago(24), ("alpha", "ok", 1.0, ""))
    await panel(bench, "p-first", ago(23.4), ("alpha", "ok", 1.0, ""))
    await panel(bench, "p-a", ago(0.1), ("alpha", "ok", 1.0, ""))
    await panel(bench, "p-b", ago(0.2), ("beta", "ok", 1.0, ""))
    await turn(bench, 1, ago(2), "alpha")
    await turn(bench, 2, ago(2), "beta", "alpha")  # alpha failed, beta answered: one failover
    await turn(bench, 3, ago(2), "", "alpha", "beta")  # both failed: one failover, then nobody was left
    await turn(bench, 4, ago(2), "gamma", purpose="shadow")  # a shadow is not a caller's turn
    await turn(bench, 5, ago(30), "alpha", "beta")
    found = await traffic(bench, HOURS)
    assert (found.panels[0], found.panels[23], sum(found.panels)) == (1, 2, 3)
    assert (found.route_turns[21], sum(found.route_turns)) == (3, 3)
    assert (found.failovers[21], sum(found.failovers)) == (2, 2)


async def test_seats_are_counted_by_status_and_the_kind_their_error_opens_with(bench: Database) -> None:
    await panel(
        bench,
        "p1",
        ago(1),
        ("alpha", "ok", 1.0, ""),
        ("beta", "error", 5.0, "timeout: nothing within 5s"),
        ("gamma", "error", 0.0, "its endpoint is not configured any more"),
    )
    await panel(
        bench, "p2", ago(1), ("alpha", "empty", 1.0, ""), ("beta", "error", 0.1, "capacity: not sent")
    )
    await panel(bench, "p-old", ago(25), ("alpha", "error", 1.0, "timeout: too slow"))
    found = sorted(await seat_counts(bench, HOURS, KINDS), key=lambda c: (c.status, c.kind))
    assert [(c.hour, c.status, c.kind, c.seats) for c in found] == [
        (22, "empty", "", 1),
        (22, "error", "capacity", 1),
        (22, "error", "gateway", 1),
        (22, "error", "timeout", 1),
        (22, "ok", "", 1),
    ]


async def test_seat_times_are_counted_in_bands_that_give_back_their_median(bench: Database) -> None:
    times = [0.2, 0.4, 0.9, 1.1, 1.2, 2.5, 40.0]
    await panel(bench, "p1", ago(3), *((f"m{n}", "ok", seconds, "") for n, seconds in enumerate(times)))
    await panel(bench, "p-old", ago(26), ("alpha", "ok", 0.2, ""))
    bands = [[0] * (len(BOUNDS) + 1) for _ in HOURS.starts]
    for count in await seat_counts(bench, HOURS, KINDS):
        bands[count.hour][count.band] += count.seats
    assert [sum(hour) for hour in bands] == [0] * 20 + [7, 0, 0, 0]
    assert [BOUNDS[index] for index, n in enumerate(bands[20]) if n] == [0.25, 0.5, 1, 1.5, 3, 40]
    median = percentile(bands[20], 0.5)
    assert median is not None and 1.0 <= median <= 1.5  # the band 1.1 s fell in
    slowest = percentile(bands[20], 0.95)
    assert slowest is not None and BOUNDS[BOUNDS.index(30) + 1] >= slowest > 30  # the band of 40 s


async def test_upstream_calls_are_summed_per_hour_and_served_id_with_failures_and_tokens(
    bench: Database,
) -> None:
    for entry in (
        call(ago(0.1), "org/alpha-7b"),
        call(ago(0.2), "org/alpha-7b", tokens=None),
        call(ago(0.3), "org/beta-7b", status="error", tokens=None),
        call(ago(1.5), "org/beta-7b", tokens=(100, 50)),  # 11:00, the first moment of its hour
        call(ago(24.5), "org/beta-7b", tokens=(1000, 500)),
    ):
        bench.usage.note(entry)  # not flushed yet: the reading writes what is pending first
    found = sorted(await upstream_calls(bench, HOURS), key=lambda c: (c.hour, c.served_id))
    assert found == [
        CallCount(22, "local", "org/beta-7b", calls=1, errors=0, tokens_in=100, tokens_out=50, untallied=0),
        CallCount(23, "local", "org/alpha-7b", calls=2, errors=0, tokens_in=10, tokens_out=5, untallied=1),
        CallCount(23, "local", "org/beta-7b", calls=1, errors=1, tokens_in=0, tokens_out=0, untallied=0),
    ]


async def test_every_verdict_recorded_counts_in_its_hour_even_one_that_superseded_another(
    bench: Database,
) -> None:
    now = datetime.now(UTC)  # verdicts are stamped with the clock
    calls = await panel(
        bench, "p1", now - timedelta(minutes=1), ("alpha", "ok", 1.0, ""), ("beta", "ok", 1.0, "")
    )
    await bench.verdicts.record(calls[0], useful=True, actor="t")
    await bench.verdicts.record(calls[0], useful=False, actor="t")
    await bench.verdicts.record(calls[1], useful=True, actor="t")
    await bench.verdicts.record(calls[1], useful=True, actor="t")  # the same again: nothing recorded
    found = sorted(await verdicts_recorded(bench, Hours.ending(now)), key=lambda c: c.useful)
    assert found == [VerdictCount(23, False, 1), VerdictCount(23, True, 2)]
    assert await verdicts_recorded(bench, Hours.ending(now + timedelta(days=1, hours=1))) == []


@pytest.mark.parametrize("share", [0.5, 0.95])
def test_no_seats_have_no_percentile(share: float) -> None:
    assert percentile([0] * (len(BOUNDS) + 1), share) is None
