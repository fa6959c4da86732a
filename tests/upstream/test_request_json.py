"""A call's JSON body is kept in memory of its own size while the call waits and runs."""

from __future__ import annotations

import tracemalloc

import orjson

from panelgate.upstream.openai_chat import request_body

CHAT = {"messages": [{"role": "user", "content": "a question of about a hundred characters " * 3}]}


def test_a_thousand_kept_bodies_hold_about_their_own_size() -> None:
    tracemalloc.start()
    try:
        kept = [request_body("m1", CHAT["messages"], {}, stream_options=True) for _ in range(1000)]
        held, _ = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    size = len(kept[0])
    assert orjson.loads(kept[0])["messages"] == CHAT["messages"]
    assert held < 1000 * (size + 200), f"{held / 1000:.0f} bytes held per {size}-byte body"
