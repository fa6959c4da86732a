"""The scrape's text: what the meter counted, with cost worked out from the tokens at today's prices."""

from __future__ import annotations

import pytest
from prometheus_client.parser import text_string_to_metric_families

from panelgate.observe import Meter, scrape


def samples(text: bytes) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    return {
        (s.name, tuple(sorted(s.labels.items()))): s.value
        for family in text_string_to_metric_families(text.decode())
        for s in family.samples
    }


def test_cost_is_the_counted_tokens_at_each_price_and_absent_without_one():
    meter = Meter()
    meter.upstream_call("up", "m1", None, 0.2, tokens_in=1_000, tokens_out=500)
    meter.upstream_call("up", "m1", None, 0.3, tokens_in=1_000, tokens_out=None)
    meter.upstream_call("up", "m2", None, 0.1, tokens_in=50, tokens_out=5)
    found = samples(scrape(meter, {("up", "m1"): (2.0, 10.0)}))
    cost = "panelgate_upstream_cost_usd_total"
    assert found[(cost, (("endpoint", "up"), ("model", "m1")))] == pytest.approx((2_000 * 2 + 500 * 10) / 1e6)
    assert (cost, (("endpoint", "up"), ("model", "m2"))) not in found


def test_two_meters_never_share_a_count():
    first, second = Meter(), Meter()
    first.route_failover("timeout")
    failovers = ("panelgate_route_failovers_total", (("error_kind", "timeout"),))
    assert samples(scrape(first, {}))[failovers] == 1
    assert failovers not in samples(scrape(second, {}))
