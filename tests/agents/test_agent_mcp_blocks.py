"""Codex and opencode with docs/agents.md's MCP blocks: each client connects to `/mcp`, lists the panel
tools and offers all five to its model (a client offers an MCP server's tools only once it has listed
them), while the route-mode block makes a collection its model."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.agents.clients import Rig, Run, own_environment, program
from tests.agents.doc import doc_block, exports
from tests.agents.test_codex import UNATTENDED as CODEX_UNATTENDED
from tests.agents.test_opencode import UNATTENDED as OPENCODE_UNATTENDED

TOOLS = ("list_collections", "ask", "verdict", "pending_verdicts", "record")


def offered_tools(run: Run) -> set[str]:
    """The names of every tool the members were offered during the run."""
    return {
        str((tool.get("function") or tool).get("name"))
        for request in run.received
        for tool in request.body.get("tools") or []
    }


def panel_tools(run: Run, prefix: str) -> list[str]:
    offered = offered_tools(run)
    missing = [f"{prefix}{tool}" for tool in TOOLS if f"{prefix}{tool}" not in offered]
    assert not missing, run.report(f"the members were not offered {missing}; offered {sorted(offered)}")
    return [f"{prefix}{tool}" for tool in TOOLS]


def merged(base: dict[str, Any], more: dict[str, Any]) -> dict[str, Any]:
    return {**base, **{key: value for key, value in more.items() if key != "$schema"}}


def test_codex_offers_the_panel_tools_from_the_docs_mcp_block(route_rig: Rig, tmp_path: Path):
    codex_home = tmp_path / "codex"
    codex_home.mkdir()
    config = doc_block("codex", route_rig.url) + "\n" + doc_block("codex-mcp", route_rig.gateway.url)
    (codex_home / "config.toml").write_text(config, encoding="utf-8")
    env = own_environment(tmp_path / "home") | {"CODEX_HOME": str(codex_home), "PANELGATE_KEY": "unused"}
    argv = [program("codex"), "exec", *CODEX_UNATTENDED, "say hi"]
    run = route_rig.run("Codex CLI", argv, env=env, cwd=tmp_path / "work")
    panel_tools(run, "")  # in the Responses API's `panelgate` namespace; the names are the tools' own
    route_rig.assert_said_hi(run)


def test_opencode_offers_the_panel_tools_from_the_docs_mcp_block(route_rig: Rig, tmp_path: Path):
    work = tmp_path / "work"
    work.mkdir()
    route = json.loads(doc_block("opencode", route_rig.url))
    tools = json.loads(doc_block("opencode-mcp", route_rig.gateway.url))
    (work / "opencode.json").write_text(json.dumps(merged(route, tools)), encoding="utf-8")
    env = own_environment(tmp_path / "home") | exports(doc_block("opencode-env")) | OPENCODE_UNATTENDED
    env["PANELGATE_KEY"] = "unused"
    run = route_rig.run("opencode", [program("opencode"), "run", "say hi"], env=env, cwd=work)
    panel_tools(run, "panelgate_")
    route_rig.assert_said_hi(run)
