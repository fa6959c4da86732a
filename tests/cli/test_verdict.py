"""`panelgate verdict`: a verdict on one call reaches the bench."""

from __future__ import annotations

import json

import httpx

from tests.cli.runner import panelgate
from tests.support.gateway import Gateway, free_port
from tests.support.upstream import FakeUpstream


def panel_calls(bench: Gateway) -> list[str]:
    reply = httpx.post(
        f"{bench.url}/v1/chat/completions",
        timeout=60,
        json={"model": "bench/core", "messages": [{"role": "user", "content": "hi"}]},
    )
    return [seat["call"] for seat in reply.json()["bench"]["seats"]]


def pending(bench: Gateway, calls: list[str]) -> list[str]:
    return list(bench.api("POST", "/bench/pending", {"calls": calls}, expect=200)["pending"])


def test_verdict_is_recorded_and_its_call_is_no_longer_pending(bench: Gateway, upstream: FakeUpstream):
    calls = panel_calls(bench)
    assert sorted(pending(bench, calls)) == sorted(calls)
    run = panelgate(
        "verdict", calls[0], "--not-useful", "--note", "missed the point", "--false", "2+2=5", url=bench.url
    )
    assert run.returncode == 0, run.stderr
    assert calls[0] in run.stdout
    assert sorted(pending(bench, calls)) == sorted(calls[1:])


def test_verdict_needs_useful_or_not_useful():
    run = panelgate("verdict", "p20261130-101500-a1b2.member1", url=f"http://127.0.0.1:{free_port()}")
    assert run.returncode == 2
    assert "--useful" in run.stderr


def test_a_second_verdict_replaces_the_first_and_json_prints_the_servers_answer(
    bench: Gateway, upstream: FakeUpstream
):
    call = panel_calls(bench)[0]
    first = panelgate("verdict", call, "--useful", "--json", url=bench.url)
    assert first.returncode == 0, first.stderr
    assert json.loads(first.stdout)["call"] == call
    second = panelgate("verdict", call, "--not-useful", "--real", "it compiles", url=bench.url)
    assert second.returncode == 0, second.stderr
    assert "replaces the earlier verdict" in second.stdout
    record = bench.api("GET", "/bench/record?collection=bench/core", expect=200)
    assert (record["aliases"]["m1"]["useful"], record["aliases"]["m1"]["notUseful"]) == (0, 1)


def test_verdict_on_an_unknown_call_exits_1_with_the_servers_reason(bench: Gateway, upstream: FakeUpstream):
    refusal = httpx.post(
        f"{bench.url}/bench/verdict", json={"call": "p20261130-101500-a1b2.member9", "useful": True}
    )
    run = panelgate("verdict", "p20261130-101500-a1b2.member9", "--useful", url=bench.url)
    assert run.returncode == 1
    assert refusal.json()["error"]["message"] in run.stderr


def test_verdict_on_a_failed_seat_exits_1_saying_failures_are_health(bench: Gateway, upstream: FakeUpstream):
    upstream.behave("m1", status=400, error_message="nope")
    failed = panel_calls(bench)[0]
    run = panelgate("verdict", failed, "--not-useful", url=bench.url)
    assert run.returncode == 1
    assert "health, not its usefulness" in run.stderr
    assert pending(bench, [failed]) == []


def test_better_than_names_the_seats_this_answer_beat(bench: Gateway, upstream: FakeUpstream):
    first, second, third = panel_calls(bench)
    run = panelgate(
        "verdict", first, "--useful", "--better-than", second, "--better-than", third, url=bench.url
    )
    assert run.returncode == 0, run.stderr
    assert f"better than {second}, {third}" in run.stdout
    panel = bench.api("GET", f"/api/panels/{first.rsplit('.', 1)[0]}", expect=200)
    shown = {seat["call"]: seat["verdict"] for seat in panel["seats"]}
    assert shown[first]["better_than"] == sorted([second, third])


def test_better_than_a_seat_of_another_panel_exits_1_naming_it(bench: Gateway, upstream: FakeUpstream):
    mine, theirs = panel_calls(bench)[0], panel_calls(bench)[1]
    run = panelgate("verdict", mine, "--useful", "--better-than", theirs, url=bench.url)
    assert run.returncode == 1
    assert theirs in run.stderr
