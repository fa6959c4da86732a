"""The health rules: a model's status, and when auto-retire acts (SPEC §8)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from panelgate.core.health import Evidence, Outcome, RetirePlan, guard_connections, health_of, plan_for

NOW = datetime(2026, 3, 10, 12, 0, tzinfo=UTC)


def days_ago(days: float) -> datetime:
    return NOW - timedelta(days=days)


def failed(kind: str, days: float = 0, purpose: str = "panel") -> Outcome:
    return Outcome(days_ago(days), "error", kind, purpose)


def evidence(
    *failures: Outcome,
    answered: datetime | None = None,
    missing_since: datetime | None = None,
    reply_seconds: float | None = None,
) -> Evidence:
    ordered = tuple(sorted(failures, key=lambda f: f.at))
    latest = ordered[-1] if ordered else (Outcome(answered, "ok") if answered else None)
    return Evidence("m1", "up", answered, ordered, latest, missing_since, reply_seconds)


def test_one_structural_failure_asks_for_a_confirming_call() -> None:
    assert plan_for(evidence(failed("structural")), NOW).action == "confirm"


def test_a_structural_failure_confirmed_by_a_second_call_retires() -> None:
    plan = plan_for(evidence(failed("structural", 0.1), failed("structural", 0, "probe")), NOW)
    assert plan.action == "retire"
    assert "confirmed by a second call" in plan.why


def test_a_confirming_call_that_fails_differently_does_not_retire() -> None:
    assert plan_for(evidence(failed("entitlement", 0.1), failed("other")), NOW).action == "keep"


def test_rate_limits_never_retire_however_long_they_last() -> None:
    limited = evidence(*(failed("capacity", day) for day in range(12)))
    assert plan_for(limited, NOW).action == "keep"


def test_a_refused_key_never_retires() -> None:
    assert plan_for(evidence(*(failed("signin", day) for day in range(5))), NOW).action == "keep"


def test_failing_on_three_distinct_days_retires() -> None:
    plan = plan_for(evidence(failed("other", 2), failed("empty", 1), failed("other", 0)), NOW)
    assert plan.action == "retire" and "3 different days" in plan.why


def test_failures_on_two_days_count_down_to_the_third() -> None:
    plan = plan_for(evidence(failed("other", 1), failed("other", 0.5), failed("other", 0)), NOW)
    assert plan.action == "countdown"
    assert health_of(evidence(failed("other", 1), failed("other", 0)), plan, NOW).label == "retiring in 1 day"


def test_failures_on_one_day_show_what_went_wrong_not_a_countdown() -> None:
    one_day = evidence(failed("other", 0.1), failed("other", 0))
    plan = plan_for(one_day, NOW)
    assert plan.action == "keep"
    assert health_of(one_day, plan, NOW).status == "failing"


def test_timeouts_within_seven_days_never_retire() -> None:
    assert plan_for(evidence(*(failed("timeout", day) for day in range(6))), NOW).action == "keep"


def test_timeouts_with_no_answer_for_seven_days_retire() -> None:
    plan = plan_for(evidence(*(failed("timeout", day) for day in range(8))), NOW)
    assert plan.action == "retire" and "no answer for 7 days" in plan.why


def test_missing_from_the_listing_retires_after_three_days() -> None:
    assert plan_for(evidence(missing_since=days_ago(2)), NOW).action == "countdown"
    plan = plan_for(evidence(missing_since=days_ago(3)), NOW)
    assert plan.action == "retire" and "has not listed it" in plan.why


def test_missing_from_the_listing_but_answering_is_kept() -> None:
    assert plan_for(evidence(answered=days_ago(0.1), missing_since=days_ago(5)), NOW).action == "keep"


def test_every_model_of_a_connection_down_holds_every_plan() -> None:
    found = {
        alias: Evidence(alias, "up", failures=(failed("structural"),), latest=failed("structural"))
        for alias in ("m1", "m2", "m3")
    }
    plans = {alias: plan_for(e, NOW) for alias, e in found.items()}
    guarded = guard_connections(found, plans)
    assert guarded.down_connections == {"up": ("m1", "m2", "m3")}
    assert {plan.action for plan in guarded.plans.values()} == {"held"}


def test_one_model_answering_leaves_the_others_to_the_rules() -> None:
    found = {
        "m1": Evidence("m1", "up", failures=(failed("structural"),), latest=failed("structural")),
        "m2": Evidence("m2", "up", last_answer=NOW, latest=Outcome(NOW, "ok")),
    }
    guarded = guard_connections(found, {alias: plan_for(e, NOW) for alias, e in found.items()})
    assert guarded.down_connections == {}
    assert guarded.plans["m1"].action == "confirm"


def test_a_connection_of_one_model_is_not_guarded() -> None:
    found = {"m1": Evidence("m1", "solo", failures=(failed("structural"),), latest=failed("structural"))}
    assert guard_connections(found, {"m1": RetirePlan("confirm")}).plans["m1"].action == "confirm"


def test_status_follows_the_newest_call() -> None:
    keep = RetirePlan("keep")
    cases = {
        "capacity": "throttled",
        "timeout": "slow",
        "structural": "not found",
        "entitlement": "no access",
        "paywalled": "no access",
        "signin": "sign in again",
        "other": "failing",
    }
    for kind, status in cases.items():
        assert health_of(evidence(failed(kind)), keep, NOW).status == status, kind
    assert health_of(evidence(Outcome(NOW, "empty")), keep, NOW).status == "empty reply"
    assert health_of(evidence(answered=NOW), keep, NOW).status == "healthy"
    assert health_of(Evidence("m1", "up"), keep, NOW).status == "untested"
    assert health_of(evidence(answered=NOW, reply_seconds=45.0), keep, NOW).status == "slow"
    assert health_of(Evidence("m1", "up"), keep, NOW, retired_why="gone").status == "retired"
