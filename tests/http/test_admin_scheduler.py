"""The scheduler through the admin API: off on a fresh install, modes and switches audited, one runner
between gateway processes, and a job run by hand."""

from __future__ import annotations

from tests.support.gateway import Gateway
from tests.support.upstream import FakeUpstream

JOBS = ["daily-probe", "speed-test", "capability-probe", "auto-retire", "catalog-refresh", "suite-pass"]


def scheduler(gateway: Gateway) -> dict:
    return gateway.api("GET", "/api/scheduler", expect=200)


def test_a_fresh_install_is_off_with_every_job_on_and_nothing_due(gateway: Gateway) -> None:
    shown = scheduler(gateway)
    assert (shown["mode"], shown["runner"]) == ("off", None)
    assert [job["name"] for job in shown["jobs"]] == JOBS
    assert all(job["enabled"] and not job["next_due"] and not job["last_run"] for job in shown["jobs"])
    assert shown["jobs"][0]["schedule"] == "daily at 05:00 UTC"


def test_log_only_takes_the_lease_sends_nothing_and_is_audited(bench: Gateway, upstream: FakeUpstream):
    change = {"mode": "log-only", "jobs": {"speed-test": False}}
    shown = bench.api("PATCH", "/api/scheduler", change, expect=200)
    assert shown["mode"] == "log-only"
    assert [job["enabled"] for job in shown["jobs"]] == [True, False] + [True] * (len(JOBS) - 2)
    assert all(job["next_due"] for job in shown["jobs"] if job["enabled"])
    assert shown["runner"] is not None and shown["runner"]["here"] is True, "the change applied at once"
    assert upstream.requests == []
    (change,) = bench.api("GET", "/api/audit?entity=scheduler")["changes"]
    assert change["after"] == {"mode": "log-only", "job:speed-test": False}


def test_two_gateway_processes_share_one_runner(bench: Gateway, upstream: FakeUpstream) -> None:
    bench.api("PATCH", "/api/scheduler", {"mode": "log-only"}, expect=200)
    other = bench.sibling().start()
    try:
        other.api(
            "PATCH", "/api/scheduler", {"jobs": {"auto-retire": True}}, expect=200
        )  # it ticks, and finds the lease taken
        mine, theirs = scheduler(bench)["runner"], scheduler(other)["runner"]
    finally:
        other.close()
    assert mine["holder"] == theirs["holder"]
    assert (mine["here"], theirs["here"]) == (True, False)


def test_changes_are_checked(gateway: Gateway) -> None:
    def refused_field(change: dict) -> str:
        return gateway.api("PATCH", "/api/scheduler", change)["error"]["field"]

    assert refused_field({"mode": "sometimes"}) == "mode"
    assert refused_field({"jobs": {"nightly": True}}) == "jobs"
    assert refused_field({"jobs": {"daily-probe": "yes"}}) == "jobs"
    assert refused_field({"when": "now"}) == "when"
    assert scheduler(gateway)["mode"] == "off"


def test_a_person_runs_a_job_now_in_any_mode(bench: Gateway, upstream: FakeUpstream) -> None:
    run = bench.api("POST", "/api/scheduler/jobs/daily-probe/run", expect=200)["run"]
    assert (run["job"], run["outcome"], run["asked_by"], run["mode"]) == ("daily-probe", "ok", "local", "off")
    assert sorted(r.model for r in upstream.requests) == ["m1", "m2", "m3"]
    (listed,) = bench.api("GET", "/api/scheduler/runs?job=daily-probe", expect=200)["runs"]
    assert listed == run
    assert scheduler(bench)["jobs"][0]["last_run"] == run
    usage = bench.api("GET", "/api/usage")["recent"]
    assert sorted((row["alias"], row["purpose"]) for row in usage) == [
        (m, "probe") for m in ("m1", "m2", "m3")
    ]


def test_an_unknown_job_is_not_found(gateway: Gateway) -> None:
    refused = gateway.api("POST", "/api/scheduler/jobs/nightly/run")
    assert "there is no job `nightly`" in refused["error"]["message"]
