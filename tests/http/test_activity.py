"""`GET /api/activity` and `/activity` after a mixed run: panels with a failing seat, a route turn that
failed over, a verdict, priced tokens; every figure lands in the day's charts."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from tests.catalog.loopback import CatalogServer, catalog_server, point_catalogs_at, refresh
from tests.http.helpers import ask, hello
from tests.support.gateway import Gateway
from tests.support.upstream import FakeUpstream

LLAMA = "llama-3.3-70b-versatile"
"""Priced by the loopback catalog at $0.59 in / $0.79 out per million tokens."""
USAGE = (120, 30)


@pytest.fixture
def catalogs() -> Iterator[CatalogServer]:
    with catalog_server() as server:
        yield server


@pytest.fixture
def mixed_run(gateway: Gateway, upstream: FakeUpstream, catalogs: CatalogServer) -> Gateway:
    """Two panels of `core` (llama answers, m2 fails), one route turn of `agents` (m1 refuses, llama
    answers), and a verdict on the first panel's answer."""
    gateway.add_endpoint("groq", upstream.url)
    upstream.serve(LLAMA, "m1", "m2")
    for alias, served in (("llama", LLAMA), ("m1", "m1"), ("m2", "m2")):
        gateway.add_model(alias, served, endpoint="groq")
    gateway.gateway_settings(max_calls=2, max_explorers=0)
    gateway.save_collection("core", ["llama", "m2"])
    gateway.save_collection("agents", ["m1", "llama"], reply="route")
    point_catalogs_at(gateway, catalogs)
    refresh(gateway)
    upstream.behave(LLAMA, usage=USAGE)
    upstream.behave("m2", status=500, error_message="boom")
    upstream.behave("m1", status=429, error_message="slow down")
    seats = [ask(gateway, hello()).json()["bench"]["seats"] for _ in range(2)]
    turn = gateway.api(
        "POST", "/v1/chat/completions", {"model": "bench/agents", "messages": hello()["messages"]}
    )
    assert turn["bench"]["alias"] == "llama"
    (answered,) = [seat["call"] for seat in seats[0] if seat["status"] == "ok"]
    gateway.api("POST", "/api/verdicts", {"call": answered, "useful": True}, expect=200)
    return gateway


def day_totals(activity: dict[str, Any], slug: str) -> dict[str, float]:
    """Each series of chart `slug` summed over the day."""
    (chart,) = [chart for chart in activity["charts"] if chart["slug"] == slug]
    return {series["name"]: round(sum(v or 0 for v in series["values"]), 9) for series in chart["series"]}


def test_the_days_charts_count_what_the_run_did(mixed_run: Gateway) -> None:
    activity = mixed_run.api("GET", "/api/activity", expect=200)
    assert len(activity["hours"]) == 24
    assert all(len(s["values"]) == 24 for chart in activity["charts"] for s in chart["series"])
    assert day_totals(activity, "traffic") == {"panels": 2, "route turns": 1}
    assert day_totals(activity, "seats") == {"ok": 2, "error: other": 2}
    assert day_totals(activity, "upstream-errors") == {"groq": 3}  # m2 twice, m1 once
    assert day_totals(activity, "tokens") == {"groq": 3 * sum(USAGE)}
    assert day_totals(activity, "cost") == {"groq": round(3 * (120 * 0.59 + 30 * 0.79) / 1e6, 9)}
    assert day_totals(activity, "verdicts") == {"useful": 1, "not useful": 0}
    assert day_totals(activity, "failovers") == {"failovers": 1}
    (seat_time,) = [chart for chart in activity["charts"] if chart["slug"] == "seat-time"]
    medians = [v for v in seat_time["series"][0]["values"] if v is not None]
    assert len(medians) in (1, 2) and all(0 <= v < 5 for v in medians)  # the run may straddle an hour
    assert "/metrics" in activity["not_stored"]


def test_the_page_draws_each_chart_with_its_words(mixed_run: Gateway) -> None:
    page = httpx.get(f"{mixed_run.url}/activity", timeout=30)
    assert page.status_code == 200
    for title in ("Panels and route turns", "Seat time", "Seats by outcome", "Upstream errors per endpoint"):
        assert f">{title}</title>" in page.text
    assert "panels: 2 in all" in page.text and "route turns: 1 in all" in page.text
    assert "Route failovers, failovers per hour over the last 24 hours. failovers: 1 in all" in page.text


def test_with_nothing_recorded_every_chart_says_so(gateway: Gateway) -> None:
    activity = gateway.api("GET", "/api/activity", expect=200)
    assert day_totals(activity, "traffic") == {"panels": 0, "route turns": 0}
    assert day_totals(activity, "tokens") == {}
    page = httpx.get(f"{gateway.url}/activity", timeout=30).text
    assert page.count("nothing in the last 24 hours</text>") == len(activity["charts"])
