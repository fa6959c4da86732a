"""The ids a request's log lines carry: filled in by whoever learns one, read by the log's formatters.

The access line is written outside the engine, once the reply is sent, yet
the panel id, its seats' call ids and a route turn's conversation are learnt
inside it, and a panel runs in a task of its own. A task copies the context's
variables, so an id *set* in a variable there would never reach the access
line; an object *shared* through one variable does. So the access layer puts
a fresh `LogContext` in `current` for each request, the engine writes what it
learns into that object (`note_panel`, `note_turn`), and every record logged
while the request is served, in whichever task, reads the same object.

Pure: a context variable and a dataclass. Outside a request (a job, a test
calling the engine directly) `current` holds None and the notes do nothing.
"""

from __future__ import annotations

from collections.abc import Iterable
from contextvars import ContextVar
from dataclasses import dataclass


@dataclass(slots=True)
class LogContext:
    """One request's ids; never a key, token, header or anything the caller wrote."""

    key: str | None = None
    """The gateway key's name, `admin`, or `-` (no credential), once the access layer has read it."""
    route: str | None = None
    """The route template that served the request (`/v1/chat/completions`), not the path asked."""
    panel: str | None = None
    calls: tuple[str, ...] = ()
    """The panel's seat call ids, or a route turn's call."""
    conversation: str | None = None

    def text(self) -> str:
        """The known ids as `name=value` words in a fixed order, for a text line a person can grep."""
        words = [f"key={self.key}"] if self.key else []
        if self.route:
            words.append(f"route={self.route}")
        if self.panel:
            words.append(f"panel={self.panel}")
        if self.calls:
            words.append("calls=" + ",".join(self.calls))
        if self.conversation:
            words.append(f"conv={self.conversation}")
        return " ".join(words)

    def fields(self) -> dict[str, str | list[str]]:
        """The known ids by name, for a JSON log line."""
        known: dict[str, str | list[str]] = {}
        for name in ("key", "route", "panel", "conversation"):
            if value := getattr(self, name):
                known[name] = value
        if self.calls:
            known["calls"] = list(self.calls)
        return known


current: ContextVar[LogContext | None] = ContextVar("panelgate_log_context", default=None)


def note_route(route: str) -> None:
    if (context := current.get()) is not None:
        context.route = route


def note_panel(panel: str, calls: Iterable[str]) -> None:
    if (context := current.get()) is not None:
        context.panel = panel
        context.calls = tuple(calls)


def note_turn(conversation: str, call: str) -> None:
    if (context := current.get()) is not None:
        context.conversation = conversation
        context.calls = (call,)
