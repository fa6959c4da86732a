"""`panelgate mcp`: the stdio bridge, driven by the official MCP SDK's stdio client."""

from __future__ import annotations

import os
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import pytest
from mcp import Client, StdioServerParameters

from tests.http.key_helpers import keyed_bench, make_key
from tests.mcp_tools.mcp_helpers import ProgressLog, as_json, failure_messages
from tests.support.gateway import Gateway
from tests.support.upstream import FakeUpstream


@asynccontextmanager
async def bridge(url: str, key: str | None = None) -> AsyncIterator[Client]:
    """`python -m panelgate mcp` started by the SDK's stdio client, pointed at `url`."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("PANELGATE_")}
    env["PANELGATE_URL"] = url
    if key:
        env["PANELGATE_KEY"] = key
    command = StdioServerParameters(command=sys.executable, args=["-m", "panelgate", "mcp"], env=env)
    async with Client(command) as client:
        yield client


async def test_the_bridge_asks_judges_and_reports_progress(bench: Gateway, upstream: FakeUpstream):
    upstream.behave("m3", delay=1.5)
    progress = ProgressLog()
    async with bridge(bench.url) as client:
        assert "verify" in (client.instructions or "")
        tools = {tool.name for tool in (await client.list_tools()).tools}
        before = as_json(await client.call_tool("pending_verdicts", {}))["pending"]
        asked = as_json(
            await client.call_tool("ask", {"collection": "core", "prompt": "hi"}, progress_callback=progress)
        )
        calls = [s["call"] for s in asked["seats"]]
        judged = as_json(await client.call_tool("verdict", {"call": calls[1], "useful": True}))
        after = as_json(await client.call_tool("pending_verdicts", {}))["pending"]
    assert tools == {"list_collections", "ask", "verdict", "pending_verdicts", "record"}
    assert before == [] and judged["result"] == "created"
    assert [s["call"] for s in after] == [calls[0], calls[2]]
    assert progress.finished_aliases()[-1] == "m3" and progress.last() == (3, 3)
    record = bench.api("GET", "/bench/record?collection=bench/core")["aliases"]["m2"]
    assert (record["useful"], record["judged"]) == (1, 1)


async def test_the_bridge_says_when_no_server_answers(tmp_path: Path):
    with pytest.raises(Exception) as failed:
        async with bridge("http://127.0.0.1:9") as client:
            await client.list_tools()
    unreachable = "cannot reach the panelgate server at http://127.0.0.1:9"
    assert any(unreachable in m for m in failure_messages(failed.value))


async def test_the_bridge_passes_on_the_servers_refusal(tmp_path: Path, upstream: FakeUpstream):
    with keyed_bench(tmp_path / "home", upstream) as gateway:
        key = make_key(gateway, name="agent", collections=["other"])
        with pytest.raises(Exception) as unkeyed:
            async with bridge(gateway.url) as client:
                await client.list_tools()
        async with bridge(gateway.url, key) as client:
            refused = await client.call_tool("ask", {"collection": "core", "prompt": "hi"})
    assert any(m.startswith("no gateway key was sent") for m in failure_messages(unkeyed.value))
    assert refused.is_error and "may use bench/other only" in refused.content[0].text
