"""The process `panelgate serve` becomes: the gateway under uvicorn, alone or as a supervisor of workers.

`panelgate serve` reads its options with the command line's tools (Typer,
Click and the CLI's own modules) and then replaces itself with this module
(`os.execv`, the same process id), so the server does not keep those for as
long as it runs. Its options arrive as `PANELGATE_*` variables, which win
over the settings' other sources exactly as the options did; only the log
level, which is no setting, comes as an argument.

uvicorn's package file would load its command line (Click) too, for good:
`http/uvicorn_server.py` keeps it out, and the server is run directly.

With `--workers N` the supervisor builds the app and forks the workers from
it, so they share its memory (`http/workers.py`), then becomes a small
process that only supervises them (`http/worker_supervisor.py`), which runs
this module in worker mode (`--worker`) to replace a worker that died.
"""

from __future__ import annotations

# ruff: noqa: E402  (uvicorn's command line is kept out before anything imports uvicorn)
from panelgate.http.uvicorn_server import without_its_command_line

without_its_command_line()

import contextlib
import logging
import os
import sys
from collections.abc import Callable
from functools import partial
from typing import Any

import uvicorn
from starlette.types import ASGIApp

from panelgate.http.access.policy import problems
from panelgate.http.access.proxies import uvicorn_proxy_options
from panelgate.http.app import CannotStart, create_app
from panelgate.http.collector import collect_seldom, freeze_start
from panelgate.http.open_files import raise_open_files_limit
from panelgate.http.request_limits import limited_protocol
from panelgate.http.server_logging import set_up_logging
from panelgate.http.worker_supervisor import STARTUP_FAILURE, WORKER_MODE
from panelgate.http.workers import WorkerPlan, refuse_taken_port, serve_one, serve_workers
from panelgate.settings import Settings

CANNOT_START = 2
PORT_TAKEN = 1


def run(log_level: str) -> int:
    """Serve until stopped; the exit status (2: the settings or the app refused to start)."""
    collect_seldom()  # the workers of `--workers` inherit it
    settings = Settings()
    refused = problems(settings)
    if refused:
        for problem in refused:
            _say(f"panelgate cannot start: {problem}")
        return CANNOT_START
    settings.ensure_data_dir()
    set_up_logging(log_level, settings.log_format)
    raise_open_files_limit()  # the workers inherit it
    processes = f", {settings.workers} processes" if settings.workers > 1 else ""
    logging.getLogger("panelgate.serve").info(
        "panelgate on %s  (data: %s%s)", _where(settings), settings.data_dir, processes
    )
    options = _uvicorn_options(settings, log_level)
    try:
        if settings.workers == 1:
            app = create_app(settings, migrations_apart=True)
            freeze_start()
            return _serve(uvicorn.Config(app, host=settings.bind, port=settings.port, **options))
        # built once, so the forked workers share it
        shared = partial(create_app, settings, migrations_apart=True)
        return _serve_workers(settings, options, log_level, shared)
    except CannotStart as exc:
        _say(f"panelgate cannot start: {exc}")
        return CANNOT_START


def run_worker(log_level: str) -> int:
    """A worker started in place of one that died: it builds its own app (its supervisor has none to
    fork from) and serves on the port beside the others."""
    collect_seldom()
    settings = Settings()
    plan = WorkerPlan(
        settings.bind, settings.port, _uvicorn_options(settings, log_level), log_level, settings.log_format
    )
    try:
        app = create_app(settings, migrations_apart=True)
    except CannotStart as exc:
        _say(f"panelgate cannot start: {exc}")
        return STARTUP_FAILURE  # the supervisor stops the server rather than start it again and again
    freeze_start()
    serve_one(plan, app, supervisor=os.getppid())
    return 0


def _serve(config: uvicorn.Config) -> int:
    """One process serving until stopped; uvicorn's startup-failure status when it never started
    (what `uvicorn.run` does, without loading uvicorn's command line for it)."""
    server = uvicorn.Server(config)
    with contextlib.suppress(KeyboardInterrupt):
        server.run()
    return 0 if server.started else STARTUP_FAILURE


def _uvicorn_options(settings: Settings, log_level: str) -> dict[str, Any]:
    return {
        "log_level": log_level,
        "loop": "panelgate.http.eager_accept:new_event_loop",  # uvloop, accepting all that wait at once
        "http": limited_protocol(settings),  # httptools with head size, header count and read timeouts
        "ws": "none",  # no route speaks WebSocket, so the websockets package is never imported
        "access_log": False,
        "log_config": None,  # uvicorn's lines go through the root logger, in the same format
        "timeout_graceful_shutdown": 30,
        **uvicorn_proxy_options(settings),  # X-Forwarded-For from PANELGATE_TRUSTED_PROXIES only
    }


def _serve_workers(
    settings: Settings, options: dict[str, Any], log_level: str, build: Callable[[], ASGIApp]
) -> int:
    """`--workers N`: the supervisor's exit status."""
    try:
        refuse_taken_port(settings.bind, settings.port)
    except OSError as exc:
        _say(f"panelgate cannot start: {_where(settings)} is not free ({exc.strerror})")
        return PORT_TAKEN
    plan = WorkerPlan(settings.bind, settings.port, options, log_level, settings.log_format)
    return serve_workers(settings.workers, plan, build)


def _where(settings: Settings) -> str:
    return f"http://{settings.bind}:{settings.port}"


def _say(line: str) -> None:
    print(line, file=sys.stderr, flush=True)


if __name__ == "__main__":
    level, *mode = sys.argv[1:]
    sys.exit(run_worker(level) if mode == [WORKER_MODE] else run(level))
