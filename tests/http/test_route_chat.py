"""Route mode over OpenAI chat completions: one member per conversation, tools relayed, failover unseen."""

from __future__ import annotations

import json
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import httpx
import openai
import pytest

from tests.http.helpers import sdk, sse_events
from tests.http.route_helpers import FIRST, OSLO, WEATHER_FUNCTION, arrange_agents, rate_limit_every_member
from tests.support.gateway import Gateway
from tests.support.upstream import FakeUpstream


@pytest.fixture
def agents(gateway: Gateway, upstream: FakeUpstream) -> Gateway:
    return arrange_agents(gateway, upstream)


@pytest.fixture
def impatient(tmp_path: Path, upstream: FakeUpstream) -> Iterator[Gateway]:
    """A gateway whose route members get one second to start answering."""
    server = Gateway(tmp_path / "home", env={"PANELGATE_ROUTE_FIRST_TOKEN_S": "1"}).start()
    try:
        yield arrange_agents(server, upstream)
    finally:
        server.close()


def post(gateway: Gateway, body: dict[str, Any]) -> httpx.Response:
    return httpx.post(f"{gateway.url}/v1/chat/completions", json=body, timeout=60)


def test_streamed_tool_call_deltas_are_the_members_own(agents: Gateway, upstream: FakeUpstream):
    upstream.behave("m1", tool_calls=OSLO, argument_pieces=3)
    direct = httpx.post(
        f"{upstream.url}/chat/completions",
        json={"model": "m1", "messages": FIRST, "stream": True},
        timeout=10,
    )
    upstream_deltas = [
        e["choices"][0]["delta"]["tool_calls"]
        for e in sse_events(direct.text)
        if isinstance(e, dict) and e["choices"] and "tool_calls" in e["choices"][0]["delta"]
    ]

    stream = sdk(agents).chat.completions.create(
        model="bench/agents", messages=FIRST, tools=[WEATHER_FUNCTION], stream=True
    )
    chunks = list(stream)
    relayed = [
        [call.model_dump(exclude_none=True) for call in c.choices[0].delta.tool_calls]
        for c in chunks
        if c.choices and c.choices[0].delta.tool_calls
    ]
    assert len(upstream_deltas) == 4
    relayed_id = relayed[0][0]["id"]  # the fake numbers its calls, so the relayed one is the next
    upstream_deltas[0][0]["id"] = relayed_id
    assert relayed_id.startswith("call_")
    assert relayed == upstream_deltas
    assert {c.model for c in chunks} == {"bench/agents"}
    assert chunks[-1].choices == [] and chunks[-1].model_extra["bench"]["alias"] == "m1"
    sent = upstream.requests_for("m1")[-1].body
    assert sent["tools"] == [WEATHER_FUNCTION] and sent["messages"] == FIRST and sent["stream"] is True


def test_a_whole_tool_loop_stays_with_one_member(agents: Gateway, upstream: FakeUpstream):
    upstream.behave("m1", tool_calls=OSLO)
    client = sdk(agents)
    first = client.chat.completions.create(model="bench/agents", messages=FIRST, tools=[WEATHER_FUNCTION])
    call = first.choices[0].message.tool_calls[0]
    assert first.choices[0].finish_reason == "tool_calls"
    assert (call.function.name, json.loads(call.function.arguments)) == ("get_weather", {"city": "Oslo"})

    upstream.behave("m1", answer="sunny in Oslo")
    history = [
        *FIRST,
        first.choices[0].message.model_dump(exclude_none=True),
        {"role": "tool", "tool_call_id": call.id, "content": '{"sky": "clear"}'},
    ]
    second = client.chat.completions.create(model="bench/agents", messages=history, tools=[WEATHER_FUNCTION])
    assert second.choices[0].message.content == "sunny in Oslo"
    assert second.model_extra["bench"]["conversation"] == first.model_extra["bench"]["conversation"]
    assert second.model_extra["bench"]["turn"] == 2
    assert [r.model for r in upstream.requests] == ["m1", "m1"]
    assert upstream.requests[-1].body["messages"][-1] == history[-1]


def test_failover_past_a_rate_limited_member_is_hidden_and_named(agents: Gateway, upstream: FakeUpstream):
    upstream.behave("m1", status=429, error_message="slow down")
    reply = post(agents, {"model": "bench/agents", "messages": FIRST})
    assert reply.status_code == 200
    assert reply.json()["choices"][0]["message"]["content"] == "answer from m2"
    bench = reply.json()["bench"]
    assert bench["alias"] == "m2" and reply.headers["x-bench-model"] == "m2"
    assert [f["alias"] for f in bench["failed_over"]] == ["m1"]
    assert "slow down" in bench["failed_over"][0]["error"]
    assert len(upstream.requests_for("m1")) == 1  # a member that is not the last is not retried


def test_a_silent_member_fails_over_after_the_first_token_window(impatient: Gateway, upstream: FakeUpstream):
    upstream.behave("m1", delay=5)
    events = sse_events(post(impatient, {"model": "bench/agents", "messages": FIRST, "stream": True}).text)
    text = "".join(
        e["choices"][0]["delta"].get("content") or "" for e in events if isinstance(e, dict) and e["choices"]
    )
    assert text == "answer from m2"
    bench = next(e["bench"] for e in events if isinstance(e, dict) and "bench" in e)
    assert bench["failed_over"][0]["alias"] == "m1" and "timeout" in bench["failed_over"][0]["error"]


def test_an_empty_member_fails_over(agents: Gateway, upstream: FakeUpstream):
    upstream.behave("m1", empty=True)
    reply = post(agents, {"model": "bench/agents", "messages": FIRST})
    assert reply.json()["bench"]["alias"] == "m2"
    assert reply.json()["bench"]["failed_over"][0]["error"].startswith("empty")


def test_every_member_rate_limited_is_a_429(agents: Gateway, upstream: FakeUpstream):
    rate_limit_every_member(upstream)
    reply = post(agents, {"model": "bench/agents", "messages": FIRST})
    assert reply.status_code == 429
    assert "`m1`" in reply.json()["error"]["message"] and "`m3`" in reply.json()["error"]["message"]


def test_every_member_failing_otherwise_is_a_502_with_their_reasons(agents: Gateway, upstream: FakeUpstream):
    upstream.behave("m1", status=429)
    upstream.behave("m2", status=500, error_message="disk on fire")
    upstream.behave("m3", garbage=True)
    reply = post(agents, {"model": "bench/agents", "messages": FIRST, "stream": True})
    assert reply.status_code == 502
    assert "disk on fire" in reply.json()["error"]["message"]


def test_members_that_cannot_take_the_turn_are_named(gateway: Gateway, upstream: FakeUpstream):
    gateway.add_endpoint("up", upstream.url)
    upstream.serve("able", "toolless", "unknown", "casual", "blind")
    gateway.add_model("able", tools=True, vision=True)
    gateway.add_model("toolless", tools=False, vision=True)
    gateway.add_model("unknown", vision=True)
    gateway.add_model("casual", tools=True, vision=True, ad_hoc=True)
    gateway.add_model("blind", tools=True, vision=False)
    gateway.save_collection("agents", ["toolless", "unknown", "casual", "blind", "able"])
    picture = {"type": "image_url", "image_url": {"url": "data:image/png;base64,iVBORw0KGgo="}}
    messages = [{"role": "user", "content": [{"type": "text", "text": "what is this?"}, picture]}]
    reply = post(gateway, {"model": "bench/agents:route", "messages": messages, "tools": [WEATHER_FUNCTION]})
    bench = reply.json()["bench"]
    assert bench["alias"] == "able"
    why = {s["alias"]: s["why"] for s in bench["skipped"]}
    assert set(why) == {"toolless", "unknown", "casual", "blind"}
    assert why["casual"].startswith("ad hoc") and why["blind"] == "cannot see images"
    assert "cannot call tools" in why["toolless"] and "cannot call tools" in why["unknown"]
    assert [r.model for r in upstream.requests] == ["able"]


def test_tools_offered_but_unused_are_left_out_when_no_member_can_call_tools(
    gateway: Gateway, upstream: FakeUpstream
):
    gateway.add_endpoint("up", upstream.url)
    upstream.serve("m1")
    gateway.add_model("m1")
    gateway.save_collection("agents", ["m1"])
    body = {
        "model": "bench/agents:route",
        "messages": FIRST,
        "tools": [WEATHER_FUNCTION],
        "tool_choice": "auto",
    }
    reply = post(gateway, body)
    assert reply.status_code == 200, reply.text
    assert reply.json()["choices"][0]["message"]["content"] == "answer from m1"
    assert "1 tool(s)" in reply.json()["bench"]["note"] and "left out" in reply.json()["bench"]["note"]
    sent = upstream.requests_for("m1")[0].body
    assert "tools" not in sent and "tool_choice" not in sent and sent["messages"] == FIRST


def test_tools_in_use_with_no_member_able_to_call_them_is_a_400(gateway: Gateway, upstream: FakeUpstream):
    gateway.add_endpoint("up", upstream.url)
    upstream.serve("m1")
    gateway.add_model("m1")
    gateway.save_collection("agents", ["m1"])
    call = {"id": "c1", "type": "function", "function": {"name": "get_weather", "arguments": "{}"}}
    history = [
        *FIRST,
        {"role": "assistant", "content": None, "tool_calls": [call]},
        {"role": "tool", "tool_call_id": "c1", "content": "sunny"},
    ]
    reply = post(gateway, {"model": "bench/agents:route", "messages": history, "tools": [WEATHER_FUNCTION]})
    assert reply.status_code == 400
    assert "cannot call tools" in reply.json()["error"]["message"]
    assert upstream.requests == []


def test_a_different_first_message_is_a_new_conversation(agents: Gateway, upstream: FakeUpstream):
    one = post(agents, {"model": "bench/agents", "messages": FIRST}).json()["bench"]
    again = post(agents, {"model": "bench/agents", "messages": FIRST}).json()["bench"]
    other = post(agents, {"model": "bench/agents", "messages": [{"role": "user", "content": "else"}]})
    assert again["conversation"] == one["conversation"] and again["turn"] == 2
    assert other.json()["bench"]["conversation"] != one["conversation"]
    assert other.headers["x-bench-conversation"] == other.json()["bench"]["conversation"]


def test_a_conversation_keeps_its_model_across_a_restart(agents: Gateway, upstream: FakeUpstream):
    upstream.behave("m1", status=429)
    first = post(agents, {"model": "bench/agents", "messages": FIRST}).json()["bench"]
    assert first["alias"] == "m2"
    upstream.reset()
    agents.stop()
    agents.start()
    second = post(agents, {"model": "bench/agents", "messages": FIRST}).json()["bench"]
    assert (second["conversation"], second["alias"]) == (first["conversation"], "m2")


def test_two_gateway_processes_on_one_database_agree(agents: Gateway, upstream: FakeUpstream, tmp_path: Path):
    upstream.behave("m1", status=429)
    first = post(agents, {"model": "bench/agents", "messages": FIRST}).json()["bench"]
    upstream.reset()
    other = agents.sibling().start()
    try:
        second = post(other, {"model": "bench/agents", "messages": FIRST}).json()["bench"]
    finally:
        other.close()
    assert (second["conversation"], second["alias"]) == (first["conversation"], "m2")


def test_max_tokens_over_the_models_maximum_is_clamped(gateway: Gateway, upstream: FakeUpstream):
    gateway.add_endpoint("up", upstream.url)
    upstream.serve("m1")
    gateway.add_model("m1", tools=True, max_output=100)
    gateway.save_collection("agents", ["m1"], reply="route")
    post(gateway, {"model": "bench/agents", "messages": FIRST, "max_tokens": 5000, "temperature": 0.2})
    sent = upstream.requests_for("m1")[0].body
    assert sent["max_tokens"] == 100 and sent["temperature"] == 0.2


def test_a_route_answer_is_judgeable_once_per_model_and_every_turn_is_recorded(
    agents: Gateway, upstream: FakeUpstream
):
    one = post(agents, {"model": "bench/agents", "messages": FIRST}).json()["bench"]
    post(agents, {"model": "bench/agents", "messages": FIRST})
    assert one["call"] == f"{one['conversation']}.1"
    verdict = httpx.post(
        f"{agents.url}/bench/verdict", json={"call": one["call"], "useful": True}, timeout=10
    )
    assert verdict.status_code == 200
    record = httpx.get(f"{agents.url}/bench/record", params={"collection": "agents"}, timeout=10).json()
    assert record["aliases"]["m1"]["useful"] == 1
    turns = agents.api("GET", f"/api/routes/{one['conversation']}")["turns"]
    assert [(t["turn"], t["alias"], t["status"]) for t in turns] == [(1, "m1", "ok"), (2, "m1", "ok")]
    assert "weather in Oslo" not in str(turns)


def test_panels_still_refuse_tools_in_use_and_point_to_route(agents: Gateway, upstream: FakeUpstream):
    agents.save_collection("panel", ["m1", "m2"])
    call = {"id": "c1", "type": "function", "function": {"name": "get_weather", "arguments": "{}"}}
    history = [
        *FIRST,
        {"role": "assistant", "content": None, "tool_calls": [call]},
        {"role": "tool", "tool_call_id": "c1", "content": "sunny"},
    ]
    reply = post(agents, {"model": "bench/panel", "messages": history, "tools": [WEATHER_FUNCTION]})
    assert reply.status_code == 400 and ":route" in reply.json()["error"]["message"]


def test_an_upstream_answering_one_whole_completion_is_relayed_as_one_chunk(
    agents: Gateway, upstream: FakeUpstream
):
    upstream.behave("m1", plain_json=True, tool_calls=OSLO)
    chunks = list(
        sdk(agents).chat.completions.create(
            model="bench/agents", messages=FIRST, tools=[WEATHER_FUNCTION], stream=True
        )
    )
    calls = [d for c in chunks if c.choices for d in c.choices[0].delta.tool_calls or []]
    assert [(d.function.name, json.loads(d.function.arguments)) for d in calls] == [
        ("get_weather", {"city": "Oslo"})
    ]
    assert chunks[-1].model_extra["bench"]["alias"] == "m1"


def test_a_failure_after_the_first_piece_goes_into_the_stream(agents: Gateway, upstream: FakeUpstream):
    upstream.behave("m1", answer="one two three", chunks=3, error_after=1, error_message="overheated")
    stream = sdk(agents).chat.completions.create(model="bench/agents", messages=FIRST, stream=True)
    pieces = []
    with pytest.raises(openai.APIError, match="overheated"):
        for chunk in stream:
            if chunk.choices and chunk.choices[0].delta.content:
                pieces.append(chunk.choices[0].delta.content)
    assert pieces and "one two three".startswith("".join(pieces)) and "".join(pieces) != "one two three"
    assert [r.model for r in upstream.requests] == ["m1"]  # no failover once the answer had begun


def test_turns_of_one_conversation_sent_at_once_are_all_answered_and_recorded(
    agents: Gateway, upstream: FakeUpstream
):
    first = post(agents, {"model": "bench/agents", "messages": FIRST}).json()["bench"]["conversation"]
    upstream.behave("m1", delay=0.2)
    with ThreadPoolExecutor(8) as pool:
        body = {"model": "bench/agents", "messages": FIRST}
        replies = list(pool.map(lambda _: post(agents, body), range(8)))
    assert [r.status_code for r in replies] == [200] * 8
    assert {r.json()["bench"]["conversation"] for r in replies} == {first}
    turns = agents.api("GET", f"/api/routes/{first}")["turns"]
    assert len({t["call"] for t in turns}) == 9
