"""The README's CLI walkthrough runs as written against a live server and a loopback upstream.

Each line of the walkthrough's `sh` block runs in bash, in a git repository
holding an uncommitted change, with the installed `panelgate` on PATH. Only
the provider's address (the loopback upstream instead) and the example panel
id (the one the walkthrough's own `ask` printed) are swapped in.
"""

from __future__ import annotations

import re
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from tests.cli.runner import environment
from tests.support.gateway import Gateway
from tests.support.upstream import FakeUpstream

README = Path(__file__).resolve().parents[2] / "README.md"
DOC_BASE = "https://openrouter.ai/api/v1"
DOC_PANEL = "p20261130-101500-a1b2"
PANEL = re.compile(r"p\d{8}-\d{6}-[0-9a-f]{4}")
KEY = "sk-or-walkthrough-5d1e"
BEFORE = "for i in range(len(a)):\n    print(a[i])\n"
AFTER = "for i in range(len(a) + 1):\n    print(a[i])\n"


def walkthrough() -> list[str]:
    """The commands of the `sh` block under `## CLI walkthrough`, comments and blank lines left out."""
    section = README.read_text(encoding="utf-8").split("\n## CLI walkthrough\n", 1)[1].split("\n## ", 1)[0]
    block = re.search(r"```sh\n(.*?)```", section, re.DOTALL)
    assert block, "the CLI walkthrough has a ```sh block"
    lines = block.group(1).replace("\\\n", " ").splitlines()
    return [line.strip() for line in lines if line.strip() and not line.lstrip().startswith("#")]


COMMANDS = walkthrough()


def repository_with_a_change(where: Path) -> Path:
    """A git repository whose `git diff` shows one changed line of `loop.py`."""
    where.mkdir()
    git = ["git", "-c", "user.name=walkthrough", "-c", "user.email=walkthrough@localhost"]
    (where / "loop.py").write_text(BEFORE)
    for step in (["init", "-q"], ["add", "loop.py"], ["commit", "-qm", "loop"]):
        subprocess.run([*git, *step], cwd=where, check=True, capture_output=True)
    (where / "loop.py").write_text(AFTER)
    return where


def run_in(repo: Path, command: str, gateway: Gateway) -> subprocess.CompletedProcess[str]:
    bin_dir = str(Path(sys.executable).parent)
    env = environment(gateway.url, {"OPENROUTER_KEY": KEY})
    env["PATH"] = f"{bin_dir}:{env.get('PATH', '/usr/bin:/bin')}"
    return subprocess.run(
        ["bash", "-c", command],
        cwd=repo,
        env=env,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_the_walkthrough_covers_the_session_it_promises():
    for step in ("--key-stdin", "panelgate models", "collection save", "git diff | panelgate ask", "verdict"):
        assert any(step in command for command in COMMANDS), step
    assert any(DOC_BASE in command for command in COMMANDS)
    assert any(DOC_PANEL in command for command in COMMANDS if "verdict" in command)


@dataclass
class Session:
    """What the walkthrough printed, by command as written, and the panel its `ask` ran."""

    printed: dict[str, str] = field(default_factory=dict)
    panel: str = DOC_PANEL
    review: str = ""

    def of(self, word: str) -> str:
        """The output of the one command holding `word`."""
        found = [command for command in COMMANDS if word in command]
        assert len(found) == 1, (word, found)
        return self.printed[found[0]]


@pytest.fixture
def session(gateway: Gateway, upstream: FakeUpstream, tmp_path: Path) -> Session:
    """Every command of the walkthrough, run in order; each must exit 0 and never show the key."""
    upstream.require_key = KEY
    upstream.serve(*re.findall(r"model add (\S+)", " ".join(COMMANDS)))
    repo = repository_with_a_change(tmp_path / "repo")
    ran = Session()
    for command in COMMANDS:
        run = run_in(repo, command.replace(DOC_BASE, upstream.url).replace(DOC_PANEL, ran.panel), gateway)
        assert run.returncode == 0, f"{command}\n{run.stderr}"
        assert KEY not in run.stdout + run.stderr, command
        if " ask " in command:
            ran.panel = PANEL.findall(run.stderr)[0]
            ran.review = (repo / "review.md").read_text()
        ran.printed[command] = run.stdout + run.stderr
    return ran


def test_the_readme_walkthrough_runs_as_written(session: Session, gateway: Gateway, upstream: FakeUpstream):
    script = " ".join(COMMANDS)
    assert gateway.url in session.of("panelgate status")
    endpoints = gateway.api("GET", "/api/endpoints", expect=200)["endpoints"]
    assert [(e["name"], e["base_url"]) for e in endpoints] == [("openrouter", upstream.url)]

    listed = session.of("panelgate models")
    for alias in re.findall(r"--alias (\S+)", script):
        assert re.search(rf"^{alias}\s", listed, re.MULTILINE), listed

    saved = re.search(r"collection save (\S+) --members (\S+)", script)
    assert saved, "the walkthrough saves a collection from its members"
    name = saved.group(1)
    assert gateway.api("GET", f"/api/collections/{name}", expect=200)["collection"]["members"] == (
        saved.group(2).split(",")
    )

    asked = {request.model for request in upstream.requests}
    assert asked == set(re.findall(r"model add (\S+)", script)), "both members and the explorer"
    for request in upstream.requests:
        assert f"answer from {request.model}" in session.review
        assert request.headers["authorization"] == f"Bearer {KEY}"
        assert "+for i in range(len(a) + 1):" in request.body["messages"][-1]["content"]
    seat_table = f"panel {session.panel} · bench/{name}"
    assert seat_table in session.of(" ask ") and seat_table not in session.review

    verdicts = [command for command in COMMANDS if command.startswith("panelgate verdict ")]
    judged = [command.split()[2].replace(DOC_PANEL, session.panel) for command in verdicts]
    assert gateway.api("POST", "/bench/pending", {"calls": judged}, expect=200)["pending"] == []
    record = gateway.api("GET", f"/bench/record?collection=bench/{name}", expect=200)["aliases"]
    assert sum(counts["judged"] for counts in record.values()) == len(judged) == 2
    judging = session.of("panelgate judge")
    assert (
        "[1] coder: judged useful already" in judging and "[2] deepseek: judged not useful already" in judging
    )
    assert "[3] flash: useful?" in judging and "answer from google/gemini-2.5-flash" in judging
