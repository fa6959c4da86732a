"""A gateway under `panelgate serve --workers 2`, and a look at its worker processes."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import psutil

from tests.support.gateway import Gateway


def started_with_two_workers(home: Path) -> Gateway:
    return Gateway(home, env={"PANELGATE_WORKERS": "2"}, in_process=False).start()


def worker_processes(gateway: Gateway) -> list[psutil.Process]:
    """The supervisor's living workers.

    A worker just killed stays a zombie until the supervisor reaps it; it is no longer a
    worker, and psutil refuses to read its command line, so it is left out.
    """
    assert gateway.process is not None
    return [child for child in _children(gateway.process.pid) if _is_worker(child)]


def _children(pid: int) -> Iterator[psutil.Process]:
    try:
        yield from psutil.Process(pid).children()
    except psutil.NoSuchProcess:
        return


def _is_worker(process: psutil.Process) -> bool:
    try:
        return "spawn_main" in " ".join(process.cmdline())
    except (psutil.ZombieProcess, psutil.NoSuchProcess):
        return False
