"""`GET /metrics` under `panelgate serve --workers 2`: whichever worker answers the scrape, the figures
are both workers' summed, exact after a mixed run spread over the two."""

from __future__ import annotations

import os
import signal
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from tests.conftest import arrange_bench
from tests.http.helpers import ask, hello
from tests.http.metrics_helpers import figure, run_mixed_load, scrape
from tests.support.gateway import Gateway
from tests.support.upstream import FakeUpstream
from tests.support.workers import metrics_folder, started_with_two_workers, worker_processes

MORE_PANELS = 16


@pytest.fixture
def two_workers(tmp_path: Path, upstream: FakeUpstream) -> Iterator[Gateway]:
    gateway = started_with_two_workers(tmp_path / "home")
    try:
        yield arrange_bench(gateway, upstream)
    finally:
        gateway.close()


def test_figures_are_summed_over_both_workers(two_workers: Gateway, upstream: FakeUpstream):
    run_mixed_load(two_workers, upstream)
    with ThreadPoolExecutor(max_workers=8) as pool:  # a connection each, spread over the workers
        replies = list(pool.map(lambda _: ask(two_workers, hello()), range(MORE_PANELS)))
    assert [r.status_code for r in replies] == [200] * MORE_PANELS
    counted = counting_workers(two_workers)
    assert len(counted) == 2, "the requests did not reach both workers"

    for _ in range(4):  # each scrape may land on either worker: every one sees the sum
        figures = scrape(two_workers)
        panels = 2 + MORE_PANELS
        chat = {"route": "/v1/chat/completions", "method": "POST", "status": "200"}
        assert figure(figures, "panelgate_http_requests_total", **chat) == panels + 1
        assert figure(figures, "panelgate_panel_duration_seconds_count", collection="core") == panels
        assert figure(figures, "panelgate_seats_total", status="ok", error_kind="none") == 2 * panels
        assert figure(figures, "panelgate_seats_total", status="error", error_kind="signin") == panels
        assert figure(figures, "panelgate_upstream_errors_total", endpoint="up", kind="signin") == panels + 1
        assert figure(figures, "panelgate_route_failovers_total", error_kind="signin") == 1
        assert figure(figures, "panelgate_verdicts_total", verdict="useful") == 1
        assert figure(figures, "panelgate_verdicts_total", verdict="not_useful") == 1
        assert figure(figures, "panelgate_pairwise_verdicts_total") == 1
        tokens_in = 100 * (panels + 1)  # m1 answers every panel and the route turn
        assert (
            figure(figures, "panelgate_tokens_total", endpoint="up", model="m1", direction="input")
            == tokens_in
        )


def test_a_dead_workers_counts_stay_in_the_sum(two_workers: Gateway):
    with ThreadPoolExecutor(max_workers=4) as pool:
        replies = list(pool.map(lambda _: ask(two_workers, hello()), range(MORE_PANELS)))
    assert [r.status_code for r in replies] == [200] * MORE_PANELS
    counted = counting_workers(two_workers)
    assert len(counted) == 2, "the requests did not reach both workers"
    victim = next(iter(counted))
    os.kill(victim, signal.SIGKILL)
    deadline = time.monotonic() + 20
    while {w.pid for w in worker_processes(two_workers)} & {victim} or len(worker_processes(two_workers)) < 2:
        assert time.monotonic() < deadline, "the supervisor did not replace the killed worker"
        time.sleep(0.1)
    figures = scrape(two_workers)
    assert figure(figures, "panelgate_panel_duration_seconds_count", collection="core") == MORE_PANELS


def test_each_start_counts_from_zero_in_a_fresh_folder(two_workers: Gateway):
    folder = multiprocess_folder(two_workers)
    assert ask(two_workers, hello()).status_code == 200
    two_workers.stop()
    assert not Path(folder).exists(), "the folder outlived its server"
    two_workers.start()
    assert multiprocess_folder(two_workers) != folder
    assert figure(scrape(two_workers), "panelgate_panel_duration_seconds_count", collection="core") == 0


def multiprocess_folder(gateway: Gateway) -> str:
    return str(metrics_folder(gateway))


def counting_workers(gateway: Gateway) -> set[int]:
    """The workers that wrote a counter file (prometheus_client names each after its process)."""
    pids = {worker.pid for worker in worker_processes(gateway)}
    names = os.listdir(multiprocess_folder(gateway))
    return {pid for pid in pids if f"counter_{pid}.db" in names}
