"""Health probes against the loopback upstream: what each asks, what it measures, what it records."""

from __future__ import annotations

from panelgate.store import ModelRecord

from .conftest import Live


async def model(live: Live, alias: str = "m1") -> ModelRecord:
    found = await live.db.models.get(alias)
    assert found is not None
    return found


async def test_the_one_word_probe_is_a_small_call_noted_in_the_ledger_as_a_probe(live: Live) -> None:
    probe = await live.health.probe(await model(live), caller="scheduler")
    assert (probe.probe, probe.status, probe.error_kind) == ("ready", "ok", None)
    (sent,) = live.upstream.requests_for("m1")
    assert sent.body["max_tokens"] <= 64 and "single word" in sent.body["messages"][0]["content"]
    (row,) = await live.db.usage.recent()
    assert (row.alias, row.purpose, row.caller, row.status) == ("m1", "probe", "scheduler", "ok")


async def test_a_probe_keeps_the_failure_in_the_endpoints_words(live: Live) -> None:
    live.upstream.behave("m1", status=404, error_message="The model `m1` does not exist")
    probe = await live.health.probe(await model(live), caller="ops")
    assert (probe.status, probe.error_kind) == ("error", "structural")
    assert "does not exist" in probe.error


async def test_reasoning_alone_is_an_answer_but_nothing_at_all_is_empty(live: Live) -> None:
    live.upstream.behave("m1", answer="", reasoning="thinking about the word")
    live.upstream.behave("m2", empty=True)
    assert (await live.health.probe(await model(live, "m1"), caller="t")).status == "ok"
    empty = await live.health.probe(await model(live, "m2"), caller="t")
    assert (empty.status, empty.error_kind) == ("empty", "empty")


async def test_the_speed_test_measures_a_tiny_and_a_large_prompt(live: Live) -> None:
    live.upstream.behave("m1", answer="a summary " * 20, usage=(900, 40), delay=0.02)
    tiny, large = await live.health.speed_test(await model(live), caller="scheduler")
    assert (tiny.probe, large.probe) == ("speed-tiny", "speed-large")
    for found in (tiny, large):
        assert (found.measures["runs"], found.measures["answered"]) == (3, 3)
        assert 0.02 <= found.measures["p50_s"] <= found.measures["p95_s"], "the upstream takes 20 ms"
        assert found.measures["chars_per_s"] > 0 and found.measures["tokens_per_s"] > 0
    sent = live.upstream.requests_for("m1")
    assert len(sent) == 6
    assert len(sent[-1].body["messages"][0]["content"]) > 10 * len(sent[0].body["messages"][0]["content"])


async def test_the_capability_probe_sees_a_tool_call_and_a_right_sum(live: Live) -> None:
    live.upstream.behave("m1", tool_calls=[{"name": "local_time", "arguments": {"city": "Lisbon"}}])
    live.upstream.behave("m2", answer="391")
    tools, _ = await live.health.capabilities(await model(live, "m1"), caller="scheduler")
    assert tools.measures["called"] is True
    _, reasoning = await live.health.capabilities(await model(live, "m2"), caller="scheduler")
    assert reasoning.measures == {"correct": True, "reasoned": False}
    offered = live.upstream.requests_for("m1")[0].body["tools"]
    assert offered[0]["function"]["name"] == "local_time"


async def test_a_probe_a_rate_limit_would_refuse_is_not_sent_and_reads_throttled(live: Live) -> None:
    await live.db.rates.set_rule("up", "m1", "requests", "day", 1, actor="t")
    m1 = await model(live)
    assert (await live.health.probe(m1, caller="t")).status == "ok"
    live.clock.advance(seconds=1)
    refused = await live.health.probe(m1, caller="t")
    assert (refused.status, refused.error_kind) == ("refused", "capacity")
    assert len(live.upstream.requests_for("m1")) == 1
    (health,) = await live.health.report("m1")
    assert health.health.status == "throttled"


async def test_every_model_reads_untested_before_any_call(live: Live) -> None:
    report = await live.health.report()
    assert [(h.alias, h.health.status) for h in report] == [
        ("m1", "untested"),
        ("m2", "untested"),
        ("m3", "untested"),
    ]
