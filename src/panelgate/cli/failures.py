"""Why a client command stopped, as exit codes a script can branch on.

    CliFailure        1  the server refused, or the exchange failed
    ├── Refused       1  the server answered with an error (its message, as sent)
    ├── UsageProblem  2  the command line cannot be served (nothing to ask, no --yes ...)
    └── NoServer      3  nothing answers at the URL

Commands raise these; `panelgate.cli.main.run` prints the message on stderr
and exits with the code, so no command decides how a failure looks.
"""

from __future__ import annotations

OK = 0
REFUSED = 1
USAGE = 2
NO_SERVER = 3


class CliFailure(Exception):
    exit_code = REFUSED

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class Refused(CliFailure):
    def __init__(self, message: str, status: int | None = None) -> None:
        super().__init__(message)
        self.status = status


class UsageProblem(CliFailure):
    exit_code = USAGE


class NoServer(CliFailure):
    exit_code = NO_SERVER

    def __init__(self, url: str) -> None:
        super().__init__(
            f"no panelgate server answers at {url}; start one with `panelgate serve`, "
            "or point --url / PANELGATE_URL at a running one"
        )
        self.url = url
