"""Health through the admin API: every model's status with why, and a probe a person asks for."""

from __future__ import annotations

from tests.http.helpers import ask, hello
from tests.support.gateway import Gateway
from tests.support.upstream import FakeUpstream


def health(gateway: Gateway) -> dict[str, dict]:
    return {m["alias"]: m for m in gateway.api("GET", "/api/health", expect=200)["models"]}


def test_models_never_called_are_untested(bench: Gateway) -> None:
    statuses = {alias: m["status"] for alias, m in health(bench).items()}
    assert statuses == dict.fromkeys(("m1", "m2", "m3"), "untested")


def test_a_probe_asked_for_is_sent_in_any_mode_and_noted_as_a_probe(bench: Gateway, upstream: FakeUpstream):
    probed = bench.api("POST", "/api/health/m1/probe", expect=200)
    probe = probed["probe"]
    assert (probe["probe"], probe["status"], probe["caller"]) == ("ready", "ok", "local")
    assert (probed["model"]["status"], probed["model"]["label"]) == ("healthy", "healthy")
    assert len(upstream.requests_for("m1")) == 1
    (row,) = bench.api("GET", "/api/usage")["recent"]
    assert (row["alias"], row["purpose"], row["status"]) == ("m1", "probe", "ok")


def test_a_failed_probe_says_why(bench: Gateway, upstream: FakeUpstream) -> None:
    upstream.behave("m2", status=404, error_message="The model `m2` does not exist")
    probed = bench.api("POST", "/api/health/m2/probe", expect=200)
    assert (probed["probe"]["status"], probed["probe"]["error_kind"]) == ("error", "structural")
    shown = bench.api("GET", "/api/health/m2", expect=200)
    assert shown["model"]["status"] == "not found"
    assert "not there" in shown["model"]["why"] and "one more call confirms it" in shown["model"]["why"]
    assert [p["error"] for p in shown["recent"]] == [probed["probe"]["error"]]


def test_a_seat_that_failed_shows_in_the_status(bench: Gateway, upstream: FakeUpstream) -> None:
    upstream.behave("m3", empty=True)
    ask(bench, hello())
    assert health(bench)["m3"]["status"] == "empty reply"
    assert health(bench)["m1"]["status"] == "healthy"


def test_probing_an_unknown_or_retired_model_is_refused(bench: Gateway, upstream: FakeUpstream) -> None:
    assert "no model `zz`" in bench.api("POST", "/api/health/zz/probe")["error"]["message"]
    bench.api("POST", "/api/models/m1/retire", {"why": "testing"}, expect=200)
    refused = bench.api("POST", "/api/health/m1/probe")
    assert "retired" in refused["error"]["message"]
    assert health(bench)["m1"]["status"] == "retired"
    assert upstream.requests == []


def test_the_speed_and_capability_jobs_leave_their_measures(bench: Gateway, upstream: FakeUpstream) -> None:
    upstream.behave("m1", answer="391", usage=(50, 1), delay=0.01)
    bench.api("POST", "/api/scheduler/jobs/speed-test/run", expect=200)
    bench.api("POST", "/api/scheduler/jobs/capability-probe/run", expect=200)
    probes = {p["probe"]: p for p in health(bench)["m1"]["probes"]}
    assert sorted(probes) == ["reasoning", "speed-large", "speed-tiny", "tools"]
    large = probes["speed-large"]["measures"]
    assert large["answered"] == 3 and large["p95_s"] >= 0.01, "the upstream takes 10 ms"
    assert probes["reasoning"]["measures"]["correct"] is True
    assert probes["tools"]["measures"]["called"] is False
