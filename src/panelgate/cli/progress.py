"""The live status line on stderr while a panel's seats are pending.

Only on a terminal: a pipe or a log gets the answers and the seat table,
never spinner frames. The line counts seats from the reply as it streams
(the heading says how many were seated, each seat section carries its call
id line), so it needs nothing the reply does not already say. When stdout is
the same terminal the line steps aside while an answer is written, and comes
back once the answer's line is complete, so the two never share a line.
"""

from __future__ import annotations

import re
import sys
import time
from types import TracebackType
from typing import TextIO

from rich.console import Console
from rich.live import Live
from rich.spinner import Spinner
from rich.text import Text

SEATED = re.compile(r"· (\d+) members? \+ (\d+) explorers? ·")
ANSWERED = re.compile(r"^`[^`\s]+` · (?:ok|empty|error) · ")


class PanelProgress:
    """Use as a context manager around the stream; write the answer through `emit`."""

    def __init__(self, console: Console, model: str) -> None:
        self.model = model
        self.started = time.monotonic()
        self.seats: int | None = None
        self.answered = 0
        self._tail = ""
        self._spinner = Spinner("dots")
        self._live: Live | None = None
        if console.is_terminal:
            self._live = Live(
                self,
                console=console,
                transient=True,
                refresh_per_second=8,
                redirect_stdout=False,
                redirect_stderr=False,
            )
        self._shares_terminal = self._live is not None and sys.stdout.isatty()

    def __rich__(self) -> Spinner:
        self._spinner.update(text=Text(self.describe()))
        return self._spinner

    def describe(self) -> str:
        parts = [self.model]
        if self.seats is not None:
            parts.append(f"{self.answered} of {self.seats} seats answered")
        parts.append(f"{time.monotonic() - self.started:.0f} s")
        return " · ".join(parts)

    def __enter__(self) -> PanelProgress:
        if self._live is not None:
            self._live.start()
        return self

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        self.finish()

    def finish(self) -> None:
        """The panel is done: the line goes away for good."""
        if self._live is not None:
            self._live.stop()
            self._live = None

    def emit(self, text: str, stream: TextIO) -> None:
        """Write a piece of the answer to `stream`, reading it for the seat counts on the way."""
        live = self._live if self._shares_terminal else None
        if live is not None and live.is_started:
            live.stop()
        stream.write(text)
        stream.flush()
        self._count(text)
        if live is not None and text.endswith("\n"):
            live.start()

    def _count(self, text: str) -> None:
        lines = (self._tail + text).split("\n")
        self._tail = lines.pop()
        for line in lines:
            seated = SEATED.search(line)
            if seated and self.seats is None:
                self.seats = int(seated.group(1)) + int(seated.group(2))
            elif ANSWERED.match(line):
                self.answered += 1
