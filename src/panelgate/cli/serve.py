"""`panelgate serve`: the gateway and its admin API on one port.

The server stack is imported inside the command, so the client commands that
share this program start fast.
"""

from __future__ import annotations

import logging

import typer


def serve(
    host: str = typer.Option(
        None, "--host", help="address to bind (default 127.0.0.1; any other needs PANELGATE_ADMIN_TOKEN)"
    ),
    port: int = typer.Option(None, "--port", help="port (default 8122, or PANELGATE_PORT)"),
    log_level: str = typer.Option("info", "--log-level", help="debug, info, warning or error"),
) -> None:
    """Serve the gateway (SQLite in the data folder unless PANELGATE_DATABASE_URL says otherwise)."""
    import uvicorn

    from panelgate.http.access.policy import problems
    from panelgate.http.app import create_app
    from panelgate.settings import Settings

    settings = Settings()
    if host is not None or port is not None:
        settings = settings.model_copy(update={"bind": host or settings.bind, "port": port or settings.port})
    refused = problems(settings)
    if refused:
        for problem in refused:
            typer.echo(f"panelgate cannot start: {problem}", err=True)
        raise typer.Exit(2)
    settings.ensure_data_dir()
    logging.basicConfig(level=log_level.upper(), format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    typer.echo(f"panelgate on http://{settings.bind}:{settings.port}  (data: {settings.data_dir})", err=True)
    uvicorn.run(
        create_app(settings),
        host=settings.bind,
        port=settings.port,
        log_level=log_level,
        loop="uvloop",
        http="httptools",
        access_log=False,
        timeout_graceful_shutdown=30,
    )
