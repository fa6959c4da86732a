"""The Claude Code plugin in integrations/claude-code: Claude Code's own validator and installer take it,
its Stop hook lists the seats its key still owes a verdict, and its MCP entry reaches the tools."""

from __future__ import annotations

import json
import os
import re
import subprocess
from collections.abc import AsyncIterator, Mapping
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import httpx2
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

from tests.agents.clients import ROOT, own_environment, program
from tests.http.key_helpers import keyed_bench, make_key, post
from tests.support.gateway import Gateway
from tests.support.upstream import FakeUpstream

PLUGIN = ROOT / "integrations" / "claude-code"
TOOLS = {"list_collections", "ask", "verdict", "pending_verdicts", "record"}
QUIET = {
    "DISABLE_TELEMETRY": "1",
    "DISABLE_AUTOUPDATER": "1",
    "DISABLE_ERROR_REPORTING": "1",
    "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
}
_VARIABLE = re.compile(r"\$\{(\w+)(?::-([^}]*))?\}")


def claude(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = own_environment(tmp_path / "home") | QUIET
    return subprocess.run(
        [program("claude"), *args], env=env, cwd=tmp_path, capture_output=True, text=True, timeout=90,
        stdin=subprocess.DEVNULL,
    )  # fmt: skip


def expand(text: str, env: Mapping[str, str]) -> str:
    """`${NAME}` and `${NAME:-default}` as Claude Code expands them in .mcp.json and hooks.json."""
    return _VARIABLE.sub(lambda found: env.get(found[1]) or found[2] or "", text)


def stop_hook(
    tmp_path: Path, event: dict[str, Any], env: Mapping[str, str]
) -> subprocess.CompletedProcess[str]:
    """The Stop hook's command exactly as hooks/hooks.json declares it, run by a shell as Claude Code does."""
    declared = json.loads((PLUGIN / "hooks" / "hooks.json").read_text())["hooks"]["Stop"]
    (command,) = [hook["command"] for entry in declared for hook in entry["hooks"]]
    base = {"PATH": os.environ["PATH"], "TMPDIR": str(tmp_path), "CLAUDE_PLUGIN_ROOT": str(PLUGIN)}
    return subprocess.run(
        ["sh", "-c", command], input=json.dumps(event), env={**base, **env}, capture_output=True, text=True,
        timeout=30,
    )  # fmt: skip


def panel_calls(gateway: Gateway, key: str | None = None, collection: str = "core") -> list[str]:
    body = {"model": f"bench/{collection}", "messages": [{"role": "user", "content": "review this"}]}
    reply = post(gateway, "/v1/chat/completions", body, key=key)
    assert reply.status_code == 200, reply.text
    return [seat["call"] for seat in reply.json()["bench"]["seats"]]


def test_claude_codes_own_validator_passes_the_plugin_and_the_marketplace(tmp_path: Path):
    for path in (PLUGIN, ROOT):
        checked = claude(tmp_path, "plugin", "validate", "--strict", str(path))
        assert checked.returncode == 0, checked.stdout + checked.stderr
        assert "Validation passed" in checked.stdout


def test_claude_code_installs_the_plugin_from_the_repos_marketplace(tmp_path: Path):
    added = claude(tmp_path, "plugin", "marketplace", "add", str(ROOT))
    assert added.returncode == 0, added.stdout + added.stderr
    installed = claude(tmp_path, "plugin", "install", "panelgate@panelgate")
    assert installed.returncode == 0, installed.stdout + installed.stderr
    details = claude(tmp_path, "plugin", "details", "panelgate@panelgate")
    assert details.returncode == 0, details.stdout + details.stderr
    inventory = " ".join(details.stdout.split())
    for part in ("Skills (2) panel, second-opinion", "Hooks (1) Stop", "MCP servers (1) panelgate"):
        assert part in inventory, details.stdout


def test_the_stop_hook_asks_once_for_the_seats_its_key_owes(tmp_path: Path, upstream: FakeUpstream):
    with keyed_bench(tmp_path / "bench", upstream) as gateway:
        mine, theirs = make_key(gateway, name="claude-session"), make_key(gateway, name="someone-else")
        owed = panel_calls(gateway, mine)
        others = panel_calls(gateway, theirs)
        env = {"PANELGATE_URL": gateway.url, "PANELGATE_KEY": mine}
        first = stop_hook(tmp_path, {"session_id": "s-1", "stop_hook_active": False}, env)
        again = stop_hook(tmp_path, {"session_id": "s-1", "stop_hook_active": False}, env)
        continued = stop_hook(tmp_path, {"session_id": "s-2", "stop_hook_active": True}, env)
    assert first.returncode == 0, first.stderr
    said = json.loads(first.stdout)
    assert said["decision"] == "block"
    listed = re.findall(r"^- (\S+) \(", said["reason"], re.MULTILINE)
    assert listed == owed and not set(others) & set(said["reason"].split())
    assert "source `claude-code`" in said["reason"] and mine not in first.stdout + first.stderr
    assert again.stdout == "" and continued.stdout == "", "asked twice, or blocked a hook's continuation"


def test_the_stop_hook_prints_nothing_when_every_seat_is_judged(
    bench: Gateway, upstream: FakeUpstream, tmp_path: Path
):
    event = {"session_id": "s-1", "stop_hook_active": False}
    env = {"PANELGATE_URL": bench.url}
    assert stop_hook(tmp_path, event, env).stdout == ""
    for call in panel_calls(bench):
        bench.api(
            "POST", "/bench/verdict", {"call": call, "useful": True, "source": "claude-code"}, expect=200
        )
    judged = stop_hook(tmp_path, event, env)
    assert (judged.returncode, judged.stdout) == (0, "")


def test_the_stop_hook_never_stops_a_session_when_the_gateway_is_down(tmp_path: Path):
    down = stop_hook(tmp_path, {"session_id": "s-1"}, {"PANELGATE_URL": "http://127.0.0.1:9"})
    assert (down.returncode, down.stdout) == (0, "")
    assert "could not ask the gateway" in down.stderr


@asynccontextmanager
async def declared_mcp(env: Mapping[str, str]) -> AsyncIterator[Client]:
    """The MCP server entry of .mcp.json, connected as Claude Code would with `env`."""
    (entry,) = json.loads((PLUGIN / ".mcp.json").read_text())["mcpServers"].values()
    assert entry["type"] == "http"
    headers = {name: expand(value, env) for name, value in entry.get("headers", {}).items()}
    async with (
        httpx2.AsyncClient(headers=headers, timeout=60) as http,
        Client(streamable_http_client(expand(entry["url"], env), http_client=http)) as client,
    ):
        yield client


async def test_the_mcp_entry_reaches_the_tools_with_the_sessions_key(tmp_path: Path, upstream: FakeUpstream):
    with keyed_bench(tmp_path / "bench", upstream) as gateway:
        key = make_key(gateway, name="claude-session", collections=["core"])
        async with declared_mcp({"PANELGATE_URL": gateway.url, "PANELGATE_KEY": key}) as client:
            tools = {tool.name for tool in (await client.list_tools()).tools}
            listed = await client.call_tool("list_collections", {})
    assert tools == TOOLS
    assert [c["name"] for c in (listed.structured_content or {})["collections"]] == ["core"]


async def test_the_mcp_entry_works_without_a_key_on_an_open_gateway(bench: Gateway, upstream: FakeUpstream):
    async with declared_mcp({"PANELGATE_URL": bench.url}) as client:
        assert {tool.name for tool in (await client.list_tools()).tools} == TOOLS
