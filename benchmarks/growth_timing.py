"""Single requests timed one after another on one kept-alive connection: a panel's overhead, a page's cost.

A load level (`load.py`) says how much a server does at once; the growth
benchmark asks something else — how long one request takes when nothing
else is waiting — so each request is timed alone, from writing it to the
last byte of the reply, and the median and 95th percentile are kept.
"""

from __future__ import annotations

import http.client
import os
import statistics
import threading
import time
from dataclasses import dataclass
from urllib.parse import urlsplit

from gateways import MODEL_ID, Gateway, chat_body

WARMUP = 3


@dataclass(frozen=True)
class Timing:
    p50: float
    p95: float

    def __str__(self) -> str:
        return f"{self.p50:.1f} / {self.p95:.1f}"


def percentiles(samples: list[float]) -> Timing:
    ordered = sorted(samples)
    p95 = ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]
    return Timing(round(statistics.median(ordered), 2), round(p95, 2))


def headers(extra: dict[str, str] | None = None) -> dict[str, str]:
    found = {"Accept": "application/json, text/html", **(extra or {})}
    if token := os.environ.get("PANELGATE_ADMIN_TOKEN"):
        found["Authorization"] = f"Bearer {token}"
    return found


def timed(connection: http.client.HTTPConnection, method: str, path: str, body: bytes | None) -> float:
    """Milliseconds from sending the request to the reply's last byte; refuses any status but 200."""
    sent = {"Content-Type": "application/json"} if body is not None else None
    started = time.perf_counter()
    connection.request(method, path, body=body, headers=headers(sent))
    reply = connection.getresponse()
    content = reply.read()
    elapsed = (time.perf_counter() - started) * 1000.0
    if reply.status != 200:
        raise RuntimeError(f"{method} {path} answered HTTP {reply.status}: {content[:300]!r}")
    return elapsed


def series(base_url: str, method: str, path: str, count: int, body: bytes | None = None) -> list[float]:
    """`count` timed requests after `WARMUP` untimed ones, one at a time on one connection."""
    where = urlsplit(base_url)
    connection = http.client.HTTPConnection(where.hostname or "127.0.0.1", where.port, timeout=60)
    try:
        for _ in range(WARMUP):
            timed(connection, method, path, body)
        return [timed(connection, method, path, body) for _ in range(count)]
    finally:
        connection.close()


def time_gets(base_url: str, path: str, count: int) -> Timing:
    return percentiles(series(base_url, "GET", path, count))


def health_beside(base_url: str, path: str, count: int) -> Timing:
    """`GET /health` timed every 10 ms on a connection of its own while `count` GETs of `path` run one at
    a time on another: how long any request waits while the server works on that read (its p50 and its
    worst, in the Timing's second place)."""
    where = urlsplit(base_url)
    connection = http.client.HTTPConnection(where.hostname or "127.0.0.1", where.port, timeout=60)
    waits: list[float] = []
    failed: list[BaseException] = []

    def read() -> None:
        try:
            series(base_url, "GET", path, count)
        except BaseException as error:  # the read's refusal is the run's, not the thread's
            failed.append(error)

    busy = threading.Thread(target=read)
    try:
        timed(connection, "GET", "/health", None)
        busy.start()
        while busy.is_alive():
            waits.append(timed(connection, "GET", "/health", None))
            time.sleep(0.01)
    finally:
        busy.join()
        connection.close()
    if failed:
        raise failed[0]
    return Timing(round(statistics.median(waits), 2), round(max(waits), 2))


def panel_overhead(gateway: Gateway, count: int, latency_ms: float) -> Timing:
    """A whole 3-seat panel's latency minus the upstream's fixed answer time (the seats run in parallel)."""
    samples = series(
        gateway.base_url, "POST", "/v1/chat/completions", count, chat_body(MODEL_ID, stream=False)
    )
    return percentiles([sample - latency_ms for sample in samples])
