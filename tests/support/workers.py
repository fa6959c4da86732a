"""A gateway under `panelgate serve --workers 2`, and a look at its worker processes."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import psutil

from panelgate.http.workers import WORKER_NAME
from tests.support.gateway import Gateway


def started_with_two_workers(home: Path) -> Gateway:
    """Two workers, with a temporary folder of their own (where the supervisor puts `/metrics` files)."""
    temporary = home.parent / "tmp"
    temporary.mkdir(parents=True, exist_ok=True)
    return Gateway(home, env={"PANELGATE_WORKERS": "2", "TMPDIR": str(temporary)}, in_process=False).start()


def metrics_folder(gateway: Gateway) -> Path:
    """The folder of this start's `/metrics` files: the only one in the gateway's temporary folder."""
    (folder,) = Path(gateway.extra_env["TMPDIR"]).glob("panelgate-metrics-*")
    return folder


def worker_processes(gateway: Gateway) -> list[psutil.Process]:
    """The supervisor's living workers.

    Workers are told from the supervisor's other children by the name each gives itself. A
    worker just killed stays a zombie until the supervisor reaps it; it is no longer a worker,
    so it is left out.
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
        return process.name() == WORKER_NAME.decode() and process.status() != psutil.STATUS_ZOMBIE
    except (psutil.ZombieProcess, psutil.NoSuchProcess):
        return False
