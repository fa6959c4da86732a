"""`panelgate judge`: the panels still owed a verdict, one at a time, judged from the terminal.

The Judge page's flow for a person at a shell: a panel's prompt and every
seat's answer, then one reply per answer (useful, not useful, skip), then
which answer was best. Each verdict is saved as it is given (`POST
/api/verdicts`, source `cli`), so quitting half-way keeps what was said.
Answers go to stdout and questions to stderr, and the replies are read a
line at a time from stdin, so a script can judge too
(`printf 'y\\nn\\n1\\n' | panelgate judge`).
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Annotated, Any

import typer

from panelgate.cli.client import segment
from panelgate.cli.common import Session, UrlOption, session
from panelgate.cli.moments import minute_utc
from panelgate.cli.verdict import CLI_SOURCE
from panelgate.core.types import JUDGEABLE

VERDICTS_PATH = "/api/verdicts"
OWED_READ = 50
"""Panels read at once: more than a sitting's worth of judging."""

USEFUL_REPLIES = {"y": True, "yes": True, "u": True, "useful": True, "n": False, "no": False}
SKIP_REPLIES = ("", "s", "skip")
QUIT_REPLIES = ("q", "quit")


class Quit(Exception):
    """The person said q, or stdin ended: stop, keeping every verdict given so far."""


@dataclass
class Tally:
    """What one sitting did, for its last line."""

    useful: int = 0
    not_useful: int = 0
    best: int = 0
    panels: set[str] = field(default_factory=set)

    def words(self) -> str:
        judged = self.useful + self.not_useful
        if not judged and not self.best:
            return "judged nothing"
        return (
            f"judged {judged} answer{'' if judged == 1 else 's'} ({self.useful} useful, "
            f"{self.not_useful} not), chose {self.best} best, in {len(self.panels)} "
            f"panel{'' if len(self.panels) == 1 else 's'}"
        )


def asked(question: str, understood: Callable[[str], bool], hint: str) -> str:
    """The person's reply to `question` (stderr), read from stdin until it is one `understood`."""
    while True:
        sys.stderr.write(question)
        sys.stderr.flush()
        line = sys.stdin.readline()
        if not line:
            sys.stderr.write("\n")
            raise Quit
        if not sys.stdin.isatty():  # a terminal echoes the typing; a script's replies are shown here
            sys.stderr.write(line if line.endswith("\n") else line + "\n")
        reply = line.strip().lower()
        if reply in QUIT_REPLIES:
            raise Quit
        if understood(reply):
            return reply
        sys.stderr.write(f"{hint}\n")


class Sitting:
    """One run of the command: the panels it walks through and the verdicts it sends."""

    def __init__(self, s: Session) -> None:
        self.s = s
        self.tally = Tally()

    def send(self, seat: dict[str, Any], useful: bool, better_than: Sequence[str] | None = None) -> None:
        body: dict[str, Any] = {"call": seat["call"], "useful": useful, "source": CLI_SOURCE}
        if better_than is not None:
            body["better_than"] = list(better_than)
        self.s.client.call("POST", VERDICTS_PATH, body=body)
        self.tally.panels.add(seat["panel"])
        verdict = {**(seat.get("verdict") or {}), "useful": useful}
        if better_than is not None:
            verdict["better_than"] = list(better_than)
        seat["verdict"] = verdict  # the panel's later questions read it (is there a best already?)

    def show(self, panel: dict[str, Any], seats: Sequence[dict[str, Any]], where: str) -> None:
        at = minute_utc(panel.get("at")) or "-"
        lines = [
            f"## bench/{panel['collection']} · {at} UTC · {panel['shape']} · {panel['id']} ({where})",
            "",
            *(f"> {line}" for line in (panel.get("prompt_preview") or "").splitlines()),
        ]
        for number, seat in enumerate(seats, 1):
            lines += ["", f"### [{number}] {seat['label']} · {seat['alias']}", ""]
            if seat["status"] in JUDGEABLE:
                lines.append(seat["answer"] or "(an empty answer)")
            else:
                lines.append(f"(no answer: {seat['status']}{': ' + seat['error'] if seat['error'] else ''})")
        self.s.output.write("\n".join(lines) + "\n\n")

    def judge_seats(self, seats: Sequence[dict[str, Any]]) -> None:
        for number, seat in enumerate(seats, 1):
            if seat["status"] not in JUDGEABLE:
                continue
            if seat.get("verdict"):
                judged = "useful" if seat["verdict"]["useful"] else "not useful"
                self.s.output.note(f"[{number}] {seat['alias']}: judged {judged} already")
                continue
            reply = asked(
                f"[{number}] {seat['alias']}: useful? y / n / Enter to skip / q to stop: ",
                lambda reply: reply in USEFUL_REPLIES or reply in SKIP_REPLIES,
                "answer y (useful), n (not useful), Enter (skip) or q (stop)",
            )
            if reply in USEFUL_REPLIES:
                self.send(seat, USEFUL_REPLIES[reply])
                self.tally.useful += USEFUL_REPLIES[reply]
                self.tally.not_useful += not USEFUL_REPLIES[reply]

    def choose_best(self, seats: Sequence[dict[str, Any]]) -> None:
        """Which answer beat the others: asked once a panel has two answers and no best yet."""
        answered = {str(n): seat for n, seat in enumerate(seats, 1) if seat["status"] in JUDGEABLE}
        if len(answered) < 2 or any((seat.get("verdict") or {}).get("better_than") for seat in seats):
            return
        reply = asked(
            f"Best answer? {', '.join(answered)}, or Enter for none: ",
            lambda reply: reply in answered or reply == "",
            f"answer a seat's number ({', '.join(answered)}), Enter (none) or q (stop)",
        )
        if reply:
            best = answered[reply]
            useful = (best.get("verdict") or {}).get("useful", True)
            self.send(best, useful, [seat["call"] for seat in answered.values() if seat is not best])
            self.tally.best += 1

    def run(self, panels: Sequence[tuple[dict[str, Any], list[dict[str, Any]]]]) -> bool:
        """Judge `panels` in order; False when the person stopped before the last."""
        for index, (panel, seats) in enumerate(panels, 1):
            self.show(panel, seats, f"{index} of {len(panels)}")
            try:
                self.judge_seats(seats)
                self.choose_best(seats)
            except Quit:
                return False
        return True


def owed_panels(s: Session, panel: str | None, collection: str | None) -> list[tuple[dict[str, Any], Any]]:
    """The panel asked for, else every panel still owed a verdict (newest first), with their seats."""
    if panel:
        found = s.client.call("GET", f"/api/panels/{segment(panel)}")
        return [(found["panel"], found["seats"])]
    params = {"owed": "true", "limit": str(OWED_READ)}
    if collection:
        params["collection"] = collection.removeprefix("bench/")
    return [(found, found["seats"]) for found in s.client.call("GET", "/api/panels", params=params)["panels"]]


def judge(
    ctx: typer.Context,
    panel: Annotated[
        str | None,
        typer.Argument(help="one panel's id (default: every panel owed a verdict, newest first)"),
    ] = None,
    collection: Annotated[
        str | None,
        typer.Option("--collection", "-c", help="only this collection's panels", show_default=False),
    ] = None,
    url: UrlOption = None,
) -> None:
    """Judge the panels owed a verdict: each answer useful or not, then the best, one panel at a time.

    To each answer reply y (useful), n (not useful), Enter (skip) or q (stop); then give the best
    answer's number, or Enter for none. Each verdict is saved as it is given. The replies are read
    from stdin, so a script can pipe them in.
    """
    with session(ctx, url, False) as s:
        panels = owed_panels(s, panel, collection)
        if not panels:
            within = f" in bench/{collection.removeprefix('bench/')}" if collection else ""
            s.output.note(f"No panel{within} owes a verdict.")
            return
        sitting = Sitting(s)
        finished = sitting.run(panels)
        ending = "" if finished else "; stopped (`panelgate judge` goes on with what is still owed)"
        said = sitting.tally.words()
        s.output.line(f"{said[0].upper()}{said[1:]}{ending}.")
