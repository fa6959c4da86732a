"""Explorer seats follow the record, under the staleness floor, through the real HTTP surface.

The gateway seats explorers by the evidence rule (`core/explorer_policy.py`)
unless it is told `explorer_rule: stalest`. Seating draws from a random
source, seeded here (`PANELGATE_SEATING_SEED`) so a run is the same every
time.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.http.helpers import ask
from tests.support.gateway import Gateway
from tests.support.upstream import FakeUpstream

CANDIDATES = {"good": "org/alpha-1", "poor": "org/beta-2", "other": "org/gamma-3"}
"""Models outside the collection, each of a family of its own: they take turns on the explorer seat."""
CODE_REVIEW = {
    "role": "user",
    "content": "Review this:\n```python\nfor i in range(len(a) + 1):\n    print(a[i])\n```",
}


@pytest.fixture
def seeded(tmp_path: Path, upstream: FakeUpstream) -> Iterator[Gateway]:
    gateway = Gateway(tmp_path / "home", env={"PANELGATE_SEATING_SEED": "7"}).start()
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


def explorer_of(gateway: Gateway) -> tuple[str, str]:
    """Ask one code panel: its explorer's alias and call."""
    panel = ask(gateway, {"model": "bench/solo", "messages": [CODE_REVIEW]}).json()["bench"]
    (seat,) = [s for s in panel["seats"] if s["seat"].startswith("explorer")]
    return seat["alias"], seat["call"]


def test_a_model_judged_useful_sits_more_often_than_one_judged_useless(seeded: Gateway):
    for _ in range(18):  # every answer judged: "good" useful, the others not
        alias, call = explorer_of(seeded)
        seeded.api("POST", "/bench/verdict", {"call": call, "useful": alias == "good"})
    later = Counter(explorer_of(seeded)[0] for _ in range(24))
    assert later["good"] > later["poor"] and later["good"] > later["other"], later
    assert later["poor"] >= 24 // 6 - 1, f"the floor still seats the useless model: {later}"


def test_the_floor_seats_a_never_judged_newcomer_within_k_panels(seeded: Gateway, upstream: FakeUpstream):
    for _ in range(12):
        alias, call = explorer_of(seeded)
        seeded.api("POST", "/bench/verdict", {"call": call, "useful": alias == "good"})
    upstream.serve("org/delta-4")
    seeded.add_model("newcomer", "org/delta-4")
    seated = [explorer_of(seeded)[0] for _ in range(6)]
    assert "newcomer" in seated, seated


def test_the_old_rule_seats_stalest_first_when_asked(seeded: Gateway):
    seeded.gateway_settings(explorer_rule="stalest")
    seated = [explorer_of(seeded)[0] for _ in range(6)]
    assert sorted(seated[:3]) == sorted(CANDIDATES) and seated[3:] == seated[:3], seated


def test_the_collections_merger_never_takes_an_explorer_seat_in_its_own_panel(seeded: Gateway):
    seeded.save_collection("solo", ["m1"], shape="code", merger="good")
    seated = {explorer_of(seeded)[0] for _ in range(8)}
    assert "good" not in seated and seated == {"poor", "other"}, seated
