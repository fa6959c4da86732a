"""`panelgate verdict`: a verdict on one call reaches the bench."""

from __future__ import annotations

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
