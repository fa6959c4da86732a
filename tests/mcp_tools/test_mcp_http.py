"""The MCP server at `/mcp`, driven by the official MCP SDK client over streamable HTTP."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from mcp import Client
from mcp.shared.exceptions import MCPError

from tests.http.key_helpers import keyed_bench, make_key
from tests.mcp_tools.mcp_helpers import ProgressLog, as_json, failure_messages, mcp_client
from tests.support.gateway import Gateway
from tests.support.upstream import FakeUpstream


async def test_ask_reports_each_seat_before_the_answers_arrive(bench: Gateway, upstream: FakeUpstream):
    upstream.behave("m3", delay=1.5)
    progress = ProgressLog()
    async with mcp_client(bench) as client:
        tools = {tool.name for tool in (await client.list_tools()).tools}
        assert tools == {"list_collections", "ask", "verdict", "pending_verdicts", "record"}
        result = await client.call_tool(
            "ask", {"collection": "core", "prompt": "review this"}, progress_callback=progress
        )
        returned = time.monotonic()
    assert not result.is_error, result.content
    seats = as_json(result)["seats"]
    assert [s["alias"] for s in seats] == ["m1", "m2", "m3"]
    assert all(s["call"] in result.content[0].text for s in seats)
    assert "answer from m1" in result.content[0].text and "verdict" in result.content[0].text
    assert sorted(progress.finished_aliases()[:2]) == ["m1", "m2"] and progress.finished_aliases()[2] == "m3"
    assert progress.last() == (3, 3)
    first_seat_at = progress.first_seat_at()
    assert returned - first_seat_at > 1.0, "the first seat's progress came only with the result"
    sent = upstream.requests_for("m1")[0].body["messages"]
    assert sent == [{"role": "user", "content": "review this"}]


async def test_ask_passes_the_system_text_and_seats_nominees(bench: Gateway, upstream: FakeUpstream):
    upstream.serve("m4")
    bench.add_model("m4")
    bench.gateway_settings(max_calls=4, max_explorers=1)
    async with mcp_client(bench, "/v1/mcp") as client:
        result = await client.call_tool(
            "ask", {"collection": "bench/core", "prompt": "hi", "system": "be brief", "with": ["m4"]}
        )
    assert [s["alias"] for s in as_json(result)["seats"]] == ["m1", "m2", "m3", "m4"]
    assert upstream.requests_for("m4")[0].body["messages"][0] == {"role": "system", "content": "be brief"}


async def test_merged_ask_returns_the_mergers_answer(bench: Gateway, upstream: FakeUpstream):
    upstream.serve("merger-model")
    bench.add_model("mg", "merger-model")
    bench.api("PATCH", "/api/collections/core", {"merger": "mg"}, expect=200)
    async with mcp_client(bench) as client:
        result = await client.call_tool("ask", {"collection": "core", "prompt": "hi", "merged": True})
    seats = as_json(result)["seats"]
    assert seats[-1]["seat"] == "merger" and seats[-1]["alias"] == "mg"
    assert result.content[0].text.startswith("answer from merger-model")


async def test_a_route_collection_is_asked_as_a_panel(bench: Gateway, upstream: FakeUpstream):
    bench.api("PATCH", "/api/collections/core", {"reply": "route"}, expect=200)
    async with mcp_client(bench) as client:
        result = await client.call_tool("ask", {"collection": "core", "prompt": "hi"})
    assert [s["alias"] for s in as_json(result)["seats"]] == ["m1", "m2", "m3"]


async def test_list_collections_says_what_each_is_for(bench: Gateway, upstream: FakeUpstream):
    upstream.serve("big", "small")
    bench.add_model("big", context_window=200_000, tools=True)
    bench.add_model("small", context_window=8_000, tools=True)
    bench.save_collection("wide", ["big", "small"], description="long reads", tags=["docs"])
    async with mcp_client(bench) as client:
        result = await client.call_tool("list_collections", {})
    listed = {c["name"]: c for c in as_json(result)["collections"]}
    assert set(listed) == {"core", "wide"}
    wide = listed["wide"]
    assert (wide["model"], wide["members"], wide["tags"]) == ("bench/wide", ["big", "small"], ["docs"])
    assert wide["together"]["context_window"] == 8_000 and wide["together"]["capabilities"] == ["tools"]
    assert "wide: 2 members (big, small) — long reads" in result.content[0].text


async def test_panels_of_a_collection_that_owes_no_verdicts_are_not_pending(
    bench: Gateway, upstream: FakeUpstream
):
    bench.api("PATCH", "/api/collections/core", {"verdicts_owed": "chats"}, expect=200)
    async with mcp_client(bench) as client:
        await client.call_tool("ask", {"collection": "core", "prompt": "### Task:\nTitle this chat."})
        asked = as_json(await client.call_tool("ask", {"collection": "core", "prompt": "hi"}))
        owed = as_json(await client.call_tool("pending_verdicts", {}))["pending"]
    assert [s["call"] for s in owed] == [s["call"] for s in asked["seats"]]


async def test_verdicts_empty_the_pending_list(bench: Gateway, upstream: FakeUpstream):
    async with mcp_client(bench) as client:
        before = as_json(await client.call_tool("pending_verdicts", {}))["pending"]
        asked = as_json(await client.call_tool("ask", {"collection": "core", "prompt": "hi"}))
        calls = [s["call"] for s in asked["seats"]]
        owed = as_json(await client.call_tool("pending_verdicts", {}))["pending"]
        false_claim = {"false": ["line 9 divides by zero"]}
        judged = await client.call_tool(
            "verdict", {"call": calls[0], "useful": False, "note": "invented a line", **false_claim}
        )
        after = as_json(await client.call_tool("pending_verdicts", {}))["pending"]
    assert before == []
    assert [s["call"] for s in owed] == calls
    assert not judged.is_error and judged.structured_content["result"] == "created"
    assert [s["call"] for s in after] == calls[1:]
    record = bench.api("GET", "/bench/record?collection=bench/core")["aliases"]["m1"]
    assert (record["notUseful"], record["judged"]) == (1, 1)
    change = bench.api("GET", "/api/audit?entity=verdict")["changes"][0]
    assert (change["key"], change["actor"]) == (calls[0], "local")
    assert change["after"]["false"] == ["line 9 divides by zero"]


@pytest.mark.parametrize(
    ("tool", "arguments", "says"),
    [
        ("ask", {"collection": "nope", "prompt": "hi"}, "nope"),
        ("ask", {"collection": "core", "prompt": ""}, "`prompt` must be a non-empty string"),
        ("ask", {"collection": "core", "prompt": "hi", "with": "m1"}, "`with` must be a list"),
        ("verdict", {"call": "p20260101-000000-abcd.member1", "useful": True}, "no seat has the call id"),
        ("verdict", {"call": "x", "useful": "yes"}, "`useful` must be true or false"),
    ],
)
async def test_refusals_are_error_results_the_agent_can_read(
    bench: Gateway, upstream: FakeUpstream, tool: str, arguments: dict, says: str
):
    async with mcp_client(bench) as client:
        result = await client.call_tool(tool, arguments)
    assert result.is_error and says in result.content[0].text, result.content


async def test_an_unknown_tool_is_a_protocol_error(bench: Gateway, upstream: FakeUpstream):
    async with mcp_client(bench) as client:
        with pytest.raises(MCPError, match="no tool `explode`"):
            await client.call_tool("explode", {})


async def test_keys_scope_every_tool(tmp_path: Path, upstream: FakeUpstream):
    with keyed_bench(tmp_path / "home", upstream) as gateway:
        scoped = make_key(gateway, name="core-only", collections=["core"])
        other = make_key(gateway, name="other-caller")
        with pytest.raises(Exception) as unkeyed:
            async with mcp_client(gateway) as client:
                await client.list_tools()
        async with mcp_client(gateway, key=other) as client:
            theirs = as_json(await client.call_tool("ask", {"collection": "other", "prompt": "hi"}))
        async with mcp_client(gateway, key=scoped) as client:
            listed = as_json(await client.call_tool("list_collections", {}))["collections"]
            refused = await client.call_tool("ask", {"collection": "other", "prompt": "hi"})
            mine = as_json(await client.call_tool("ask", {"collection": "core", "prompt": "hi"}))
            owed = as_json(await client.call_tool("pending_verdicts", {}))["pending"]
            foreign = await client.call_tool("verdict", {"call": theirs["seats"][0]["call"], "useful": True})
    assert any(m.startswith("no gateway key was sent") for m in failure_messages(unkeyed.value))
    assert [c["name"] for c in listed] == ["core"]
    assert refused.is_error and "may use bench/core only" in refused.content[0].text
    assert [s["call"] for s in owed] == [s["call"] for s in mine["seats"]]
    assert foreign.is_error and "no seat has the call id" in foreign.content[0].text
    assert len(upstream.requests_for("m3")) == 1  # the refused ask reached no model


async def test_a_verdict_on_a_failed_seat_is_an_error_result_saying_why(
    bench: Gateway, upstream: FakeUpstream
):
    upstream.behave("m2", status=400, error_message="nope")
    async with mcp_client(bench) as client:
        asked = as_json(await client.call_tool("ask", {"collection": "core", "prompt": "hi"}))
        failed = next(s["call"] for s in asked["seats"] if s["status"] == "error")
        result = await client.call_tool("verdict", {"call": failed, "useful": False})
    assert result.is_error
    assert "health, not its usefulness" in result.content[0].text


async def _seat_calls(client: Client, prompt: str) -> list[str]:
    asked = as_json(await client.call_tool("ask", {"collection": "core", "prompt": prompt}))
    return [seat["call"] for seat in asked["seats"]]


async def test_the_verdict_tool_takes_better_than_seats_of_the_same_panel(
    bench: Gateway, upstream: FakeUpstream
):
    async with mcp_client(bench) as client:
        first, other = await _seat_calls(client, "a"), await _seat_calls(client, "b")
        same = {"call": first[0], "useful": True, "better_than": [first[1]]}
        judged = await client.call_tool("verdict", same)
        across = await client.call_tool("verdict", {**same, "better_than": [other[1]]})
    assert not judged.is_error and f"better than {first[1]}" in judged.content[0].text
    assert across.is_error and other[1] in across.content[0].text
    panel = bench.api("GET", f"/api/panels/{first[0].rsplit('.', 1)[0]}")
    assert {s["call"]: s["verdict"] for s in panel["seats"]}[first[0]]["better_than"] == [first[1]]


async def test_the_record_tool_ranks_the_models_per_shape_as_the_bench_record_does(
    bench: Gateway, upstream: FakeUpstream
):
    async with mcp_client(bench) as client:
        calls = await _seat_calls(client, "hi")
        for call, useful in zip(calls, (False, True, True), strict=True):
            await client.call_tool("verdict", {"call": call, "useful": useful})
        whole = await client.call_tool("record", {})
        narrowed = as_json(await client.call_tool("record", {"collection": "bench/core", "shape": "general"}))
        empty = as_json(await client.call_tool("record", {"shape": "code"}))
        wrong = await client.call_tool("record", {"shape": "poetry"})
    ranked = bench.api("GET", "/bench/record", expect=200)["shapes"]
    assert as_json(whole)["shapes"] == ranked and narrowed["shapes"] == ranked
    assert [row["alias"] for row in ranked["general"]][-1] == "m1"
    best = ranked["general"][0]
    line = f"- general: {best['alias']} {best['mean']:.2f} ({best['low']:.2f}–{best['high']:.2f}), 1 verdict;"
    assert line in whole.content[0].text and "the whole bench" in whole.content[0].text
    assert narrowed["collection"] == "bench/core" and empty["shapes"] == {}
    assert wrong.is_error and "`poetry` is no shape" in wrong.content[0].text


async def test_the_record_tool_reads_a_scoped_keys_collections_only(tmp_path: Path, upstream: FakeUpstream):
    with keyed_bench(tmp_path / "home", upstream) as gateway:
        scoped = make_key(gateway, name="core-only", collections=["core"])
        async with mcp_client(gateway, key=scoped) as client:
            mine = as_json(await client.call_tool("record", {}))
            refused = await client.call_tool("record", {"collection": "other"})
    assert mine["collection"] == "bench/core"
    assert refused.is_error and "bench/core" in refused.content[0].text


async def test_the_record_tools_text_names_the_best_eight_of_a_shape_and_the_json_every_one(
    bench: Gateway, upstream: FakeUpstream
):
    extra = [f"m{n}" for n in range(4, 12)]
    upstream.serve(*extra)
    for alias in extra:
        bench.add_model(alias)
    bench.gateway_settings(max_calls=7, max_explorers=4)
    async with mcp_client(bench) as client:
        for nominees in (extra[:4], extra[4:]):
            asked = {"collection": "core", "prompt": "hi", "with": nominees}
            seats = as_json(await client.call_tool("ask", asked))["seats"]
            for index, seat in enumerate(seats):
                await client.call_tool("verdict", {"call": seat["call"], "useful": index % 2 == 0})
        result = await client.call_tool("record", {"shape": "general"})
    ranked = as_json(result)["shapes"]["general"]
    assert len(ranked) == 11
    (line,) = [line for line in result.content[0].text.splitlines() if line.startswith("- general: ")]
    assert [part.split()[0] for part in line.removeprefix("- general: ").split("; ")[:8]] == [
        row["alias"] for row in ranked[:8]
    ]
    assert line.endswith("; and 3 more (in the JSON)")
