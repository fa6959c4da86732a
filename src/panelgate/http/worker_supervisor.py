"""The supervisor of `serve --workers N` once its workers run: a small process that only waits.

The process that built the app and forked the workers from it would keep
every page of that app for as long as the server runs, and as the workers
write to their copies (reference counts, new objects in old pools) its
originals become its alone: about 23 MiB of a two-worker server at idle,
doing nothing. So once the workers are forked it replaces itself with this
module (`os.execv`: the same process id, so the workers stay its children
and its signals stay blocked until it is ready for them).

It restarts a worker that dies, now as a fresh process that builds its own
app (`serve_process`'s worker mode: nothing to fork from any more); stops
when a worker cannot start (a broken app or port fails the same way every
time); and on SIGINT or SIGTERM lets every worker finish its requests, then
removes the start's `/metrics` folder. No gauge is kept per live process, so
a dead worker's counts simply stay in the sum.
"""

from __future__ import annotations

import contextlib
import logging
import os
import shutil
import signal
import sys
import time
from types import FrameType
from typing import NoReturn

from panelgate.http.server_logging import set_up_logging

STOP_SIGNALS = {signal.SIGINT, signal.SIGTERM}
STARTUP_FAILURE = 3
"""uvicorn's exit status for an app that could not start (`uvicorn.config.STARTUP_FAILURE`; not imported,
as uvicorn would be the largest thing this process holds)."""
SERVER_MODULE = "panelgate.http.serve_process"
WORKER_MODE = "--worker"
POLL_S = 0.2
"""How often a dead worker is looked for while nothing else happens."""
METRICS_FOLDER = "PROMETHEUS_MULTIPROC_DIR"
"""`observe.MULTIPROCESS_DIR`, spelled out: importing `observe` would bring prometheus_client along."""

log = logging.getLogger("panelgate.http.workers")  # the name these lines had before the supervisor moved here


def become_supervisor(workers: list[int], log_level: str, log_format: str, grace_s: float) -> NoReturn:
    """Replace this process with the supervisor of `workers` (never returns)."""
    sys.stdout.flush()
    sys.stderr.flush()
    arguments = [log_level, log_format, f"{grace_s:g}", *map(str, workers)]
    os.execv(sys.executable, [sys.executable, "-m", __name__, *arguments])


def supervise(workers: list[int], log_level: str, grace_s: float) -> int:
    """Keep `workers` running until told to stop; the server's exit status."""
    stopping: list[int] = []

    def stop(signum: int, _frame: FrameType | None) -> None:
        stopping.append(signum)

    for signum in STOP_SIGNALS:
        signal.signal(signum, stop)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, STOP_SIGNALS)  # blocked since before the workers' fork
    try:
        return _keep_serving(workers, log_level, stopping)
    finally:
        _stop(workers, grace_s)
        folder = os.environ.get(METRICS_FOLDER)
        if folder:
            shutil.rmtree(folder, ignore_errors=True)


def _keep_serving(workers: list[int], log_level: str, stopping: list[int]) -> int:
    while not stopping:
        pid, status = _reaped()
        if not pid:
            time.sleep(POLL_S)
            continue
        if pid not in workers:
            continue
        code = os.waitstatus_to_exitcode(status)
        if code == STARTUP_FAILURE:
            workers.remove(pid)
            log.error("a worker could not start (see above); stopping")
            return STARTUP_FAILURE
        log.warning("worker %s stopped with status %s; starting another", pid, code)
        workers[workers.index(pid)] = _start_worker(log_level)
    return 0


def _reaped() -> tuple[int, int]:
    """A child that ended, with its wait status; (0, 0) when none has."""
    try:
        return os.waitpid(-1, os.WNOHANG)
    except ChildProcessError:
        return 0, 0


def _start_worker(log_level: str) -> int:
    """A replacement worker: a fresh server process in worker mode, a child of this one."""
    command = [sys.executable, "-m", SERVER_MODULE, log_level, WORKER_MODE]
    pid = os.fork()
    if pid == 0:
        try:
            os.execv(sys.executable, command)
        finally:
            os._exit(STARTUP_FAILURE)  # only if the exec itself failed
    return pid


def _stop(workers: list[int], grace_s: float) -> None:
    for pid in workers:
        _signal(pid, signal.SIGTERM)  # uvicorn finishes the requests in flight
    deadline = time.monotonic() + grace_s
    left = set(workers)
    while left and time.monotonic() < deadline:
        pid, _ = _reaped()
        if pid:
            left.discard(pid)
        else:
            time.sleep(0.05)
    for pid in left:
        _signal(pid, signal.SIGKILL)
        with contextlib.suppress(ChildProcessError):
            os.waitpid(pid, 0)


def _signal(pid: int, signum: int) -> None:
    with contextlib.suppress(ProcessLookupError):
        os.kill(pid, signum)


if __name__ == "__main__":
    level, log_format, grace, *pids = sys.argv[1:]
    set_up_logging(level, log_format)
    sys.exit(supervise([int(pid) for pid in pids], level, float(grace)))
