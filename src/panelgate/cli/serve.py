"""`panelgate serve`: the gateway and its admin API on one port.

The command reads its options and then replaces itself (`os.execv`: the same
process id, signals and terminal) with `python -m panelgate.http.serve_process`,
so the long-running server holds none of the command line's modules. The
options travel as the `PANELGATE_*` variables they stand for, so an option
wins over the environment as it always did.
"""

from __future__ import annotations

import os
import sys
from typing import Literal

import typer

SERVER_MODULE = "panelgate.http.serve_process"


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
    given = {"BIND": host, "PORT": port, "WORKERS": workers, "LOG_FORMAT": log_format}
    for name, value in given.items():
        if value is not None:
            variable = f"PANELGATE_{name}"
            for spelled in [found for found in os.environ if found.upper() == variable]:
                del os.environ[spelled]  # the settings read any case: only the option may be left
            os.environ[variable] = str(value)
    sys.stdout.flush()
    sys.stderr.flush()
    server = [sys.executable, *interpreter_options(sys.orig_argv), "-m", SERVER_MODULE, log_level]
    os.execv(sys.executable, server)


def interpreter_options(command: list[str]) -> list[str]:
    """The options the interpreter was started with (`python -X importtime -m panelgate …`), so the
    server runs under them too: everything before the script, `-m` or `-c`."""
    options: list[str] = []
    words = iter(command[1:])
    for word in words:
        if word in ("-X", "-W"):
            options += [word, next(words, "")]
        elif word.startswith("-") and word not in ("-m", "-c", "-"):
            options.append(word)
        else:
            break
    return options
