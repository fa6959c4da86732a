"""A scrape: the meter's figures in Prometheus' text format, with what they cost added at scrape time.

Under `--workers` the figures are read from every worker's files in
`PROMETHEUS_MULTIPROC_DIR` and summed (a worker that died and was replaced
keeps its counts there, so no counter goes back), otherwise from the app's
own registry. Cost is worked out here, from the token counters and the
prices the caller passes, because that is how the gateway counts cost
everywhere (`catalog/costs.py`): at each model's price now. A model without
a known price has no cost series rather than a cost of zero.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping

from prometheus_client import CollectorRegistry, Metric, generate_latest
from prometheus_client.core import CounterMetricFamily
from prometheus_client.exposition import CONTENT_TYPE_PLAIN_0_0_4
from prometheus_client.multiprocess import MultiProcessCollector

from panelgate.observe.meter import Meter

CONTENT_TYPE = CONTENT_TYPE_PLAIN_0_0_4
TOKENS = "panelgate_tokens_total"

Prices = Mapping[tuple[str, str], tuple[float, float]]
"""(endpoint, model alias) -> US dollars per million (input, output) tokens."""


def scrape(meter: Meter, prices: Prices) -> bytes:
    figures = list(_figures(meter))
    return generate_latest(_Collected([*figures, _costs(figures, prices)]))


def _figures(meter: Meter) -> Iterable[Metric]:
    if meter.multiprocess_dir is None:
        return meter.registry.collect()
    summed = CollectorRegistry(auto_describe=False)
    MultiProcessCollector(summed, path=meter.multiprocess_dir)  # type: ignore[no-untyped-call]
    return summed.collect()


def _costs(figures: list[Metric], prices: Prices) -> Metric:
    cost = CounterMetricFamily(
        "panelgate_upstream_cost_usd",
        "what the tokens counted cost at each model's price now (models without a price left out)",
        labels=["endpoint", "model"],
    )
    spent: dict[tuple[str, str], float] = {}
    for sample in (s for metric in figures for s in metric.samples if s.name == TOKENS):
        where = (sample.labels["endpoint"], sample.labels["model"])
        price = prices.get(where)
        if price is not None:
            per_million = price[0] if sample.labels["direction"] == "input" else price[1]
            spent[where] = spent.get(where, 0.0) + sample.value * per_million / 1_000_000
    for (endpoint, model), dollars in sorted(spent.items()):
        cost.add_metric([endpoint, model], dollars)
    return cost


class _Collected:
    """Families already collected, in the shape `generate_latest` reads."""

    def __init__(self, metrics: list[Metric]) -> None:
        self._metrics = metrics

    def collect(self) -> Iterator[Metric]:
        return iter(self._metrics)
