"""`panelgate scheduler`: show it, change the mode, switch jobs, run one now."""

from __future__ import annotations

import json

from tests.cli.runner import panelgate
from tests.support.gateway import Gateway
from tests.support.upstream import FakeUpstream


def test_show_lists_every_job_and_the_mode(gateway: Gateway) -> None:
    run = panelgate("scheduler", "show", url=gateway.url)
    assert run.returncode == 0, run.stderr
    assert "mode" in run.stdout and "off" in run.stdout
    for job in ("daily-probe", "speed-test", "capability-probe", "auto-retire"):
        assert job in run.stdout


def test_mode_and_switches_change_through_the_api(gateway: Gateway) -> None:
    assert panelgate("scheduler", "mode", "log-only", url=gateway.url).returncode == 0
    assert panelgate("scheduler", "off", "speed-test", url=gateway.url).returncode == 0
    shown = gateway.api("GET", "/api/scheduler", expect=200)
    assert shown["mode"] == "log-only"
    assert [job["enabled"] for job in shown["jobs"]] == [True, False] + [True] * (len(shown["jobs"]) - 2)
    bad = panelgate("scheduler", "mode", "often", url=gateway.url)
    assert bad.returncode == 2


def test_an_unknown_job_is_refused_with_the_servers_reason(gateway: Gateway) -> None:
    run = panelgate("scheduler", "on", "nightly", url=gateway.url)
    assert run.returncode == 1 and "there is no job `nightly`" in run.stderr


def test_run_runs_a_job_now_and_says_how_it_ended(bench: Gateway, upstream: FakeUpstream) -> None:
    run = panelgate("scheduler", "run", "daily-probe", "--json", url=bench.url)
    assert run.returncode == 0, run.stderr
    assert json.loads(run.stdout)["run"]["outcome"] == "ok"
    assert sorted(r.model for r in upstream.requests) == ["m1", "m2", "m3"]
