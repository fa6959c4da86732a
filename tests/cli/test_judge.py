"""`panelgate judge`: the owed panels one at a time, each answer judged from a reply on stdin."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from tests.cli.panels import panel_calls
from tests.cli.runner import panelgate
from tests.http.key_helpers import ADMIN_TOKEN, keyed_bench, make_key
from tests.support.gateway import Gateway
from tests.support.upstream import FakeUpstream


def seats_of(bench: Gateway, call: str) -> dict[str, Any]:
    """The seats of `call`'s panel by alias, each with its current verdict (None: not judged)."""
    panel = call.rsplit(".", 1)[0]
    return {seat["alias"]: seat for seat in bench.api("GET", f"/api/panels/{panel}", expect=200)["seats"]}


def test_judge_walks_the_owed_panels_newest_first_saving_each_reply(bench: Gateway, upstream: FakeUpstream):
    older = panel_calls(bench, "which sort is stable?")
    newer = panel_calls(bench, "what does a B-tree buy over a hash index?")
    run = panelgate("judge", url=bench.url, stdin="y\nn\nmaybe\n\n3\nq\n")
    assert run.returncode == 0, run.stderr
    assert run.stdout.index("what does a B-tree buy") < run.stdout.index("which sort is stable?")
    assert "### [2] member · m2\n\nanswer from m2" in run.stdout
    assert "answer y (useful), n (not useful), Enter (skip) or q (stop)" in run.stderr
    assert run.stdout.rstrip().endswith(
        "Judged 2 answers (1 useful, 1 not), chose 1 best, in 1 panel; stopped (`panelgate judge` goes on "
        "with what is still owed)."
    )
    judged = {alias: seat["verdict"] for alias, seat in seats_of(bench, newer["m1"]).items()}
    assert (judged["m1"]["useful"], judged["m2"]["useful"]) == (True, False)
    assert judged["m3"]["useful"] is True
    assert sorted(judged["m3"]["better_than"]) == sorted([newer["m1"], newer["m2"]])
    assert all(seat["verdict"] is None for seat in seats_of(bench, older["m1"]).values())
    given = bench.api("GET", "/api/record", expect=200)["verdicts"]
    assert {(v["call"], v["source"]) for v in given} == {
        (newer[alias], "cli") for alias in ("m1", "m2", "m3")
    }


def test_judge_shows_a_failed_seat_and_asks_no_verdict_of_it(bench: Gateway, upstream: FakeUpstream):
    upstream.behave("m2", status=500, error_message="the upstream fell over")
    calls = panel_calls(bench)
    run = panelgate("judge", calls["m1"].rsplit(".", 1)[0], url=bench.url, stdin="n\ny\n")
    assert run.returncode == 0, run.stderr
    assert (
        "### [2] member · m2\n\n(no answer: error: " in run.stdout and "the upstream fell over" in run.stdout
    )
    assert "[1] m1: useful?" in run.stderr and "[3] m3: useful?" in run.stderr
    assert "[2] m2: useful?" not in run.stderr
    assert "Best answer? 1, 3, or Enter for none:" in run.stderr
    judged = seats_of(bench, calls["m1"])
    assert (judged["m1"]["verdict"]["useful"], judged["m3"]["verdict"]["useful"]) == (False, True)
    assert judged["m2"]["verdict"] is None


def test_judge_of_a_collection_with_nothing_owed_says_so(bench: Gateway, upstream: FakeUpstream):
    run = panelgate("judge", "--collection", "core", url=bench.url)
    assert run.returncode == 0, run.stderr
    assert run.stdout == "" and "No panel in bench/core owes a verdict." in run.stderr


def test_ask_names_the_judge_command_for_its_panel_and_that_command_judges_it(
    bench: Gateway, upstream: FakeUpstream
):
    asked = panelgate("ask", "core", "is quicksort stable?", url=bench.url)
    assert asked.returncode == 0, asked.stderr
    (suggested,) = re.findall(r"panelgate judge (p\d{8}-\d{6}-[0-9a-f]{4})", asked.stderr)
    run = panelgate("judge", suggested, url=bench.url, stdin="y\ny\ny\n1\n")
    assert run.returncode == 0, run.stderr
    assert "is quicksort stable?" in run.stdout
    assert "Judged 3 answers (3 useful, 0 not), chose 1 best, in 1 panel." in run.stdout
    assert panelgate("pending", url=bench.url).stdout == ""


def test_judge_on_a_gateway_asking_for_the_admin_token_says_to_set_it(tmp_path: Path, upstream: FakeUpstream):
    with keyed_bench(tmp_path / "home", upstream) as gateway:
        refused = panelgate("judge", url=gateway.url, env={"PANELGATE_KEY": make_key(gateway)})
        allowed = panelgate("judge", url=gateway.url, env={"PANELGATE_ADMIN_TOKEN": ADMIN_TOKEN})
    assert refused.returncode == 1 and "PANELGATE_ADMIN_TOKEN" in refused.stderr
    assert allowed.returncode == 0 and "No panel owes a verdict." in allowed.stderr
