"""The suite's one call to a model on the loopback upstream: the answer, the ledger row, the failures."""

from __future__ import annotations

import time

from panelgate.engine.suite_call import SuiteReply, ask_for_suite
from panelgate.store import EndpointRecord, ModelRecord

from .conftest import Live

MESSAGES = [{"role": "user", "content": "Review this function."}]


async def where(live: Live, alias: str = "m1") -> tuple[ModelRecord, EndpointRecord]:
    model = await live.db.models.get(alias)
    assert model is not None
    return model, (await live.db.bench.snapshot()).endpoints[model.endpoint]


async def ask(live: Live, alias: str = "m1") -> SuiteReply:
    model, endpoint = await where(live, alias)
    return await ask_for_suite(
        live.client, model, endpoint, MESSAGES, deadline=time.monotonic() + 10, caller="ops"
    )


async def test_an_answer_comes_back_with_its_tokens_and_is_noted_in_the_ledger_as_suite(live: Live) -> None:
    live.upstream.behave("m1", answer="NO FAULT", usage=(120, 8))
    reply = await ask(live)
    assert (reply.status, reply.text, reply.tokens_in, reply.tokens_out) == ("ok", "NO FAULT", 120, 8)
    (row,) = await live.db.usage.recent()
    assert (row.alias, row.purpose, row.caller, row.status) == ("m1", "suite", "ops", "ok")


async def test_a_failure_comes_back_in_the_endpoints_words_not_as_an_exception(live: Live) -> None:
    live.upstream.behave("m1", status=404, error_message="The model `m1` does not exist")
    reply = await ask(live)
    assert (reply.status, reply.error_kind) == ("error", "structural")
    assert "does not exist" in reply.error


async def test_a_call_a_rate_limit_would_refuse_is_not_sent_and_reads_refused(live: Live) -> None:
    await live.db.rates.set_rule("up", "m1", "requests", "day", 1, actor="t")
    assert (await ask(live)).status == "ok"
    refused = await ask(live)
    assert (refused.status, refused.error_kind) == ("refused", "capacity")
    assert len(live.upstream.requests_for("m1")) == 1
