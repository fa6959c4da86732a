"""Hand-set rate rules, what is spent under them, and what providers state, in the shared store."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta

import pytest

from panelgate.core.rate_limits import StatedLimits, StatedWindow
from panelgate.store import Database, Invalid, NotFound


async def test_a_rule_is_configuration_the_bench_snapshot_carries(bench: Database):
    rule = await bench.rates.set_rule("local", None, "requests", "minute", 3, actor="ann")
    assert (await bench.bench.snapshot()).rate_rules == (rule,)
    again = await bench.rates.set_rule("local", None, "requests", "minute", 5, actor="ann")
    assert [r.most for r in (await bench.bench.snapshot()).rate_rules] == [5]
    model_rule = await bench.rates.set_rule("local", "org/alpha-7b", "tokens", "day", 1000, actor="ann")
    assert model_rule.covers("local", "org/alpha-7b") and not model_rule.covers("local", "org/beta-7b")
    assert again.covers("local", "org/beta-7b")
    changes = await bench.audit.list(entity="rate_rule")
    assert [c.action for c in changes] == ["set", "set", "set"] and changes[1].before["most"] == 3
    await bench.rates.delete_rule(again.id, actor="ann")
    assert (await bench.bench.snapshot()).rate_rules == (model_rule,)


@pytest.mark.parametrize(
    ("measure", "window", "most", "field"),
    [("calls", "minute", 3, "measure"), ("requests", "hour", 3, "window"), ("requests", "day", 0, "most")],
)
async def test_bad_rules_are_refused(bench: Database, measure: str, window: str, most: int, field: str):
    with pytest.raises(Invalid) as refused:
        await bench.rates.set_rule("local", None, measure, window, most, actor="ann")
    assert refused.value.field == field


async def test_a_rule_needs_a_known_endpoint(bench: Database):
    with pytest.raises(NotFound):
        await bench.rates.set_rule("nowhere", None, "requests", "minute", 3, actor="ann")


async def test_taking_never_passes_the_rule_even_when_concurrent(bench: Database):
    rule = await bench.rates.set_rule("local", None, "requests", "minute", 3, actor="ann")
    taken = await asyncio.gather(*(bench.rates.take(rule, 1000, 1) for _ in range(6)))
    assert sorted(taken) == [False, False, False, True, True, True]
    assert await bench.rates.take(rule, 1001, 1)  # the next minute starts afresh
    assert await bench.rates.used([rule.id], [1000, 1001]) == {(rule.id, 1000): 3, (rule.id, 1001): 1}
    assert not await bench.rates.take(rule, 1002, 4)  # more than the rule allows at all


async def test_tokens_are_added_after_the_fact(bench: Database):
    rule = await bench.rates.set_rule("local", None, "tokens", "day", 100, actor="ann")
    await bench.rates.add(rule, 7, 80)
    await bench.rates.add(rule, 7, 80)
    assert await bench.rates.used([rule.id], [7]) == {(rule.id, 7): 160}


async def test_what_a_provider_states_is_kept_per_model_and_measure(bench: Database):
    resets = datetime(2026, 11, 30, 12, 6, tzinfo=UTC)
    stated = StatedLimits(
        "openai",
        (StatedWindow("requests", 500, 499, resets), StatedWindow("tokens", 30000, 0, resets)),
    )
    await bench.rates.record_stated("local", "org/alpha-7b", stated)
    later = StatedLimits("openai", (StatedWindow("requests", 500, 498, resets + timedelta(seconds=1)),))
    await bench.rates.record_stated("local", "org/alpha-7b", later)
    rows = {row.measure: row for row in await bench.rates.stated()}
    assert (rows["requests"].remaining, rows["tokens"].remaining) == (498, 0)
    assert rows["tokens"].resets_at == resets and rows["requests"].style == "openai"


async def test_a_bare_retry_after_is_kept_as_a_pause(bench: Database):
    until = datetime(2026, 11, 30, 12, 0, 30, tzinfo=UTC)
    await bench.rates.record_stated("local", "org/beta-7b", StatedLimits("openai", (), until))
    (row,) = await bench.rates.stated()
    assert (row.served_id, row.remaining, row.resets_at) == ("org/beta-7b", 0, until)


async def test_deleting_an_unknown_rule_says_so(bench: Database):
    for rule_id in (0, 12345, 2**70):
        with pytest.raises(NotFound):
            await bench.rates.delete_rule(rule_id, actor="ann")
