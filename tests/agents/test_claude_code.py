"""Claude Code, headless (`claude -p`), on a route collection over Anthropic Messages."""

from __future__ import annotations

import functools
from pathlib import Path

from tests.agents.clients import Rig, Run, own_environment, program
from tests.agents.doc import doc_block, exports


def claude(rig: Rig, tmp_path: Path, prompt: str, *flags: str) -> Run:
    """`claude -p` in one working folder (where `--continue` looks), with the doc's environment.

    `--allowedTools Bash` lets its shell run unasked (`--dangerously-skip-permissions` is refused as root).
    """
    env = own_environment(tmp_path / "home") | exports(doc_block("claude-code", rig.url))
    argv = [program("claude"), "--allowedTools", "Bash", "-p", *flags, prompt]
    return rig.run("Claude Code", argv, env=env, cwd=tmp_path / "work")


def test_two_claude_code_sessions_with_the_same_prompt_are_two_conversations(route_rig: Rig, tmp_path: Path):
    first, second = claude(route_rig, tmp_path, "say hi"), claude(route_rig, tmp_path, "say hi")
    answered = [run.answered_by() for run in (first, second)]
    for run, (_, member) in zip((first, second), answered, strict=True):
        assert f"answer from {member}" in run.stdout, run.report(f"no answer from {member} in its output")
    listed = route_rig.conversations_on_record()
    assert listed == dict(answered) and len(listed) == 2, second.report(f"GET /api/routes lists {listed}")
    for conversation, member in listed.items():
        assert route_rig.members_on_record(conversation) == [member], second.report(f"{conversation}'s turns")


def test_claude_code_runs_its_shell_then_continues_on_the_same_member(route_rig: Rig, tmp_path: Path):
    route_rig.shell_loop_then_more(functools.partial(claude, route_rig, tmp_path), "--continue")
