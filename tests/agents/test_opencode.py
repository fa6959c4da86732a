"""opencode, headless (`opencode run`), on a route collection over OpenAI chat completions."""

from __future__ import annotations

import functools
from pathlib import Path

from tests.agents.clients import Rig, Run, own_environment, program
from tests.agents.doc import doc_block, exports

UNATTENDED = {
    "OPENCODE_PERMISSION": '{"bash": "allow"}',
    "npm_config_registry": "http://127.0.0.1:9/",  # else it installs its plugin package from npm
}
"""Its shell runs without asking, and it reaches no package registry."""


def opencode(rig: Rig, tmp_path: Path, prompt: str, *flags: str) -> Run:
    """`opencode run` in a project folder holding the doc's opencode.json (where `--continue` looks)."""
    work = tmp_path / "work"
    work.mkdir(exist_ok=True)
    (work / "opencode.json").write_text(doc_block("opencode", rig.url), encoding="utf-8")
    env = own_environment(tmp_path / "home") | exports(doc_block("opencode-env")) | UNATTENDED
    return rig.run("opencode", [program("opencode"), "run", *flags, prompt], env=env, cwd=work)


def test_opencode_says_hi_through_a_route_collection(route_rig: Rig, tmp_path: Path):
    """Its title request and the turn are one session, so one conversation on one member."""
    route_rig.assert_said_hi(opencode(route_rig, tmp_path, "say hi"))


def test_opencode_runs_its_bash_tool_then_continues_on_the_same_member(route_rig: Rig, tmp_path: Path):
    route_rig.shell_loop_then_more(functools.partial(opencode, route_rig, tmp_path), "--continue")
