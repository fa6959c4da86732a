"""How client commands print: Rich tables for people, the server's JSON for scripts.

Results go to stdout and everything else (notes, seat tables, errors) to
stderr, so `panelgate ask core "..." > answer.md` keeps only the answers.
Text from the server is printed as plain text, never as Rich markup, so a
description holding `[red]` prints as written.

Rich is imported when something is first printed through it, so a command
that prints JSON, or fails before printing anything, never pays for it.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Collection, Iterable, Sequence
from functools import cached_property
from typing import TYPE_CHECKING, Any, TextIO

if TYPE_CHECKING:
    from rich.console import Console

WIDTH_WHEN_PIPED = 200


def console_for(stream: TextIO) -> Console:
    """A console on `stream`; piped output gets wide lines so tables are not wrapped at 80."""
    from rich.console import Console

    piped = not stream.isatty() and "COLUMNS" not in os.environ
    return Console(file=stream, width=WIDTH_WHEN_PIPED if piped else None, highlight=False, soft_wrap=False)


def cell(value: Any) -> str:
    """One table cell: `-` for nothing, `yes`/`no` for flags, lists joined by commas."""
    if value is None or value == "" or value == []:
        return "-"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, list | tuple):
        return ", ".join(str(v) for v in value)
    return str(value)


class Output:
    """The two streams of one command run."""

    def __init__(self, as_json: bool = False) -> None:
        self.as_json = as_json

    @cached_property
    def out(self) -> Console:
        return console_for(sys.stdout)

    @cached_property
    def err(self) -> Console:
        return console_for(sys.stderr)

    def json(self, data: Any) -> None:
        self.write(json.dumps(data, indent=2, ensure_ascii=False) + "\n")

    def write(self, text: str) -> None:
        """Text on stdout exactly as given."""
        sys.stdout.write(text)
        sys.stdout.flush()

    def line(self, text: str) -> None:
        """A result line on stdout."""
        from rich.text import Text

        self.out.print(Text(text))

    def note(self, text: str) -> None:
        """A remark on stderr (not part of the result)."""
        from rich.text import Text

        self.err.print(Text(text))

    def table(
        self,
        columns: Sequence[str],
        rows: Iterable[Sequence[Any]],
        *,
        empty: str,
        title: str | None = None,
        to_stderr: bool = False,
        whole: Collection[str] = (),
    ) -> None:
        """A table, or the `empty` remark on stderr when there are no rows.

        On a narrow terminal the columns fold, except those named in `whole`:
        values a person copies into the next command (call ids), which a fold
        would break in two."""
        from rich.table import Table
        from rich.text import Text

        cells = [[Text(cell(v)) for v in row] for row in rows]
        table = Table(title=title, title_justify="left", show_edge=False, pad_edge=False)
        for index, column in enumerate(columns):
            if column in whole:
                longest = max((len(row[index]) for row in cells), default=0)
                table.add_column(column, no_wrap=True, min_width=max(longest, len(column)))
            else:
                table.add_column(column, overflow="fold")
        for row in cells:
            table.add_row(*row)
        if not table.row_count:
            self.note(empty)
            return
        (self.err if to_stderr else self.out).print(table)

    def fields(self, pairs: Sequence[tuple[str, Any]]) -> None:
        """`name  value` lines on stdout, the values aligned."""
        width = max((len(name) for name, _ in pairs), default=0)
        for name, value in pairs:
            self.write(f"{name.ljust(width)}  {cell(value)}\n")

    def result(self, data: Any, summary: str) -> None:
        """The server's JSON with `--json`, else one line saying what happened."""
        if self.as_json:
            self.json(data)
        else:
            self.line(summary)
