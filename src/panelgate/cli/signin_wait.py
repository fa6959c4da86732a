"""Waiting for a sign-in the server runs: asked about every second until it is no longer pending.

A device sign-in moves on only when someone asks how it stands (the server
asks the provider then), so the wait is what finishes it. On a terminal a
spinner on stderr says what is awaited and for how long; a pipe or a log
gets one plain line instead of spinner frames. A sign-in the server still
calls pending well after it should have expired is given up here too, so
the command always ends.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any

from panelgate.cli.client import segment
from panelgate.cli.common import Session
from panelgate.cli.failures import CliFailure
from panelgate.cli.moments import moment_of

POLL_S = 1.0
GRACE = timedelta(seconds=30)


class SigninWait:
    """One started sign-in (the server's answer to the start, or its id alone), waited for until it ends."""

    def __init__(self, s: Session, started: dict[str, Any]) -> None:
        self.s = s
        self.started = started
        self.path = f"/api/connect/signins/{segment(str(started.get('signin')))}"
        self.began = time.monotonic()

    def run(self) -> dict[str, Any]:
        """The sign-in once it is connected, failed or expired."""
        err = self.s.output.err
        try:
            if not err.is_terminal:
                self.s.output.note(f"waiting for {self.awaited()}…")
                return self._poll()
            with err.status(self.describe(), spinner="dots") as status:
                return self._poll(lambda: status.update(self.describe()))
        except KeyboardInterrupt:
            raise CliFailure(
                f"stopped waiting; the sign-in stays open until {clock(self.started.get('expires_at'))}"
            ) from None

    def _poll(self, tick: Callable[[], None] | None = None) -> dict[str, Any]:
        while True:
            time.sleep(POLL_S)
            signin: dict[str, Any] = self.s.client.call("GET", self.path)
            if signin.get("status") != "pending":
                return signin
            if past(self.started.get("expires_at"), GRACE):
                return {**signin, "status": "expired"}
            if tick is not None:
                tick()

    def awaited(self) -> str:
        if self.started.get("user_code"):
            return f"the code {self.started.get('user_code')} to be entered"
        if self.started.get("url"):
            return "you to sign in in the browser"
        return f"sign-in {self.started.get('signin')} to finish"

    def describe(self) -> str:
        return f"waiting for {self.awaited()} · {time.monotonic() - self.began:.0f} s"


def clock(at: str | None) -> str:
    """An ISO moment from the server as `HH:MM UTC` today, with its date on another day."""
    moment = moment_of(at)
    if moment is None:
        return "it expires"
    today = datetime.now(UTC).date()
    return moment.strftime("%H:%M UTC" if moment.date() == today else "%Y-%m-%d %H:%M UTC")


def past(at: str | None, grace: timedelta) -> bool:
    """Whether the moment `at` (None: never) was more than `grace` ago."""
    moment = moment_of(at)
    return moment is not None and datetime.now(UTC) > moment + grace
