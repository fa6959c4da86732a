"""`panelgate serve --workers 2`: two processes on one port behave as one gateway."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx
import orjson
import psutil
import pytest

from tests.conftest import arrange_bench
from tests.http.helpers import ask, hello
from tests.support.gateway import Gateway, free_port
from tests.support.upstream import FakeUpstream
from tests.support.workers import metrics_folder, started_with_two_workers, worker_processes


@pytest.fixture
def two_workers(tmp_path: Path, upstream: FakeUpstream) -> Iterator[Gateway]:
    gateway = started_with_two_workers(tmp_path / "home")
    try:
        yield arrange_bench(gateway, upstream)
    finally:
        gateway.close()


def test_two_workers_serve_one_port_and_never_repeat_a_panel_id(two_workers: Gateway):
    assert len(worker_processes(two_workers)) == 2

    with ThreadPoolExecutor(max_workers=12) as pool:
        replies = list(pool.map(lambda _: ask(two_workers, hello()), range(60)))
    assert [r.status_code for r in replies] == [200] * 60
    panels = [r.json()["bench"]["panel"] for r in replies]
    assert len(set(panels)) == 60
    recorded = two_workers.api("GET", "/api/panels?limit=200", expect=200)["panels"]
    assert {p["id"] for p in recorded} == set(panels)


def test_an_edit_through_one_worker_shows_at_once_on_the_other(two_workers: Gateway):
    for number in range(6):
        two_workers.save_collection(f"fresh{number}", ["m1", "m2"])
        asked = [ask(two_workers, hello(f"bench/fresh{number}")) for _ in range(4)]
        assert [r.status_code for r in asked] == [200] * 4, asked[-1].text


def connections_per_worker(gateway: Gateway, client_ports: set[int]) -> list[int]:
    """How many of the connections from `client_ports` each worker holds."""
    return sorted(
        sum(1 for c in worker.net_connections("tcp") if c.raddr and c.raddr.port in client_ports)
        for worker in worker_processes(gateway)
    )


def test_keep_alive_clients_connecting_together_are_spread_over_the_workers(two_workers: Gateway):
    """Sixteen agents connect at once and keep their connections: no worker is left with none.

    (On one shared listening socket, one worker took nearly all: 16 and 0, 15 and 1.)
    """

    body = orjson.dumps(hello())
    request = (
        f"POST /v1/chat/completions HTTP/1.1\r\nHost: 127.0.0.1:{two_workers.port}\r\n"
        f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\n\r\n"
    ).encode() + body

    async def client() -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
        reader, writer = await asyncio.open_connection("127.0.0.1", two_workers.port)
        writer.write(request)  # at once, as a load driver or a busy agent does
        return reader, writer

    async def sixteen_clients() -> list[int]:
        opened = await asyncio.gather(*(client() for _ in range(16)))
        for reader, _ in opened:
            assert (await reader.readuntil(b"\r\n\r\n")).startswith(b"HTTP/1.1 200")
        ports = {writer.get_extra_info("sockname")[1] for _, writer in opened}
        split = connections_per_worker(two_workers, ports)
        for _, writer in opened:
            writer.close()
        return split

    split = asyncio.run(sixteen_clients())
    assert sum(split) == 16 and len(split) == 2
    assert min(split) >= 2, f"connections per worker: {split}"


def test_a_worker_that_dies_is_replaced_and_the_gateway_keeps_answering(two_workers: Gateway):
    first, second = worker_processes(two_workers)
    first.kill()
    first.wait(10)
    for _ in range(100):
        now = worker_processes(two_workers)
        if len(now) == 2 and first.pid not in {w.pid for w in now}:
            break
        time.sleep(0.1)
    assert second.pid in {w.pid for w in worker_processes(two_workers)}
    assert len(worker_processes(two_workers)) == 2
    replies = [ask(two_workers, hello()) for _ in range(8)]
    assert [r.status_code for r in replies] == [200] * 8


def test_a_second_server_on_the_same_port_is_refused_not_joined(two_workers: Gateway, tmp_path: Path):
    env = {**os.environ, "PANELGATE_HOME": str(tmp_path / "other")}
    argv = [sys.executable, "-m", "panelgate", "serve", "--port", str(two_workers.port), "--workers", "2"]
    done = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=60)
    assert done.returncode == 1
    assert f"127.0.0.1:{two_workers.port} is not free" in done.stderr


def test_the_workers_stop_with_their_supervisor_even_when_it_is_killed(two_workers: Gateway):
    workers = worker_processes(two_workers)
    two_workers.kill()  # SIGKILL: the supervisor cannot pass anything on
    _, alive = psutil.wait_procs(workers, timeout=20)
    assert not alive, "a worker outlived its supervisor and kept the port"
    with pytest.raises(httpx.ConnectError):
        httpx.get(f"{two_workers.url}/health", timeout=5)


def test_the_workers_share_the_app_their_supervisor_built(two_workers: Gateway):
    """Forked from a supervisor that built the app, each worker keeps most of its memory in pages it
    shares (spawned workers, each importing and building the app itself, shared only libraries)."""
    for _ in range(8):
        assert ask(two_workers, hello()).status_code == 200
    workers = worker_processes(two_workers)
    assert len(workers) == 2
    for worker in workers:
        memory = worker.memory_full_info()
        assert memory.uss < 0.6 * memory.rss, f"worker {worker.pid}: {memory.uss} of {memory.rss} private"


def test_the_supervisor_keeps_no_app_once_its_workers_run_and_clears_metrics_at_stop(two_workers: Gateway):
    """The process that built the app and forked the workers becomes a small supervisor (the same
    process id), so the app's pages the workers wrote to are not kept a third time."""
    assert two_workers.process is not None
    supervisor = psutil.Process(two_workers.process.pid)
    assert "panelgate.http.worker_supervisor" in supervisor.cmdline()
    workers = worker_processes(two_workers)
    assert len(workers) == 2 and all(worker.ppid() == supervisor.pid for worker in workers)
    for worker in workers:
        assert supervisor.memory_info().rss < 0.4 * worker.memory_info().rss, "the supervisor holds no app"
    folder = metrics_folder(two_workers)
    two_workers.close()
    assert not folder.exists(), "a stopped server leaves no /metrics files behind"
    assert all(not worker.is_running() or worker.status() == psutil.STATUS_ZOMBIE for worker in workers)


def test_workers_that_cannot_start_stop_the_server_instead_of_being_started_again(tmp_path: Path):
    """Each worker opens the database as its app starts; one nobody serves fails the same way every
    time, so the supervisor stops with uvicorn's startup-failure status and says why."""
    env = {
        **os.environ,
        "PANELGATE_HOME": str(tmp_path / "home"),
        "PANELGATE_DATABASE_URL": "postgresql://panelgate@127.0.0.1:9/nothing-listens-here",
    }
    argv = [sys.executable, "-m", "panelgate", "serve", "--port", str(free_port()), "--workers", "2"]
    done = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=90)
    assert done.returncode == 3, done.stderr[-2000:]
    assert "a worker could not start (see above); stopping" in done.stderr
