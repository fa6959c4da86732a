"""`panelgate onboard`: queue models and follow them to the end, the queue's status, candidates."""

from __future__ import annotations

import json

from tests.cli.runner import panelgate, panelgate_watched
from tests.support.gateway import Gateway
from tests.support.upstream import FakeUpstream


def test_onboard_follows_the_batch_and_says_which_models_did_not_make_it(
    bench: Gateway, upstream: FakeUpstream
) -> None:
    upstream.behave("fresh")
    upstream.behave("broken", status=404)
    run = panelgate("onboard", "up", "fresh", "broken", url=bench.url)
    assert run.returncode == 1, run.stderr
    assert "1 of 2 models were not onboarded: broken (unavailable)" in run.stderr
    assert "fresh: done" in run.stderr and "broken: unavailable" in run.stderr, "a line per model as it ends"
    assert "fresh" in run.stdout and "done" in run.stdout and "unavailable" in run.stdout
    every_task = bench.api("GET", "/api/suite/tasks", expect=200)["tasks"]
    assert len(upstream.requests_for("fresh")) == 4 + len(every_task), "four probe calls, then the full suite"
    models = {m["alias"]: m["ad_hoc"] for m in bench.api("GET", "/api/models", expect=200)["models"]}
    assert (models["fresh"], models["broken"]) == (False, True)


def test_onboard_shows_a_progress_bar_per_model_on_a_terminal(bench: Gateway, upstream: FakeUpstream) -> None:
    upstream.behave("fresh", delay=0.5)  # the probe step lasts two seconds: a poll or more sees it
    code, out, shown = panelgate_watched("onboard", "up", "fresh", "--suite", "quick", url=bench.url)
    assert code == 0, shown
    assert "fresh" in shown and "━" in shown, "a bar for the model on the terminal"
    assert "probe " in shown and "/4" in shown and "done" in shown
    assert "probe 1/4" not in out and "done" in out, "stdout keeps the table only"


def test_onboard_all_takes_every_candidate_and_json_prints_the_batch(bench: Gateway, upstream: FakeUpstream):
    upstream.listed(["m1", "m2", "m3", "new-a", "new-b"])
    run = panelgate("onboard", "--all", "up", "--json", "--suite", "quick+adhoc", url=bench.url)
    assert run.returncode == 0, run.stderr
    batch = json.loads(run.stdout)
    assert [(item["served_id"], item["state"], item["suite"]) for item in batch["items"]] == [
        ("new-a", "done", "quick+adhoc"),
        ("new-b", "done", "quick+adhoc"),
    ]
    again = panelgate("onboard", "up", "--all", url=bench.url)
    assert again.returncode == 0 and "serves nothing the bench lacks" in again.stderr


def test_onboard_status_and_no_wait(bench: Gateway, upstream: FakeUpstream) -> None:
    upstream.behave("later", hang=True)
    queued = panelgate(
        "onboard", "up", "later", "--alias", "later-1", "--no-wait", "--probe-deadline", "2", url=bench.url
    )
    assert queued.returncode == 0, queued.stderr
    assert "later-1" in queued.stdout and "queued" in queued.stdout
    waited = panelgate("onboard", "status", "--wait", url=bench.url)
    assert waited.returncode == 0, waited.stderr
    assert "later-1" in waited.stdout and "unavailable" in waited.stdout
    shown = json.loads(panelgate("onboard", "status", "--json", url=bench.url).stdout)
    assert [(item["alias"], item["state"]) for item in shown["items"]] == [("later-1", "unavailable")]


def test_candidates_dismiss_and_undismiss(bench: Gateway, upstream: FakeUpstream) -> None:
    upstream.listed(["m1", "new-a", "new-b"])
    listed = panelgate("onboard", "candidates", url=bench.url)
    assert listed.returncode == 0, listed.stderr
    assert "new-a" in listed.stdout and "new-b" in listed.stdout and "m1" not in listed.stdout
    assert panelgate("onboard", "dismiss", "up", "new-b", url=bench.url).returncode == 0
    listed = panelgate("onboard", "candidates", "--endpoint", "up", url=bench.url)
    assert "new-b" not in listed.stdout and "1 dismissed" in listed.stderr
    assert "new-b" in panelgate("onboard", "candidates", "--dismissed", url=bench.url).stdout
    undone = panelgate("onboard", "undismiss", "up", "new-b", url=bench.url)
    assert undone.returncode == 0 and "undismissed on up: new-b" in undone.stdout


def test_refusals_and_usage_problems(bench: Gateway, upstream: FakeUpstream) -> None:
    unknown = panelgate("onboard", "nowhere", "x1", url=bench.url)
    assert unknown.returncode == 1 and "no endpoint named `nowhere`; endpoints: up" in unknown.stderr
    on_bench = panelgate("onboard", "up", "m1", url=bench.url)
    assert on_bench.returncode == 1 and "is on the bench already as `m1`" in on_bench.stderr
    assert panelgate("onboard", "up", url=bench.url).returncode == 2, "no served id and no --all"
    assert panelgate("onboard", "up", "a1", "a2", "--alias", "x1", url=bench.url).returncode == 2
    assert panelgate("onboard", "stop", url=bench.url).returncode == 2, (
        "stopping needs --yes without a terminal"
    )
    stopped = panelgate("onboard", "stop", "--yes", url=bench.url)
    assert stopped.returncode == 0 and "stopped 0 queued" in stopped.stdout
    cleared = panelgate("onboard", "clear", "--yes", url=bench.url)
    assert cleared.returncode == 0 and "cleared 0 finished items" in cleared.stdout
    assert upstream.requests == []


def test_no_server_is_exit_code_3() -> None:
    assert panelgate("onboard", "status", url="http://127.0.0.1:9").returncode == 3
