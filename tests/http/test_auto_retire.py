"""Auto-retire (SPEC §8, issue 8), over real HTTP against the loopback upstream.

Each test arranges what the models answer, makes the calls a person's
clients would (a panel), then runs the `auto-retire` job by hand and checks
what a person would: the bench, the collections, the action-needed list,
and what the upstream was sent.
"""

from __future__ import annotations

from tests.http.helpers import ask, hello
from tests.support.gateway import Gateway
from tests.support.upstream import FakeUpstream


def auto_retire(gateway: Gateway) -> dict:
    run = gateway.api("POST", "/api/scheduler/jobs/auto-retire/run", expect=200)["run"]
    assert run["outcome"] == "ok", run
    return run


def retired(gateway: Gateway) -> list[str]:
    return [m["alias"] for m in gateway.api("GET", "/api/models?all=true")["models"] if m["retired_at"]]


def alerts(gateway: Gateway) -> list[dict]:
    return gateway.api("GET", "/api/alerts", expect=200)["alerts"]


def members(gateway: Gateway, collection: str = "core") -> list[str]:
    return gateway.api("GET", f"/api/collections/{collection}", expect=200)["collection"]["members"]


def test_a_structural_failure_confirmed_by_a_second_call_retires(bench: Gateway, upstream: FakeUpstream):
    upstream.behave("m1", status=404, error_message="The model `m1` does not exist")
    upstream.listed(["m1", "m2", "m3"])
    ask(bench, hello())
    run = auto_retire(bench)
    assert "retired m1" in run["detail"]
    assert retired(bench) == ["m1"]
    assert len(upstream.requests_for("m1")) == 2, "the seat, then one confirming call"
    model = bench.api("GET", "/api/models/m1")["model"]
    assert model["retired_by"] == "auto"
    assert model["restore"]["collections"] == [{"name": "core", "position": 0}]
    assert members(bench) == ["m2", "m3"]
    (alert,) = alerts(bench)
    assert (alert["kind"], alert["restore"]) == ("retired", "m1")
    assert "Restore puts it back" in alert["message"]


def test_a_single_failure_does_not_retire(bench: Gateway, upstream: FakeUpstream) -> None:
    upstream.behave("m1", status=404, fail_times=1)
    upstream.listed(["m1", "m2", "m3"])
    ask(bench, hello())
    auto_retire(bench)
    assert retired(bench) == []
    assert len(upstream.requests_for("m1")) == 2, "the confirming call answered"
    (m1,) = [m for m in bench.api("GET", "/api/health")["models"] if m["alias"] == "m1"]
    assert m1["status"] == "healthy"
    assert alerts(bench) == []


def test_rate_limits_never_retire(bench: Gateway, upstream: FakeUpstream) -> None:
    upstream.behave("m1", status=429, error_message="Rate limit reached")
    upstream.listed(["m1", "m2", "m3"])
    for _ in range(2):
        ask(bench, hello())
        auto_retire(bench)
    assert retired(bench) == []
    (m1,) = [m for m in bench.api("GET", "/api/health")["models"] if m["alias"] == "m1"]
    assert m1["status"] == "throttled"
    assert all(r.body["messages"][0]["content"] == "say hi" for r in upstream.requests_for("m1")), (
        "no confirming call for a rate limit"
    )


def test_every_model_of_a_connection_failing_raises_one_alert_and_retires_nothing(
    bench: Gateway, upstream: FakeUpstream
) -> None:
    for alias in ("m1", "m2", "m3"):
        upstream.behave(alias, status=404, error_message="no such model")
    upstream.listed(["m1", "m2", "m3"])
    ask(bench, hello())
    run = auto_retire(bench)
    assert retired(bench) == []
    assert "held (whole connection down): up" in run["detail"]
    (alert,) = alerts(bench)
    assert (alert["kind"], alert["subject"]) == ("connection", "up")
    assert "none was retired" in alert["message"]
    assert all(len(upstream.requests_for(alias)) == 1 for alias in ("m1", "m2", "m3")), "no confirming calls"
    auto_retire(bench)
    assert len(alerts(bench)) == 1, "still one alert the next day"


def test_restore_puts_the_model_back_into_the_collections_it_left(bench: Gateway, upstream: FakeUpstream):
    bench.save_collection("side", ["m3", "m1"])
    upstream.behave("m1", status=403, error_message="You are not allowed to use this model")
    upstream.listed(["m1", "m2", "m3"])
    ask(bench, hello())
    auto_retire(bench)
    assert retired(bench) == ["m1"]
    assert (members(bench), members(bench, "side")) == (["m2", "m3"], ["m3"])
    bench.api("POST", "/api/models/m1/restore", expect=200)
    assert members(bench) == ["m1", "m2", "m3"]
    assert members(bench, "side") == ["m3", "m1"]
    assert alerts(bench) == [], "the Restore answered the alert"
    (m1,) = [m for m in bench.api("GET", "/api/health")["models"] if m["alias"] == "m1"]
    assert m1["status"] == "untested", "evidence starts afresh after a restore"


def test_an_alert_can_be_dismissed(bench: Gateway, upstream: FakeUpstream) -> None:
    upstream.behave("m2", status=401, error_message="Incorrect API key provided")
    upstream.listed(["m1", "m2", "m3"])
    ask(bench, hello())
    auto_retire(bench)
    (alert,) = alerts(bench)
    assert (alert["kind"], alert["subject"]) == ("signin", "up")
    dismissed = bench.api("POST", f"/api/alerts/{alert['id']}/dismiss", expect=200)["alert"]
    assert dismissed["dismissed_by"] == "local"
    auto_retire(bench)
    assert alerts(bench) == []
    assert "no alert 999" in bench.api("POST", "/api/alerts/999/dismiss")["error"]["message"]
