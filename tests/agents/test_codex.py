"""Codex CLI, headless (`codex exec`), on a route collection over the Responses API."""

from __future__ import annotations

import functools
from pathlib import Path

from tests.agents.clients import Rig, Run, own_environment, program
from tests.agents.doc import doc_block

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
    route_rig.assert_said_hi(codex(route_rig, tmp_path, "say hi"))


def test_codex_runs_exec_command_then_resumes_on_the_same_member(route_rig: Rig, tmp_path: Path):
    route_rig.shell_loop_then_more(functools.partial(codex, route_rig, tmp_path), "resume", "--last")
