"""A verdict says where it came from: the key that gave it and an optional `source` (`claude-code`),
through the MCP `verdict` tool, `POST /bench/verdict` and `panelgate verdict --source`."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.cli.runner import panelgate
from tests.http.key_helpers import get, keyed_bench, make_key, post, refused
from tests.mcp_tools.mcp_helpers import as_json, mcp_client
from tests.support.gateway import Gateway
from tests.support.upstream import FakeUpstream

BAD_SOURCES = ["claude code", "x" * 41, "", "claude/code", 7]


def newest(gateway: Gateway, query: str = "") -> list[dict[str, Any]]:
    return list(gateway.api("GET", f"/api/record{query}", expect=200)["verdicts"])


def panel_calls(gateway: Gateway) -> list[str]:
    body = {"model": "bench/core", "messages": [{"role": "user", "content": "hi"}]}
    reply = post(gateway, "/v1/chat/completions", body)
    assert reply.status_code == 200, reply.text
    return [seat["call"] for seat in reply.json()["bench"]["seats"]]


async def test_an_agents_verdict_carries_its_key_and_source_and_the_record_filters_on_it(
    tmp_path: Path, upstream: FakeUpstream
):
    with keyed_bench(tmp_path / "home", upstream) as gateway:
        key = make_key(gateway, name="laptop-agent")
        async with mcp_client(gateway, key=key) as client:
            asked = as_json(await client.call_tool("ask", {"collection": "core", "prompt": "hi"}))
            calls = {seat["alias"]: seat["call"] for seat in asked["seats"]}
            judged = await client.call_tool(
                "verdict", {"call": calls["m1"], "useful": True, "source": "claude-code"}
            )
        by_hand = post(gateway, "/bench/verdict", {"call": calls["m2"], "useful": False}, key=key)
        assert by_hand.status_code == 200, by_hand.text
        everything = newest(gateway)
        agents = newest(gateway, "?source=claude-code")
        others = newest(gateway, "?source=codex")
        tallies = get(gateway, "/bench/record?collection=bench/core&source=claude-code", key=key).json()
        sources = gateway.api("GET", "/api/record", expect=200)["sources"]
    assert as_json(judged)["source"] == "claude-code"
    assert [(v["call"], v["actor"], v["source"]) for v in everything] == [
        (calls["m2"], "laptop-agent", None),
        (calls["m1"], "laptop-agent", "claude-code"),
    ]
    assert [v["call"] for v in agents] == [calls["m1"]] and others == []
    assert sources == ["claude-code"]
    assert set(tallies["aliases"]) == {"m1"} and tallies["aliases"]["m1"]["useful"] == 1


@pytest.mark.parametrize("source", BAD_SOURCES)
async def test_a_source_that_is_no_short_name_is_refused_saying_what_one_looks_like(
    bench: Gateway, upstream: FakeUpstream, source: object
):
    call = panel_calls(bench)[0]
    over_http = post(bench, "/bench/verdict", {"call": call, "useful": True, "source": source})
    async with mcp_client(bench) as client:
        over_mcp = await client.call_tool("verdict", {"call": call, "useful": True, "source": source})
    said = refused(over_http, 400)
    assert "`source` must be a short name" in said and "claude-code" in said
    assert over_mcp.is_error and "`source` must be a short name" in over_mcp.content[0].text
    assert newest(bench) == []


def test_the_cli_sends_the_source_and_the_record_page_reading_shows_it(
    bench: Gateway, upstream: FakeUpstream
):
    call = panel_calls(bench)[0]
    run = panelgate("verdict", call, "--useful", "--source", "codex", url=bench.url)
    assert run.returncode == 0, run.stderr
    assert [(v["call"], v["actor"], v["source"]) for v in newest(bench, "?source=codex")] == [
        (call, "local", "codex")
    ]
    unknown = bench.api("GET", "/api/record?source=no%20such", expect=400)
    assert "no verdict source" in unknown["error"]["message"]


def test_verdicts_from_the_cli_and_the_dashboard_say_so_without_being_asked(
    bench: Gateway, upstream: FakeUpstream
):
    first, second, third = panel_calls(bench)[:3]
    run = panelgate("verdict", first, "--not-useful", url=bench.url)
    assert run.returncode == 0, run.stderr
    bench.api("POST", "/api/verdicts", {"call": second, "useful": True}, expect=200)
    bench.api("POST", "/api/verdicts", {"call": third, "useful": True, "source": "opencode"}, expect=200)
    assert {v["call"]: v["source"] for v in newest(bench)} == {
        first: "cli",
        second: "dashboard",
        third: "opencode",
    }
    assert bench.api("GET", "/api/record", expect=200)["sources"] == ["cli", "dashboard", "opencode"]
