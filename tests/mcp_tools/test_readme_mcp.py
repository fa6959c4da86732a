"""The README's MCP client configurations, each used as written by the official SDK client."""

from __future__ import annotations

import json
import re
import shutil
import sys
from pathlib import Path
from typing import Any

import httpx2
from mcp import Client, StdioServerParameters
from mcp.client.streamable_http import streamable_http_client

from tests.http.key_helpers import keyed_bench, make_key
from tests.mcp_tools.mcp_helpers import as_json
from tests.support.upstream import FakeUpstream

README = Path(__file__).resolve().parents[2] / "README.md"
PLACEHOLDER_KEY = "pgk_your_gateway_key"
DEFAULT_URL = "http://127.0.0.1:8122"


def readme_configs() -> list[dict[str, Any]]:
    """The `panelgate` entry of each `mcpServers` JSON block in the README."""
    blocks = re.findall(r"```json\n(.*?)```", README.read_text(), flags=re.DOTALL)
    return [json.loads(block)["mcpServers"]["panelgate"] for block in blocks if "mcpServers" in block]


def pointed_at(config: dict[str, Any], url: str, key: str) -> dict[str, Any]:
    """The config as a person fills it in: their server's address and their key."""
    text = json.dumps(config).replace(DEFAULT_URL, url).replace(PLACEHOLDER_KEY, key)
    return dict(json.loads(text))


def stdio_command(config: dict[str, Any]) -> StdioServerParameters:
    """The configured command; `panelgate` is the one installed next to this interpreter."""
    command = shutil.which(config["command"], path=str(Path(sys.executable).parent)) or config["command"]
    return StdioServerParameters(command=command, args=config["args"], env=config["env"])


async def test_every_readme_config_reaches_the_tools(tmp_path: Path, upstream: FakeUpstream):
    configs = readme_configs()
    assert {c.get("type", "stdio") for c in configs} == {"http", "stdio"}
    with keyed_bench(tmp_path / "home", upstream) as gateway:
        key = make_key(gateway, name="agent")
        for config in (pointed_at(c, gateway.url, key) for c in configs):
            if config.get("type") == "http":
                async with (
                    httpx2.AsyncClient(headers=config["headers"], timeout=60) as http,
                    Client(streamable_http_client(config["url"], http_client=http)) as client,
                ):
                    listed = as_json(await client.call_tool("list_collections", {}))
            else:
                async with Client(stdio_command(config)) as client:
                    listed = as_json(await client.call_tool("list_collections", {}))
            assert [c["name"] for c in listed["collections"]] == ["core", "other"], config
