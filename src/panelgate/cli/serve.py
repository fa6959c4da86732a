"""`panelgate serve`: the gateway and its admin API on one port.

The server stack is imported inside the command, so the client commands that
share this program start fast. With `--workers` the supervisor builds the app
and forks the workers from it, so they share its memory (`http/workers.py`).
"""

from __future__ import annotations

import logging
import os
from collections.abc import Callable
from functools import partial
from typing import TYPE_CHECKING, Any, Literal

import typer

if TYPE_CHECKING:
    from starlette.types import ASGIApp

    from panelgate.settings import Settings


def serve(
    host: str = typer.Option(
        None, "--host", help="address to bind (default 127.0.0.1; any other needs PANELGATE_ADMIN_TOKEN)"
    ),
    port: int = typer.Option(None, "--port", help="port (default 8122, or PANELGATE_PORT)"),
    workers: int = typer.Option(
        None, "--workers", min=1, max=16, help="processes sharing the port (default 1, or PANELGATE_WORKERS)"
    ),
    log_level: str = typer.Option("info", "--log-level", help="debug, info, warning or error"),
    log_format: Literal["text", "json"] = typer.Option(
        None, "--log-format", help="text, or json: one object a line (default text, or PANELGATE_LOG_FORMAT)"
    ),
) -> None:
    """Serve the gateway (SQLite in the data folder unless PANELGATE_DATABASE_URL says otherwise)."""
    import uvicorn

    from panelgate.http.access.policy import problems
    from panelgate.http.access.proxies import uvicorn_proxy_options
    from panelgate.http.app import CannotStart, create_app
    from panelgate.http.open_files import raise_open_files_limit
    from panelgate.http.request_limits import limited_protocol
    from panelgate.http.server_logging import set_up_logging
    from panelgate.settings import Settings

    given = {"bind": host, "port": port, "workers": workers, "log_format": log_format}
    settings = Settings().model_copy(update={k: v for k, v in given.items() if v is not None})
    refused = problems(settings)
    if refused:
        for problem in refused:
            typer.echo(f"panelgate cannot start: {problem}", err=True)
        raise typer.Exit(2)
    settings.ensure_data_dir()
    set_up_logging(log_level, settings.log_format)
    raise_open_files_limit()  # the workers inherit it
    processes = f", {settings.workers} processes" if settings.workers > 1 else ""
    where = f"http://{settings.bind}:{settings.port}"
    logging.getLogger("panelgate.serve").info(
        "panelgate on %s  (data: %s%s)", where, settings.data_dir, processes
    )
    options: dict[str, Any] = {
        "log_level": log_level,
        "loop": "panelgate.http.eager_accept:new_event_loop",  # uvloop, accepting all that wait at once
        "http": limited_protocol(settings),  # httptools with head size, header count and read timeouts
        "ws": "none",  # no route speaks WebSocket, so the websockets package is never imported
        "access_log": False,
        "log_config": None,  # uvicorn's lines go through the root logger, in the same format
        "timeout_graceful_shutdown": 30,
        **uvicorn_proxy_options(settings),  # X-Forwarded-For from PANELGATE_TRUSTED_PROXIES only
    }
    try:
        if settings.workers == 1:
            app = create_app(settings, migrations_apart=True)
            uvicorn.run(app, host=settings.bind, port=settings.port, **options)
            return
        # built once, so the forked workers share it
        shared = partial(create_app, settings, dashboard_now=True, migrations_apart=True)
        status = _serve_workers(settings, options, log_level, shared)
    except CannotStart as exc:
        typer.echo(f"panelgate cannot start: {exc}", err=True)
        raise typer.Exit(2) from exc
    raise typer.Exit(status)


def _serve_workers(
    settings: Settings, options: dict[str, Any], log_level: str, build: Callable[[], ASGIApp]
) -> int:
    """`--workers N`: the supervisor's exit status."""
    from panelgate.http.workers import WorkerPlan, refuse_taken_port, serve_workers

    where = f"http://{settings.bind}:{settings.port}"
    # where the kernel cannot spread connections, uvicorn's workers build the app from the environment
    os.environ.update(
        PANELGATE_BIND=settings.bind,
        PANELGATE_PORT=str(settings.port),
        PANELGATE_WORKERS=str(settings.workers),
        PANELGATE_LOG_FORMAT=settings.log_format,
    )
    try:
        refuse_taken_port(settings.bind, settings.port)
    except OSError as exc:
        typer.echo(f"panelgate cannot start: {where} is not free ({exc.strerror})", err=True)
        raise typer.Exit(1) from exc
    plan = WorkerPlan(settings.bind, settings.port, options, log_level, settings.log_format)
    return serve_workers(settings.workers, plan, build)
