"""Long prompts skip explorers the speed test found failing or far slower; a preferred endpoint wins ties.

Through the real HTTP surface: the weekly speed test is run by its job
(`POST /api/scheduler/jobs/speed-test/run`) against the loopback upstream,
where one candidate answers slowly and one fails, then panels are asked.
Seating is seeded (`PANELGATE_SEATING_SEED`) so a run is the same each time.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.http.helpers import ask
from tests.support.gateway import Gateway
from tests.support.upstream import FakeUpstream

CANDIDATES = {"quick": "org/alpha-1", "steady": "org/beta-2", "slow": "org/gamma-3", "broken": "org/delta-4"}
"""Explorer candidates, each of a family of its own."""
LONG_LOG = "\n".join(f"line {n}: the worker handled {n * 7 % 90} jobs" for n in range(320))
SHORT = "Is `range(len(a) + 1)` off by one?"


@pytest.fixture
def bench(tmp_path: Path, upstream: FakeUpstream) -> Iterator[Gateway]:
    gateway = Gateway(tmp_path / "home", env={"PANELGATE_SEATING_SEED": "3"}).start()
    try:
        gateway.add_endpoint("up", upstream.url)
        upstream.serve("org/member-1", *CANDIDATES.values())
        gateway.add_model("m1", "org/member-1")
        for alias, served in CANDIDATES.items():
            gateway.add_model(alias, served)
        gateway.gateway_settings(max_calls=2, max_explorers=1, explorer_floor=6)
        gateway.save_collection("solo", ["m1"], shape="code")
        yield gateway
    finally:
        gateway.close()


def panel(gateway: Gateway, text: str) -> dict[str, Any]:
    bench: dict[str, Any] = ask(
        gateway, {"model": "bench/solo", "messages": [{"role": "user", "content": text}]}
    ).json()["bench"]
    return bench


def explorer(bench: dict[str, Any]) -> str:
    (seat,) = [s for s in bench["seats"] if s["seat"].startswith("explorer")]
    return str(seat["alias"])


def speed_test(gateway: Gateway, upstream: FakeUpstream) -> None:
    """The weekly speed test as its job runs it: `slow` takes ten times as long, `broken` answers nothing."""
    for served in CANDIDATES.values():
        upstream.behave(served, delay=0.04)
    upstream.behave(CANDIDATES["slow"], delay=0.4)
    upstream.behave(CANDIDATES["broken"], empty=True)
    run = gateway.api("POST", "/api/scheduler/jobs/speed-test/run", expect=200)["run"]
    assert run["outcome"] == "ok", run
    for served in CANDIDATES.values():  # panels afterwards are answered at once by everyone
        upstream.behave(served)


def test_a_long_prompt_skips_the_candidates_the_speed_test_found_failing_or_far_slower(
    bench: Gateway, upstream: FakeUpstream
):
    speed_test(bench, upstream)
    prompt = f"Summarise this log:\n{LONG_LOG}"
    assert len(prompt) > 8_000
    panels = [panel(bench, prompt) for _ in range(8)]
    assert {explorer(p) for p in panels} <= {"quick", "steady"}, [explorer(p) for p in panels]
    skipped = {s["alias"]: s for s in panels[0]["skipped"]}
    assert skipped["slow"]["seat"] == "explorer"
    assert "slow on long prompts" in skipped["slow"]["why"] and "median" in skipped["slow"]["why"]
    assert skipped["broken"]["why"].startswith("failed the long-prompt speed test"), skipped
    assert set(skipped) == {"slow", "broken"}, skipped
    kept = bench.api("GET", f"/api/panels/{panels[0]['panel']}", expect=200)
    assert {s["alias"]: s["seat"] for s in kept["panel"]["skipped"]} == {
        "slow": "explorer",
        "broken": "explorer",
    }


def test_with_the_setting_off_a_long_prompt_seats_every_candidate_in_turn(
    bench: Gateway, upstream: FakeUpstream
):
    speed_test(bench, upstream)
    bench.gateway_settings(skip_slow_on_long_prompts=False)
    prompt = f"Summarise this log:\n{LONG_LOG}"
    panels = [panel(bench, prompt) for _ in range(8)]
    assert {explorer(p) for p in panels} == set(CANDIDATES), [explorer(p) for p in panels]
    assert all(not p.get("skipped") for p in panels), panels[0]


def test_a_short_prompt_still_seats_every_candidate_in_turn(bench: Gateway, upstream: FakeUpstream):
    speed_test(bench, upstream)
    panels = [panel(bench, SHORT) for _ in range(8)]
    assert {explorer(p) for p in panels} == set(CANDIDATES), [explorer(p) for p in panels]
    assert all(not p.get("skipped") for p in panels), panels[0]


def test_among_equally_good_candidates_the_preferred_endpoints_model_sits_first(
    bench: Gateway, upstream: FakeUpstream
):
    bench.add_endpoint("favourite", upstream.url)
    upstream.serve("org/omega-9")
    bench.add_model("zulu", "org/omega-9", endpoint="favourite")
    assert explorer(panel(bench, SHORT)) == "broken", "no record yet: the floor seats by name"
    shown = bench.api("PUT", "/api/endpoints/favourite/preferred", {"preferred": True}, expect=200)
    assert shown["preferred"] is True
    listed = {e["name"]: e["preferred"] for e in bench.api("GET", "/api/endpoints")["endpoints"]}
    assert listed == {"up": False, "favourite": True}
    assert explorer(panel(bench, SHORT)) == "zulu"
    page = httpx.get(f"{bench.url}/endpoints").text
    assert page.count(">preferred</span>") == 1 and "Not preferred</button>" in page
