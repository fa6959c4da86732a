"""Auto-retire over days, with the clock moved instead of waited for: evidence written at chosen times."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from panelgate.store.usage_book import UsageEntry

from .conftest import Live


def failure(
    live: Live, days_ago: float, kind: str | None, alias: str = "m1", at: datetime | None = None
) -> None:
    """A panel call to `alias` that failed `days_ago` days before the test's now (or `at`)."""
    live.db.usage.note(
        UsageEntry(
            at=at or live.clock() - timedelta(days=days_ago), endpoint="up", served_id=alias, alias=alias,
            caller="local", purpose="panel", call=None, status="error", error_kind=kind, attempts=1,
            tokens_in=None, tokens_out=None, tokens_reasoning=None, seconds=1.0,
        )
    )  # fmt: skip


async def status(live: Live, alias: str = "m1") -> str:
    (found,) = await live.health.report(alias)
    return found.health.label


async def retired(live: Live, alias: str = "m1") -> bool:
    model = await live.db.models.get(alias)
    return model is not None and model.retired


async def test_failing_on_three_distinct_days_retires(live: Live) -> None:
    failure(live, 0.9, "other")
    failure(live, 0.1, "other")
    assert await status(live) == "retiring in 1 day"
    await live.retirer.run()
    assert not await retired(live)
    live.clock.advance(days=1)
    failure(live, 0, "other")
    report = await live.retirer.run()
    assert [alias for alias, _ in report.retired] == ["m1"]
    model = await live.db.models.get("m1")
    assert model is not None and model.retired_by == "auto"
    assert model.retired_why.startswith("retired automatically: failed on 3 different days")
    core = await live.db.collections.get("core")
    assert core is not None and core.members == ("m2", "m3")


async def test_rate_limits_on_many_days_never_retire(live: Live) -> None:
    live.clock.advance(days=5)
    for day in range(5):
        failure(live, day, "capacity")
    await live.retirer.run()
    assert not await retired(live)
    assert await status(live) == "throttled"
    assert live.upstream.requests_for("m1") == [], "a rate limit is not confirmed by another call"


async def test_timeouts_within_seven_days_never_retire(live: Live) -> None:
    for hours in (20, 10, 1):
        failure(live, hours / 24, "timeout")
    await live.retirer.run()
    assert not await retired(live)
    assert await status(live) == "slow"


async def test_a_model_its_endpoint_stops_listing_retires_after_three_days(live: Live) -> None:
    live.upstream.listed(["m2", "m3"])
    await live.retirer.run()
    assert await status(live) == "retiring in 3 days"
    live.clock.advance(days=2)
    await live.retirer.run()
    assert not await retired(live)
    live.clock.advance(days=1)
    report = await live.retirer.run()
    assert [alias for alias, _ in report.retired] == ["m1"]
    assert "has not listed it" in report.retired[0][1]


async def test_a_model_listed_again_stops_counting_down(live: Live) -> None:
    live.upstream.listed(["m2", "m3"])
    await live.retirer.run()
    live.upstream.listed(["m1", "m2", "m3"])
    live.clock.advance(days=4)
    await live.retirer.run()
    assert not await retired(live)
    assert await status(live) == "untested"


async def test_a_restore_starts_the_evidence_afresh(live: Live) -> None:
    for _ in range(2):  # now, by the store's clock: a restore is stamped by it too
        failure(live, 0, "structural", at=datetime.now(UTC))
    await live.retirer.run()
    assert await retired(live)
    await live.db.models.restore("m1", actor="ops")
    report = await live.retirer.run()
    assert report.retired == []
    assert await status(live) == "untested"


async def test_the_action_needed_list_names_a_refused_key_once_per_endpoint(live: Live) -> None:
    failure(live, 0.2, "signin", "m1")
    failure(live, 0.1, "other", "m2")
    await live.retirer.run()
    (alert,) = await live.db.alerts.open()
    assert (alert.kind, alert.subject) == ("signin", "up")
    assert "m1" in alert.message and "new key" in alert.message
