"""A caller who hangs up never stops the panel: every seat finishes and is recorded."""

from __future__ import annotations

import contextlib
import time

import httpx

from tests.http.helpers import hello
from tests.support.gateway import Gateway
from tests.support.upstream import FakeUpstream


def test_streaming_caller_hanging_up_leaves_the_panel_running(bench: Gateway, upstream: FakeUpstream):
    upstream.behave("m1", delay=1.5)
    with httpx.stream(
        "POST", f"{bench.url}/v1/chat/completions", json=hello(stream=True), timeout=30
    ) as reply:
        first = next(reply.iter_lines())
    panel_id = first.split('"id":"chatcmpl-', 1)[1].split('"', 1)[0]
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        found = httpx.get(f"{bench.url}/api/panels/{panel_id}", timeout=5)
        if found.status_code == 200:
            break
        time.sleep(0.2)
    seats = {s["alias"]: s["status"] for s in found.json()["seats"]}
    assert seats == {"m1": "ok", "m2": "ok", "m3": "ok"}


def test_whole_reply_caller_hanging_up_leaves_the_panel_running(bench: Gateway, upstream: FakeUpstream):
    upstream.behave("m1", delay=1.5)
    with contextlib.suppress(httpx.ReadTimeout):
        httpx.post(f"{bench.url}/v1/chat/completions", json=hello(), timeout=0.5)
    time.sleep(2.5)
    panels = bench.api("GET", "/api/panels", expect=200)["panels"]
    assert len(panels) == 1
    recorded = bench.api("GET", f"/api/panels/{panels[0]['id']}", expect=200)
    assert [s["status"] for s in recorded["seats"]] == ["ok", "ok", "ok"]
