"""`GET /metrics`: after a mixed run (panels, a failing seat, a route failover, verdicts) every figure
is the exact count, scraped over HTTP and read with Prometheus' own parser; guarded like the admin API."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from tests.conftest import arrange_bench
from tests.http.helpers import ask, hello
from tests.http.key_helpers import make_key
from tests.http.metrics_helpers import figure, run_mixed_load, scrape
from tests.support.gateway import Gateway
from tests.support.upstream import FakeUpstream

TOKEN = "metrics-admin-token-0123456789"


def test_a_mixed_run_shows_each_figure_with_its_exact_count(bench: Gateway, upstream: FakeUpstream):
    run_mixed_load(bench, upstream)
    figures = scrape(bench)

    chat = {"route": "/v1/chat/completions", "method": "POST", "status": "200"}
    assert figure(figures, "panelgate_http_requests_total", **chat) == 3
    verdicts = {"route": "/bench/verdict", "method": "POST", "status": "200"}
    assert figure(figures, "panelgate_http_requests_total", **verdicts) == 2
    assert figure(figures, "panelgate_panel_duration_seconds_count", collection="core") == 2
    assert figure(figures, "panelgate_seats_total", status="ok", error_kind="none") == 4
    assert figure(figures, "panelgate_seats_total", status="error", error_kind="signin") == 2
    assert figure(figures, "panelgate_seat_duration_seconds_count", status="ok") == 4
    assert figure(figures, "panelgate_upstream_errors_total", endpoint="up", kind="signin") == 3
    assert figure(figures, "panelgate_route_failovers_total", error_kind="signin") == 1
    assert figure(figures, "panelgate_verdicts_total", verdict="useful") == 1
    assert figure(figures, "panelgate_verdicts_total", verdict="not_useful") == 1
    assert figure(figures, "panelgate_pairwise_verdicts_total") == 1
    assert figure(figures, "panelgate_tokens_total", endpoint="up", model="m1", direction="input") == 300
    assert figure(figures, "panelgate_tokens_total", endpoint="up", model="m1", direction="output") == 30
    assert figure(figures, "panelgate_tokens_total", endpoint="up", model="m2", direction="input") == 400
    assert figure(figures, "panelgate_upstream_cost_usd_total", endpoint="up", model="m1") == pytest.approx(
        (300 * 1.0 + 30 * 2.0) / 1_000_000
    )
    assert ("panelgate_upstream_cost_usd_total", frozenset({("endpoint", "up"), ("model", "m2")})) not in (
        figures
    ), "a model without a price has no cost rather than a cost of zero"


def test_upstream_calls_are_timed_per_endpoint(bench: Gateway, upstream: FakeUpstream):
    run_mixed_load(bench, upstream)
    figures = scrape(bench)
    assert figure(figures, "panelgate_upstream_call_duration_seconds_count", endpoint="up") == 8
    assert figure(figures, "panelgate_upstream_call_duration_seconds_bucket", endpoint="up", le="+Inf") == 8


def test_request_labels_are_route_templates_never_the_path_asked(bench: Gateway):
    for alias in ("m1", "m2"):
        bench.api("GET", f"/api/models/{alias}/facts", expect=200)
    httpx.get(f"{bench.url}/nowhere/secret-id-42", timeout=30)
    figures = scrape(bench)
    route = "/api/models/{alias}/facts"
    assert figure(figures, "panelgate_http_requests_total", route=route, method="GET", status="200") == 2
    assert figure(figures, "panelgate_http_requests_total", route="other", method="GET", status="404") == 1
    assert not [labels for _, labels in figures if any("secret-id-42" in value for _, value in labels)]


def test_a_pacing_refusal_is_counted_for_its_endpoint(bench: Gateway, upstream: FakeUpstream):
    bench.save_collection("solo", ["m1"])
    bench.gateway_settings(max_calls=1, max_explorers=0, seat_deadline_s=4)
    bench.api("POST", "/api/limits", {"endpoint": "up", "measure": "requests", "window": "day", "most": 1})
    seats = [ask(bench, hello("bench/solo")).json()["bench"]["seats"][0] for _ in range(2)]
    assert [s["status"] for s in seats] == ["ok", "error"]
    figures = scrape(bench)
    assert figure(figures, "panelgate_pacing_refusals_total", endpoint="up") == 1
    assert figure(figures, "panelgate_seats_total", status="error", error_kind="capacity") == 1


def test_two_gateways_in_one_process_count_apart(bench: Gateway, upstream: FakeUpstream, tmp_path: Path):
    other = Gateway(tmp_path / "other").start()
    try:
        assert ask(bench, hello()).status_code == 200
        assert figure(scrape(bench), "panelgate_panel_duration_seconds_count", collection="core") == 1
        assert figure(scrape(other), "panelgate_panel_duration_seconds_count", collection="core") == 0
    finally:
        other.close()


@pytest.fixture
def guarded(tmp_path: Path, upstream: FakeUpstream) -> Iterator[Gateway]:
    gateway = Gateway(tmp_path / "home", env={"PANELGATE_ADMIN_TOKEN": TOKEN}).start()
    try:
        yield arrange_bench(gateway, upstream)
    finally:
        gateway.close()


def test_metrics_take_the_admin_token_like_the_admin_api(guarded: Gateway):
    refused = httpx.get(f"{guarded.url}/metrics", timeout=30)
    assert refused.status_code == 401
    assert "admin token" in refused.json()["error"]["message"]
    key = make_key(guarded)
    with_key = httpx.get(f"{guarded.url}/metrics", headers={"Authorization": f"Bearer {key}"}, timeout=30)
    assert with_key.status_code == 401
    assert with_key.json() == refused.json()
    assert scrape(guarded, Authorization=f"Bearer {TOKEN}")


def test_metrics_public_opens_only_metrics(tmp_path: Path):
    env = {"PANELGATE_ADMIN_TOKEN": TOKEN, "PANELGATE_METRICS_PUBLIC": "1"}
    gateway = Gateway(tmp_path / "home", env=env).start()
    try:
        assert scrape(gateway)
        assert httpx.get(f"{gateway.url}/api/endpoints", timeout=30).status_code == 401
    finally:
        gateway.close()
