"""Hundreds of seats at once share one client and one loopback upstream without a failure."""

from __future__ import annotations

import asyncio

from panelgate.upstream import UpstreamClient
from tests.support.upstream import FakeUpstream
from tests.upstream.helpers import HELLO, seconds_from_now, target_on


async def test_three_hundred_concurrent_streams_all_answer(client: UpstreamClient, upstream: FakeUpstream):
    upstream.behave("m1", answer="a b c d", chunks=4, chunk_delay=0.1)
    deadline = seconds_from_now(10)
    results = await asyncio.gather(
        *(client.chat(target_on(upstream), HELLO, {}, deadline=deadline) for _ in range(300))
    )
    assert [r.text for r in results] == ["a b c d"] * 300 and {r.attempts for r in results} == {1}
    arrivals = sorted(request.at for request in upstream.requests_for("m1"))
    assert arrivals[-1] - arrivals[0] < 0.4, (
        "the last call arrived before the first could finish: none queued"
    )
