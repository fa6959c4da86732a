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
