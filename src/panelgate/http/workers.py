"""`panelgate serve --workers N` on Linux: N processes on one port, each listening on a socket of its own.

Processes sharing one listening socket do not share its connections: Linux
wakes the process that waited last, which is the one that just finished a
request, so the busiest worker accepts nearly every new connection. Sixteen
agents connecting together all landed in one of two workers (16 of 16,
measured with `ss` during `benchmarks/route.py`) while the other idled, and
keep-alive kept them there. With `SO_REUSEPORT` each worker listens on a
socket of its own and the kernel spreads new connections across them.

The supervisor builds the app once and forks the workers from it, so the
imported code and the built routes and schemas (most of an idle worker's
memory) sit in pages the workers share until one of them writes there;
`gc.freeze()` keeps the collector from touching those objects, which would
copy their pages into every worker. Nothing is opened before the fork: each
worker opens its own database, clients and loop when its app starts.

The supervisor first binds the port once without `SO_REUSEPORT`, so a
second server on a port already served is refused instead of joining the
group. Once the workers are forked it replaces itself with a small process
that only supervises them (`http/worker_supervisor.py`: it restarts a worker
that dies, stops when one cannot start, and on SIGINT or SIGTERM lets every
worker finish its requests before it exits).

Each start gets a fresh, empty folder for prometheus_client's multiprocess
mode (`PROMETHEUS_MULTIPROC_DIR`, inherited by the workers), so `/metrics`
sums every worker's figures, a replaced worker's counts stay in the sum,
and nothing of an earlier start is counted; it is removed when the server
stops.
"""

from __future__ import annotations

import contextlib
import logging
import os
import shutil
import signal
import socket
import sys
import tempfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import cache
from typing import Any

import uvicorn
from starlette.types import ASGIApp
from uvicorn.config import STARTUP_FAILURE

from panelgate.http.collector import freeze_start
from panelgate.http.server_logging import set_up_logging
from panelgate.http.worker_supervisor import STOP_SIGNALS, become_supervisor
from panelgate.observe import count_in_files

log = logging.getLogger(__name__)

APP = "panelgate.http.app:app_from_environment"
"""Where the kernel does not spread connections, uvicorn's workers each build the app from `PANELGATE_*`,
which `serve` sets from its command line."""
BACKLOG = 2048
PR_SET_PDEATHSIG = 1
"""prctl(2): the signal a process gets when its parent dies."""
PR_SET_NAME = 15
"""prctl(2): the process's name, as `ps`, `top` and /proc/PID/comm show it."""
WORKER_NAME = b"panelgate-work"
"""A worker's process name (at most 15 bytes), so it can be told from its supervisor, which has the
same command line."""
STOP_GRACE_S = 5.0
"""Beyond the workers' own graceful-shutdown timeout, before a worker that will not stop is killed."""


def spreads_connections() -> bool:
    """Whether the kernel balances new connections across `SO_REUSEPORT` sockets (Linux; macOS does not)."""
    return sys.platform.startswith("linux") and hasattr(socket, "SO_REUSEPORT")


@dataclass(frozen=True)
class WorkerPlan:
    host: str
    port: int
    uvicorn_options: dict[str, Any]
    """`uvicorn.Config` keywords besides the app, host and port."""
    log_level: str
    log_format: str = "text"


def refuse_taken_port(host: str, port: int) -> None:
    """Raise `OSError` when anything, another panelgate included, already listens on `host:port`."""
    family, address = _address(host, port)
    with socket.socket(family, socket.SOCK_STREAM) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        probe.bind(address)


def serve_workers(count: int, plan: WorkerPlan, build: Callable[[], ASGIApp]) -> int:
    """Run `count` workers until SIGINT or SIGTERM (or one fails to start); returns the exit status.

    `build` makes the app the workers share; an error it raises stops the start. Where the kernel
    would not spread connections, uvicorn's own workers on one shared socket.
    """
    with _metrics_folder():
        return _serve_workers(count, plan, build)


@contextlib.contextmanager
def _metrics_folder() -> Iterator[None]:
    """A fresh folder for this start's `/metrics` values, named in the environment the workers inherit."""
    folder = tempfile.mkdtemp(prefix="panelgate-metrics-")
    count_in_files(folder)
    try:
        yield
    finally:
        count_in_files(None)
        shutil.rmtree(folder, ignore_errors=True)


def _serve_workers(count: int, plan: WorkerPlan, build: Callable[[], ASGIApp]) -> int:
    if not spreads_connections():
        options = {"host": plan.host, "port": plan.port, **plan.uvicorn_options}
        uvicorn.run(APP, factory=True, workers=count, **options)
        return 0
    _c_library()  # loaded before the fork, so the workers share it
    app = _shared(build())
    # blocked until the supervisor is ready for them: a stop asked meanwhile waits, it is not lost
    signal.pthread_sigmask(signal.SIG_BLOCK, STOP_SIGNALS)
    workers = [_fork_worker(plan, app) for _ in range(count)]
    grace_s = plan.uvicorn_options.get("timeout_graceful_shutdown", 0) + STOP_GRACE_S
    become_supervisor(workers, plan.log_level, plan.log_format, grace_s)


def _shared(app: ASGIApp) -> ASGIApp:
    """The app every worker serves, built before the fork; its objects kept out of the collector's way
    so their pages stay shared (module docstring)."""
    freeze_start()
    return app


def _fork_worker(plan: WorkerPlan, app: ASGIApp) -> int:
    supervisor = os.getpid()
    pid = os.fork()
    if pid:
        return pid
    status = 1
    try:
        signal.pthread_sigmask(signal.SIG_UNBLOCK, STOP_SIGNALS)
        serve_one(plan, app, supervisor)
        status = 0
    except SystemExit as exc:
        status = exc.code if isinstance(exc.code, int) else 1
    except Exception:
        log.exception("worker %s failed", os.getpid())
    finally:
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(status)


def serve_one(plan: WorkerPlan, app: ASGIApp, supervisor: int) -> None:
    """A worker's life: its own listening socket, then uvicorn until told to stop."""
    signal.signal(signal.SIGINT, signal.default_int_handler)  # Python's own, not the supervisor's, which
    signal.signal(signal.SIGTERM, signal.SIG_DFL)  # came with the fork; uvicorn sets its own as it starts
    _stop_with_supervisor(supervisor)
    _c_library().prctl(PR_SET_NAME, WORKER_NAME)
    set_up_logging(plan.log_level, plan.log_format)
    try:
        listening = _listening_socket(plan.host, plan.port)
    except OSError as exc:
        log.error("cannot listen on %s:%s: %s", plan.host, plan.port, exc)
        sys.exit(STARTUP_FAILURE)
    config = uvicorn.Config(app, host=plan.host, port=plan.port, **plan.uvicorn_options)
    with contextlib.suppress(KeyboardInterrupt):  # Ctrl-C reaches the whole terminal group; uvicorn stopped
        uvicorn.Server(config).run(sockets=[listening])


def _stop_with_supervisor(supervisor: int) -> None:
    """Ask Linux for SIGTERM when the supervisor dies (even by SIGKILL), so no worker keeps the port."""
    _c_library().prctl(PR_SET_PDEATHSIG, signal.SIGTERM)
    if os.getppid() != supervisor:  # it died before the request took effect
        sys.exit(0)


@cache
def _c_library() -> Any:
    """The C library, for prctl(2): ctypes is loaded by a server with workers only (a third of a MiB that
    one process would keep for nothing)."""
    import ctypes

    return ctypes.CDLL(None, use_errno=True)


def _listening_socket(host: str, port: int) -> socket.socket:
    family, address = _address(host, port)
    listening = socket.socket(family, socket.SOCK_STREAM)
    try:
        listening.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        listening.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
        listening.bind(address)
        listening.listen(BACKLOG)
    except OSError:
        listening.close()
        raise
    return listening


def _address(host: str, port: int) -> tuple[socket.AddressFamily, Any]:
    family, _, _, _, address = socket.getaddrinfo(
        host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE
    )[0]
    return family, address
