"""`Meter`: the figures `GET /metrics` shows, counted where the work happens.

One meter per app, holding its own `CollectorRegistry`, so two gateways in
one process (the tests run several) never mix their counts. Under
`panelgate serve --workers N` prometheus_client's multiprocess mode keeps
each worker's values in files of its own (`PROMETHEUS_MULTIPROC_DIR`, set by
the supervisor) and the scrape sums them (`exposition`).

Every observation sits on a request's path, so each is a dict lookup for its
label child (bound once per label set, then kept) and the client's own
increment. Label values are bounded: route templates, status codes, error
kinds, endpoint names and model aliases; never an id, a path or a prompt.
"""

from __future__ import annotations

import os

from prometheus_client import CollectorRegistry, Counter, Histogram, values

SECONDS = (0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 20.0, 30.0, 60.0, 120.0, 300.0)
"""Histogram buckets: a fast local model answers in tens of milliseconds, a reasoning model in minutes."""
OTHER_ROUTE = "other"
"""The route label of a request no route answered (refused before routing, or no such path)."""
NO_ERROR = "none"
MULTIPROCESS_DIR = "PROMETHEUS_MULTIPROC_DIR"
"""prometheus_client's own variable: set before a worker starts, it keeps the worker's values in files."""


def count_in_files(folder: str | None) -> None:
    """Keep the values of every meter built from now on in files under `folder` (None: in memory again).

    prometheus_client reads its variable once, when it is first imported, and a
    supervisor has imported it before it makes the folder; its workers are forked
    from it, so the choice is made again here, before the app they share is built.
    """
    if folder is None:
        os.environ.pop(MULTIPROCESS_DIR, None)
    else:
        os.environ[MULTIPROCESS_DIR] = folder
    values.ValueClass = values.get_value_class()  # type: ignore[no-untyped-call]


class Meter:
    def __init__(self, multiprocess_dir: str | None = None) -> None:
        """`multiprocess_dir`: where every worker of this server keeps its values (None: one process)."""
        self.multiprocess_dir = multiprocess_dir
        self.registry = CollectorRegistry(auto_describe=False)
        r = self.registry
        self._requests = Counter(
            "panelgate_http_requests", "HTTP requests answered", ["route", "method", "status"], registry=r
        )
        self._panel = Histogram(
            "panelgate_panel_duration_seconds",
            "panels from seating to recorded",
            ["collection"],
            buckets=SECONDS,
            registry=r,
        )
        self._seats = Counter("panelgate_seats", "seats asked", ["status", "error_kind"], registry=r)
        self._seat = Histogram(
            "panelgate_seat_duration_seconds", "each seat's call", ["status"], buckets=SECONDS, registry=r
        )
        self._calls = Histogram(
            "panelgate_upstream_call_duration_seconds",
            "upstream calls sent (retries within a call included)",
            ["endpoint"],
            buckets=SECONDS,
            registry=r,
        )
        self._call_errors = Counter(
            "panelgate_upstream_errors", "upstream calls that failed", ["endpoint", "kind"], registry=r
        )
        self._tokens = Counter(
            "panelgate_tokens", "tokens upstreams reported", ["endpoint", "model", "direction"], registry=r
        )
        self._waits = Counter(
            "panelgate_pacing_waits", "calls pacing held for room", ["endpoint"], registry=r
        )
        self._waited = Counter(
            "panelgate_pacing_wait_seconds", "time calls were held by pacing", ["endpoint"], registry=r
        )
        self._refusals = Counter(
            "panelgate_pacing_refusals", "calls pacing refused unsent", ["endpoint"], registry=r
        )
        self._verdicts = Counter("panelgate_verdicts", "verdicts recorded", ["verdict"], registry=r)
        self._pairwise = Counter(
            "panelgate_pairwise_verdicts", "verdicts naming answers the judged one beat", registry=r
        )
        self._failovers = Counter(
            "panelgate_route_failovers",
            "route turns passed to the next member before any answer",
            ["error_kind"],
            registry=r,
        )
        self._counters: dict[tuple[object, ...], Counter] = {}
        self._histograms: dict[tuple[object, ...], Histogram] = {}

    def request(self, route: str, method: str, status: int) -> None:
        key = (self._requests, route, method, status)  # the status as sent: no str() per request
        child = self._counters.get(key)
        if child is None:
            child = self._counters[key] = self._requests.labels(route, method, str(status))
        child.inc()

    def panel(self, collection: str, seconds: float) -> None:
        key = (self._panel, collection)
        (self._histograms.get(key) or self._time(self._panel, collection)).observe(seconds)

    def seat(self, status: str, error_kind: str, seconds: float) -> None:
        """`error_kind` is empty for a seat that answered."""
        kind = error_kind or NO_ERROR
        (self._counters.get((self._seats, status, kind)) or self._count(self._seats, status, kind)).inc()
        (self._histograms.get((self._seat, status)) or self._time(self._seat, status)).observe(seconds)

    def upstream_call(
        self,
        endpoint: str,
        model: str,
        error_kind: str | None,
        seconds: float,
        tokens_in: int | None,
        tokens_out: int | None,
    ) -> None:
        """One call that reached its endpoint; `model` is the alias it was asked under."""
        calls = self._histograms.get((self._calls, endpoint)) or self._time(self._calls, endpoint)
        calls.observe(seconds)
        if error_kind is not None:
            self._count(self._call_errors, endpoint, error_kind).inc()
        if tokens_in:
            key = (self._tokens, endpoint, model, "input")
            (self._counters.get(key) or self._count(self._tokens, endpoint, model, "input")).inc(tokens_in)
        if tokens_out:
            key = (self._tokens, endpoint, model, "output")
            (self._counters.get(key) or self._count(self._tokens, endpoint, model, "output")).inc(tokens_out)

    def pacing_waited(self, endpoint: str, seconds: float) -> None:
        self._count(self._waits, endpoint).inc()
        self._count(self._waited, endpoint).inc(seconds)

    def pacing_refused(self, endpoint: str) -> None:
        self._count(self._refusals, endpoint).inc()

    def verdict(self, useful: bool, pairwise: bool) -> None:
        self._count(self._verdicts, "useful" if useful else "not_useful").inc()
        if pairwise:
            self._pairwise.inc()

    def route_failover(self, error_kind: str) -> None:
        self._count(self._failovers, error_kind).inc()

    def _count(self, family: Counter, *labels: str) -> Counter:
        """`family.labels(*labels)`, bound once: the client's own lookup costs a lock and a dozen calls.
        The hot paths look the child up inline (`get(key) or ...`) and come here only the first time."""
        key = (family, *labels)
        child = self._counters.get(key)
        if child is None:
            child = self._counters[key] = family.labels(*labels)
        return child

    def _time(self, family: Histogram, *labels: str) -> Histogram:
        key = (family, *labels)
        child = self._histograms.get(key)
        if child is None:
            child = self._histograms[key] = family.labels(*labels)
        return child
