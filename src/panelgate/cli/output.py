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
        spare: Sequence[str] = (),
    ) -> None:
        """A table, or the `empty` remark on stderr when there are no rows.

        On a narrow terminal the columns wrap at spaces, except those named in
        `whole`: values a person copies into the next command (call ids), which
        a fold would break in two. Rather than cut a word mid-way (`genera/l`),
        the `spare` columns are left out, in the order given, and a remark says
        which; only when that is not enough do words fold."""
        from rich.table import Table
        from rich.text import Text

        cells = [[cell(v) for v in row] for row in rows]
        if not cells:
            self.note(empty)
            return
        console = self.err if to_stderr else self.out
        layout = _layout(columns, cells, whole, spare, console.width)
        table = Table(title=title, title_justify="left", show_edge=False, pad_edge=False)
        for index, width in layout.items():
            column = columns[index]
            if column in whole:
                table.add_column(column, no_wrap=True, min_width=width)
            else:
                table.add_column(column, overflow="fold", width=width)
        for row in cells:
            table.add_row(*(Text(row[index]) for index in layout))
        console.print(table)
        left_out = [column for index, column in enumerate(columns) if index not in layout]
        if left_out:
            self.note(
                f"left out to fit {console.width} columns: {', '.join(left_out)} "
                "(a wider terminal shows them, --json has everything)"
            )

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


COLUMN_GAP = 3
"""Between two columns: a space, the rule, a space (the table has no outer edge)."""


def _layout(
    columns: Sequence[str],
    cells: Sequence[Sequence[str]],
    whole: Collection[str],
    spare: Sequence[str],
    width: int,
) -> dict[int, int | None]:
    """Each column to show (by index) and its width (None: Rich's choice).

    Every column is shown, less as many `spare` ones (in their order) as it takes for every word to
    fit whole. The room left goes to the columns that want least more to fit on one line first (a
    date, a flag), the long texts last: they wrap at spaces. When even the words do not fit, Rich
    folds the columns as it would."""
    from rich.cells import cell_len

    def texts(index: int) -> list[str]:
        return [columns[index], *(row[index] for row in cells)]

    def natural(index: int) -> int:
        return max(cell_len(line) for text in texts(index) for line in text.splitlines() or [""])

    def narrowest(index: int) -> int:
        """The least width that cuts no word of the column (no value at all, for a `whole` one)."""
        if columns[index] in whole:
            return natural(index)
        return max((cell_len(word) for text in texts(index) for word in text.split()), default=1)

    shown = list(range(len(columns)))
    pending_spares = [columns.index(column) for column in spare]
    while True:
        room = width - COLUMN_GAP * (len(shown) - 1)
        least = {index: narrowest(index) for index in shown}
        if sum(least.values()) <= room or not pending_spares:
            break
        shown.remove(pending_spares.pop(0))
    if sum(least.values()) > room:
        return {index: least[index] if columns[index] in whole else None for index in shown}
    widths: dict[int, int | None] = dict(least)
    extra = room - sum(least.values())
    wants = {index: max(0, natural(index) - least[index]) for index in shown}
    for index in sorted(shown, key=wants.__getitem__):
        given = min(wants[index], extra)
        widths[index] = least[index] + given
        extra -= given
    return widths
