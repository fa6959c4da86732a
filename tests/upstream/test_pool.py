"""Hundreds of seats at once share one client and one loopback upstream without a failure."""

from __future__ import annotations

import asyncio

from panelgate.upstream import UpstreamClient
from tests.support.upstream import FakeUpstream
from tests.upstream.helpers import HELLO, seconds_from_now, target_on


async def test_three_hundred_concurrent_streams_all_answer(client: UpstreamClient, upstream: FakeUpstream):
    upstream.behave("m1", answer="a b c d", chunks=4, company=300)
    deadline = seconds_from_now(20)
    results = await asyncio.gather(
        *(client.chat(target_on(upstream), HELLO, {}, deadline=deadline) for _ in range(300))
    )
    # the upstream answers none until all 300 are open at once, so a queued call would fail them all
    assert [r.text for r in results] == ["a b c d"] * 300 and {r.attempts for r in results} == {1}
