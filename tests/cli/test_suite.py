"""`panelgate suite tasks|run|status` against a real gateway and the loopback upstream."""

from __future__ import annotations

import json
from pathlib import Path

from tests.cli.runner import panelgate, panelgate_watched
from tests.support.gateway import Gateway
from tests.support.upstream import FakeUpstream

CLAIM = "claim-sizing-images-flat"
OTHER = "claim-preview-first-user"
ANSWER = "VERDICT: TRUE\nThe estimate adds `IMAGE_TOKENS` for each image part, whatever the image's size."


def test_tasks_lists_the_starter_pack_of_a_fresh_gateway(gateway: Gateway) -> None:
    shown = panelgate("suite", "tasks", url=gateway.url)
    assert shown.returncode == 0, shown.stderr
    assert CLAIM in shown.stdout and "bug-sizing-fits" in shown.stdout and "starter" in shown.stdout
    assert shown.stderr == ""
    listed = json.loads(panelgate("suite", "tasks", "--json", "--shape", "control", url=gateway.url).stdout)
    assert len(listed["tasks"]) >= 6 and {t["shape"] for t in listed["tasks"]} == {"control"}


def test_tasks_names_a_folder_that_would_not_load_and_lists_the_rest(gateway: Gateway) -> None:
    folder = gateway.home / "suite" / "tasks" / "broken"
    folder.mkdir(parents=True)
    (folder / "task.json").write_text(json.dumps({"id": "broken", "title": "t", "shape": "claim"}))
    shown = panelgate("suite", "tasks", url=gateway.url)
    assert shown.returncode == 0, shown.stderr
    assert f"not loaded: {folder / 'task.json'} (prompt): must be non-empty text" in shown.stderr
    assert CLAIM in shown.stdout


def test_run_keeps_a_scored_answer_that_status_and_the_api_show(
    bench: Gateway, upstream: FakeUpstream
) -> None:
    upstream.behave("m1", answer=ANSWER)
    ran = panelgate("suite", "run", "--model", "m1", "--task", CLAIM, url=bench.url)
    assert ran.returncode == 0, ran.stderr
    assert "m1" in ran.stdout and CLAIM in ran.stdout and "right" in ran.stdout
    assert "asked 1 task(s): 1 answered" in ran.stderr
    (request,) = upstream.requests_for("m1")
    content = request.body["messages"][0]["content"]
    fixture = Path("src/panelgate/suite/starter") / CLAIM / "fixtures/src/panelgate/core/sizing.py"
    assert "Claim: `estimate_tokens`" in content and fixture.read_text().rstrip() in content
    usage = bench.api("GET", "/api/usage")["recent"]
    assert [(row["alias"], row["purpose"]) for row in usage] == [("m1", "suite")]
    shown = panelgate("suite", "status", url=bench.url)
    assert shown.returncode == 0, shown.stderr
    assert "m1" in shown.stdout and "claim" in shown.stdout
    (standing,) = bench.api("GET", "/api/suite/status")["models"]
    assert (standing["alias"], standing["shapes"][0]["right"]) == ("m1", 1)
    as_json = json.loads(panelgate("suite", "status", "--json", "--model", "m1", url=bench.url).stdout)
    assert as_json["models"][0]["alias"] == "m1"


def test_a_dry_run_prints_each_prompt_and_sends_nothing(bench: Gateway, upstream: FakeUpstream) -> None:
    shown = panelgate("suite", "run", "--dry-run", "-m", "m1,m2", "-t", CLAIM, url=bench.url)
    assert shown.returncode == 0, shown.stderr
    assert f"===== m1 · {CLAIM} (claim) =====" in shown.stdout
    assert f"===== m2 · {CLAIM} (claim) =====" in shown.stdout
    assert "===== FILE: src/panelgate/core/sizing.py =====" in shown.stdout
    assert "would ask 2 task(s) of 2 model(s); nothing was sent" in shown.stderr
    assert upstream.requests == []
    assert bench.api("GET", "/api/suite/status")["models"] == []


def test_a_run_shows_a_progress_bar_per_model_on_a_terminal(bench: Gateway, upstream: FakeUpstream) -> None:
    for alias in ("m1", "m2"):
        upstream.behave(alias, answer=ANSWER, delay=0.4)
    code, out, shown = panelgate_watched(
        "suite", "run", "-m", "m1", "-m", "m2", "-t", f"{CLAIM},{OTHER}", url=bench.url
    )
    assert code == 0, shown
    assert "suite" in shown and "m1" in shown and "m2" in shown and "4/4" in shown
    assert "4/4" not in out and "suite" not in out, "the bars stay on the terminal, off the results"
    assert out.count("m1") == 2 and out.count("m2") == 2


def test_a_refused_run_exits_1_with_the_servers_reason(bench: Gateway, upstream: FakeUpstream) -> None:
    shown = panelgate("suite", "run", "--model", "nobody", url=bench.url)
    assert shown.returncode == 1 and "no model `nobody` on the bench" in shown.stderr
    assert upstream.requests == []
