"""Scraping `/metrics` and running the mixed load its tests count, for one gateway process or several."""

from __future__ import annotations

from typing import Any

import httpx
from prometheus_client.parser import text_string_to_metric_families

from tests.http.helpers import ask, hello
from tests.support.gateway import Gateway
from tests.support.upstream import FakeUpstream

Figures = dict[tuple[str, frozenset[tuple[str, str]]], float]


def scrape(gateway: Gateway, **headers: str) -> Figures:
    """Every sample of `/metrics` by (name, labels)."""
    reply = httpx.get(f"{gateway.url}/metrics", headers=headers, timeout=30)
    assert reply.status_code == 200, reply.text
    assert reply.headers["content-type"].startswith("text/plain")
    return {
        (sample.name, frozenset(sample.labels.items())): sample.value
        for family in text_string_to_metric_families(reply.text)
        for sample in family.samples
    }


def figure(figures: Figures, name: str, **labels: str) -> float:
    return figures.get((name, frozenset(labels.items())), 0.0)


def run_mixed_load(gateway: Gateway, upstream: FakeUpstream, panels: int = 2) -> dict[str, Any]:
    """`panels` panels of m1–m3 where m3's key is refused (401: a `signin` seat), one route turn whose
    first member (m3) fails over to m1, and two verdicts (one pairwise). Returns the first panel's calls."""
    upstream.behave("m1", usage=(100, 10))
    upstream.behave("m2", usage=(200, 20))
    upstream.behave("m3", status=401, error_message="bad key")
    gateway.save_collection("agents", ["m3", "m1"], reply="route")
    gateway.api("PUT", "/api/models/m1/facts", {"price": {"input": 1.0, "output": 2.0}}, expect=200)
    replies = [ask(gateway, hello()) for _ in range(panels)]
    assert [r.status_code for r in replies] == [200] * panels
    routed = ask(gateway, hello("bench/agents"))
    assert routed.status_code == 200 and routed.json()["bench"]["failed_over"][0]["alias"] == "m3"
    first = {seat["alias"]: seat["call"] for seat in replies[0].json()["bench"]["seats"]}
    second = {seat["alias"]: seat["call"] for seat in replies[1].json()["bench"]["seats"]}
    gateway.api("POST", "/bench/verdict", {"call": first["m1"], "useful": True, "better_than": [first["m2"]]})
    gateway.api("POST", "/bench/verdict", {"call": second["m2"], "useful": False})
    return first
