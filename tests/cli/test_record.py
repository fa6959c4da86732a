"""`panelgate record` and `panelgate pending`: the ranked record and the seats still owed a verdict."""

from __future__ import annotations

import json

from tests.cli.panels import panel_calls
from tests.cli.runner import panelgate
from tests.support.gateway import Gateway
from tests.support.upstream import FakeUpstream


def judge(bench: Gateway, call: str, useful: bool, **more: object) -> None:
    bench.api("POST", "/bench/verdict", {"call": call, "useful": useful, **more}, expect=200)


def test_record_prints_a_table_per_shape_ranked_with_intervals(bench: Gateway, upstream: FakeUpstream):
    for _ in range(2):
        calls = panel_calls(bench)
        judge(bench, calls["m2"], True, better_than=[calls["m1"]])
        judge(bench, calls["m1"], False)
    run = panelgate("record", url=bench.url)
    assert run.returncode == 0, run.stderr
    lines = run.stdout.splitlines()
    assert lines[0].startswith("general: 2 models, 4 verdicts")
    m2, m1 = (next(line for line in lines if f" {alias} " in line) for alias in ("m2", "m1"))
    assert lines.index(m2) < lines.index(m1)
    record = bench.api("GET", "/bench/record")["shapes"]["general"]
    best = record[0]
    assert f"{best['mean']:.2f} ({best['low']:.2f}–{best['high']:.2f})" in m2
    assert "%" in m2 and "%" in m1


def test_record_shows_the_suite_results_behind_each_estimate(bench: Gateway, upstream: FakeUpstream):
    upstream.behave("m1", answer="VERDICT: TRUE\nThe attached code does what the claim says.")
    tasks = ["claim-sizing-images-flat", "claim-family-free-variant"]
    bench.api("POST", "/api/suite/run", {"models": ["m1"], "tasks": tasks}, expect=200)
    run = panelgate("record", "--shape", "review", url=bench.url)
    assert run.returncode == 0, run.stderr
    lines = run.stdout.splitlines()
    assert lines[0].rstrip() == "review: 1 model, 0 verdicts, 2 suite results"
    assert [cell.strip() for cell in lines[1].split("┃")][3:5] == ["judged", "suite"]
    (m1,) = [line for line in lines if " m1 " in line]
    assert [cell.strip() for cell in m1.split("│")][3:5] == ["0", "2"]


def test_record_next_says_whom_the_explorer_seats_try_next_and_why(bench: Gateway, upstream: FakeUpstream):
    upstream.serve("m4", "m5")
    bench.add_model("m4")
    bench.add_model("m5")
    bench.gateway_settings(max_calls=4, max_explorers=1)
    calls = panel_calls(bench)
    judge(bench, calls["m1"], True)
    run = panelgate("record", "--collection", "core", "--next", url=bench.url)
    assert run.returncode == 0, run.stderr
    lines = run.stdout.splitlines()
    heading = lines.index(
        "explorers next (1 seat a panel, by the record; every model at least once in 10 panels):"
    )
    preview = bench.api("GET", "/api/record?collection=core", expect=200)["explorers"]["general"][
        "candidates"
    ]
    shown = [f"  {c['alias']}{' [next panel]' if c['next_panel'] else ''}: {c['why']}" for c in preview]
    assert lines[heading + 1 : heading + 1 + len(shown)] == shown
    assert {c["alias"] for c in preview} == {"m4", "m5"} and sum(c["next_panel"] for c in preview) == 1
    plain = panelgate("record", "--collection", "core", url=bench.url)
    assert "explorers next" not in plain.stdout


def test_record_json_prints_the_servers_answer(bench: Gateway, upstream: FakeUpstream):
    judge(bench, panel_calls(bench)["m1"], True)
    run = panelgate("record", "--collection", "core", "--shape", "general", "--json", url=bench.url)
    assert run.returncode == 0, run.stderr
    found = json.loads(run.stdout)
    assert found == bench.api("GET", "/bench/record?collection=core&shape=general")
    assert [row["alias"] for row in found["shapes"]["general"]] == ["m1"]


def test_an_empty_record_says_how_to_record_verdicts(bench: Gateway, upstream: FakeUpstream):
    run = panelgate("record", url=bench.url)
    assert run.returncode == 0, run.stderr
    assert run.stdout == ""
    assert "panelgate verdict" in run.stderr


def test_an_empty_narrowed_record_says_what_was_asked_and_a_collection_not_on_the_bench_exits_1(
    bench: Gateway, upstream: FakeUpstream
):
    judge(bench, panel_calls(bench)["m1"], True)  # a verdict on `general` only
    on_code = panelgate("record", "--shape", "code", "--collection", "core", url=bench.url)
    typo = panelgate("record", "--collection", "cor", url=bench.url)
    assert on_code.returncode == 0, on_code.stderr
    assert on_code.stdout == ""
    assert on_code.stderr.startswith("No verdicts recorded on `code` in bench/core yet.")
    assert typo.returncode == 1
    assert "no collection `bench/cor`" in typo.stderr and "collections: bench/core" in typo.stderr


def test_record_of_an_unknown_shape_exits_1_with_the_servers_reason(bench: Gateway, upstream: FakeUpstream):
    run = panelgate("record", "--shape", "poetry", url=bench.url)
    assert run.returncode == 1
    assert "poetry" in run.stderr


def test_pending_lists_unjudged_seats_and_how_to_judge_them(bench: Gateway, upstream: FakeUpstream):
    calls = panel_calls(bench, "explain the build failure in the attached log")
    judge(bench, calls["m1"], True)
    run = panelgate("pending", url=bench.url)
    assert run.returncode == 0, run.stderr
    assert calls["m2"] in run.stdout and calls["m3"] in run.stdout and calls["m1"] not in run.stdout
    assert "explain the build" in run.stdout
    assert f"panelgate verdict {calls['m2']} --useful" in run.stderr
    listed = json.loads(panelgate("pending", "--json", url=bench.url).stdout)["pending"]
    assert [seat["call"] for seat in listed] == [calls["m2"], calls["m3"]]


def test_pending_on_an_80_column_terminal_keeps_each_call_id_on_one_line(
    bench: Gateway, upstream: FakeUpstream
):
    calls = panel_calls(bench, "review the attached diff and list every risky change " * 4)
    run = panelgate("pending", url=bench.url, env={"COLUMNS": "80"})
    assert run.returncode == 0, run.stderr
    lines = run.stdout.splitlines()
    assert max(len(line) for line in lines) <= 80
    for alias, call in calls.items():
        (row,) = [line for line in lines if line.startswith(f"{call} ")]
        assert f" {alias} " in row


def test_pending_with_nothing_owed_says_so(bench: Gateway, upstream: FakeUpstream):
    for call in panel_calls(bench).values():
        judge(bench, call, False)
    run = panelgate("pending", url=bench.url)
    assert run.returncode == 0, run.stderr
    assert run.stdout == ""
    assert "No verdicts owed" in run.stderr
