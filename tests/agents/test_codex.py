"""Codex CLI, headless (`codex exec`), on a route collection over the Responses API."""

from __future__ import annotations

from pathlib import Path

from tests.agents.clients import Rig, Run, assert_the_shell_result_came_back, own_environment, program
from tests.agents.doc import doc_block
from tests.http.route_helpers import MEMBERS

UNATTENDED = ["--strict-config", "--skip-git-repo-check", "--dangerously-bypass-approvals-and-sandbox"]
"""No approval asked, no sandbox (bubblewrap may be missing), and a config key it does not know fails."""


def codex(rig: Rig, tmp_path: Path, prompt: str, *command: str) -> Run:
    """`codex exec` with the doc's config.toml in a CODEX_HOME of its own (where `resume` looks)."""
    codex_home = tmp_path / "codex"
    codex_home.mkdir(exist_ok=True)
    (codex_home / "config.toml").write_text(doc_block("codex", rig.url), encoding="utf-8")
    env = own_environment(tmp_path / "home") | {"CODEX_HOME": str(codex_home)}
    argv = [program("codex"), "exec", *UNATTENDED, *command, prompt]
    return rig.run("Codex CLI", argv, env=env, cwd=tmp_path / "work")


def test_codex_says_hi_through_a_route_collection(route_rig: Rig, tmp_path: Path):
    run = codex(route_rig, tmp_path, "say hi")
    member = route_rig.assert_one_conversation_on_one_member(run)
    assert f"answer from {member}" in run.stdout, run.report(f"no answer from {member} in its output")


def test_codex_runs_exec_command_then_resumes_on_the_same_member(route_rig: Rig, tmp_path: Path):
    route_rig.drive_the_shell(MEMBERS)
    first = codex(route_rig, tmp_path, "print the marker")
    assert_the_shell_result_came_back(first)
    later = codex(route_rig, tmp_path, "print it again", "resume", "--last")
    assert_the_shell_result_came_back(later)
    route_rig.assert_one_conversation_on_one_member(first, later)
