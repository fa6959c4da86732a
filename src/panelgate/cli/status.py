"""`panelgate status`: which server this command talks to and what it holds."""

from __future__ import annotations

import typer

from panelgate import __version__
from panelgate.cli.common import JsonFlag, UrlOption, session


def status(ctx: typer.Context, as_json: JsonFlag = False, url: UrlOption = None) -> None:
    """Show the server's version, URL, data folder, database and what it holds."""
    with session(ctx, url, as_json) as s:
        found = s.client.call("GET", "/api/status")
        if s.as_json:
            s.output.json(found)
            return
        counts = found.get("counts", {})
        server_version = found.get("version", "?")
        version = (
            server_version
            if server_version == __version__
            else f"{server_version} (this command {__version__})"
        )
        s.output.fields(
            [
                ("panelgate", version),
                ("url", s.client.connection.url),
                ("data folder", found.get("data_dir")),
                ("database", found.get("database")),
                ("endpoints", counts.get("endpoints")),
                ("models", counts.get("models")),
                ("collections", counts.get("collections")),
                ("panels today", counts.get("panels_today")),
                ("answers owed", _owed(counts.get("answers_owed"))),
            ]
        )


def _owed(count: object) -> object:
    """How many answers await a verdict, and the command that goes through them."""
    return f"{count} (panelgate judge)" if isinstance(count, int) and count > 0 else count
