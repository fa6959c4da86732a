"""Running a real agent client headless against a gateway, and saying why when it fails.

The clients are the ones `scripts/clients` pins and installs into `.clients/`
(a missing one fails the test, never skips it: CI must run all of them).
Each run starts from an environment of its own — PATH, a HOME under the
test's tmp_path, no terminal — so nothing of the developer's own set-up
(keys, config, sessions) leaks in; it reads nothing from stdin, and it is
killed, with every process it started, after `TIME_LIMIT_S`, so a hung client
fails CI instead of holding it.

A failure names the client, its exit code, the tail of what it printed and
what it sent: every exchange through the tap (tests/agents/tap.py), with the
gateway's words when it refused, and the last bodies the members received.
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from tests.agents.tap import Exchange, Tap
from tests.http.route_helpers import MEMBERS
from tests.support.gateway import Gateway
from tests.support.upstream import FakeUpstream, ReceivedRequest

ROOT = Path(__file__).resolve().parents[2]
INSTALLED = ROOT / ".clients"
PROGRAMS = {
    "claude": INSTALLED / "npm" / "node_modules" / ".bin" / "claude",
    "codex": INSTALLED / "npm" / "node_modules" / ".bin" / "codex",
    "opencode": INSTALLED / "npm" / "node_modules" / ".bin" / "opencode",
    "llm": INSTALLED / "llm" / "bin" / "llm",
}
TIME_LIMIT_S = 90.0
TAIL_CHARS = 2500
SHOWN_MEMBER_BODIES = 3

SHELL_COMMAND = "echo panelgate-$((6 * 7))"
"""What the members ask the client's shell to run; its output is not in the command's text."""
SHELL_SAID = re.compile(r"the shell said:.*panelgate-42")
"""The members' final text once the output reached them (tests/support/shell_agent.py)."""


def program(name: str) -> str:
    path = PROGRAMS[name]
    if not path.exists():
        pytest.fail(f"{name} is not installed in {INSTALLED}: run scripts/clients", pytrace=False)
    return str(path)


def own_environment(home: Path) -> dict[str, str]:
    """What every client starts from: PATH, a HOME of its own, no colour; nothing else of ours."""
    home.mkdir(parents=True, exist_ok=True)
    return {
        "PATH": os.environ.get("PATH", "/usr/local/bin:/usr/bin:/bin"),
        "HOME": str(home),
        "LANG": "C.UTF-8",
        "TERM": "dumb",
        "NO_COLOR": "1",
    }


@dataclass
class Run:
    """One finished (or killed) client process and everything it caused."""

    client: str
    argv: list[str]
    returncode: int | None
    seconds: float
    stdout: str
    stderr: str
    exchanges: list[Exchange] = field(default_factory=list)
    received: list[ReceivedRequest] = field(default_factory=list)

    @property
    def turns(self) -> list[Exchange]:
        """The exchanges a route conversation answered."""
        return [exchange for exchange in self.exchanges if exchange.conversation]

    def answered_by(self) -> tuple[str, str]:
        """The one (conversation, member) every turn of this run went to."""
        pairs = {(turn.conversation or "", turn.member or "") for turn in self.turns}
        assert len(pairs) == 1, self.report(f"expected one conversation on one member, got {sorted(pairs)}")
        return pairs.pop()

    def report(self, problem: str) -> str:
        ended = (
            f"exited {self.returncode} after {self.seconds:.1f} s"
            if self.returncode is not None
            else f"was still running after {self.seconds:.1f} s, so it was killed"
        )
        sent = "\n".join(exchange.describe() for exchange in self.exchanges) or "(nothing reached the tap)"
        bodies = "\n".join(
            f"{request.model}: {_member_body(request)}" for request in self.received[-SHOWN_MEMBER_BODIES:]
        )
        return (
            f"{self.client}: {problem}\n"
            f"`{' '.join(self.argv)}` {ended}\n"
            f"--- what it sent, and what the gateway answered:\n{sent}\n"
            f"--- what the members received (last {SHOWN_MEMBER_BODIES} of {len(self.received)}):\n"
            f"{bodies or '(nothing)'}\n"
            f"--- stdout (tail):\n{self.stdout[-TAIL_CHARS:]}\n"
            f"--- stderr (tail):\n{self.stderr[-TAIL_CHARS:]}"
        )


def _member_body(request: ReceivedRequest) -> str:
    messages = request.body.get("messages") or []
    last = messages[-1] if messages else {}
    return (
        f"roles={[m.get('role') for m in messages]} tools={len(request.body.get('tools') or [])} "
        f"stream={request.body.get('stream')!r} last={str(last)[:300]}"
    )


@dataclass
class Rig:
    """A gateway on the loopback upstream, and the tap the clients are pointed at."""

    gateway: Gateway
    upstream: FakeUpstream
    tap: Tap

    @property
    def url(self) -> str:
        return self.tap.url

    def drive_the_shell(self, members: tuple[str, ...]) -> None:
        """Every member answers like a model driving the client's shell with `SHELL_COMMAND`."""
        for member in members:
            self.upstream.behave(member, shell=SHELL_COMMAND)

    def run(self, client: str, argv: list[str], *, env: dict[str, str], cwd: Path) -> Run:
        """Run the client to its end; a failing exit is an assertion error saying what it sent."""
        cwd.mkdir(parents=True, exist_ok=True)
        seen, received = len(self.tap.exchanges), len(self.upstream.requests)
        started = time.monotonic()
        process = subprocess.Popen(
            argv, cwd=cwd, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
            stderr=subprocess.PIPE, start_new_session=True,
        )  # fmt: skip
        try:
            stdout, stderr = process.communicate(timeout=TIME_LIMIT_S)
            returncode: int | None = process.returncode
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)  # the client and whatever it started
            stdout, stderr = process.communicate(timeout=10)
            returncode = None
        run = Run(
            client, argv, returncode, time.monotonic() - started,
            stdout.decode(errors="replace"), stderr.decode(errors="replace"),
            self.tap.exchanges[seen:], self.upstream.requests[received:],
        )  # fmt: skip
        assert returncode == 0, run.report("the client failed")
        return run

    def conversations_on_record(self) -> dict[str, str]:
        """Every route conversation `GET /api/routes` lists (this test's gateway is new), with its member."""
        listed = self.gateway.api("GET", "/api/routes?limit=200")["conversations"]
        return {conversation["id"]: conversation["alias"] for conversation in listed}

    def members_on_record(self, conversation: str) -> list[str]:
        """Who answered each turn `GET /api/routes/<conversation>` shows, in order."""
        return [turn["alias"] for turn in self.gateway.api("GET", f"/api/routes/{conversation}")["turns"]]

    def assert_said_hi(self, run: Run) -> None:
        """One conversation on one member, and the member's answer in the client's output."""
        member = self.assert_one_conversation_on_one_member(run)
        assert f"answer from {member}" in run.stdout, run.report(f"no answer from {member} in its output")

    def shell_loop_then_more(self, ask: Callable[..., Run], *more: str) -> None:
        """The client runs the members' shell call to a final text quoting its output, then the same
        session (`ask(prompt, *more)`) runs it again on the same conversation and member."""
        self.drive_the_shell(MEMBERS)
        first = ask("print the marker")
        assert_the_shell_result_came_back(first)
        later = ask("print it again", *more)
        assert_the_shell_result_came_back(later)
        self.assert_one_conversation_on_one_member(first, later)

    def assert_one_conversation_on_one_member(self, first: Run, *later: Run) -> str:
        """Every run went to the first run's conversation and member, and the record agrees; the member."""
        conversation, member = first.answered_by()
        for run in later:
            assert run.answered_by() == (conversation, member), run.report(f"left {conversation} on {member}")
        last = (first, *later)[-1]
        listed = self.conversations_on_record()
        assert listed == {conversation: member}, last.report(f"GET /api/routes lists {listed}")
        on_record = self.members_on_record(conversation)
        expected = [member] * sum(len(run.turns) for run in (first, *later))
        assert on_record == expected, last.report(f"{conversation} on record answered by {on_record}")
        return member


def assert_the_shell_result_came_back(run: Run) -> None:
    """The client ran the member's shell call and sent its output back: the final text quotes it."""
    assert SHELL_SAID.search(run.stdout), run.report("no final text quoting the shell's output")
