"""The MCP server starts with the first `/mcp` request: the gateway starts without importing the MCP SDK."""

from __future__ import annotations

import asyncio
import subprocess
import sys

from tests.mcp_tools.mcp_helpers import mcp_client
from tests.support.gateway import Gateway


def test_the_gateway_app_loads_without_the_mcp_sdk() -> None:
    probe = (
        "import sys, panelgate.http.app; print(sorted(m for m in sys.modules if m.split('.')[0] == 'mcp'))"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, timeout=120, check=True
    )
    assert done.stdout.strip() == "[]"


async def test_mcp_clients_arriving_together_at_a_new_gateway_all_get_the_tools(gateway: Gateway) -> None:
    async def tool_names() -> list[str]:
        async with mcp_client(gateway) as client:
            return sorted(tool.name for tool in (await client.list_tools()).tools)

    answers = await asyncio.gather(*(tool_names() for _ in range(3)))
    assert answers[0] == ["ask", "list_collections", "pending_verdicts", "record", "verdict"]
    assert answers == [answers[0]] * 3
