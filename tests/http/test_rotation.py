"""Explorer rotation under the old rule (`explorer_rule: stalest`): every model gets a seat in turn,
stalest first, one per family."""

from __future__ import annotations

from tests.http.helpers import ask, hello
from tests.support.gateway import Gateway
from tests.support.upstream import FakeUpstream

SERVED = {
    "a1": "org/alpha-1",
    "a2": "org/beta-2",
    "x1": "org/gamma-3",
    "x2": "org/delta-4",
    "x3": "org/twin-7b",
    "x4": "other/Twin_7B:free",
}


def test_six_panels_seat_every_non_member_stalest_first_one_per_family(
    gateway: Gateway, upstream: FakeUpstream
):
    gateway.add_endpoint("up", upstream.url)
    upstream.serve(*SERVED.values())
    for alias, served in SERVED.items():
        gateway.add_model(alias, served)
    gateway.gateway_settings(max_calls=4, max_explorers=2, explorer_rule="stalest")
    gateway.save_collection("duo", ["a1", "a2"])
    last_seen: dict[str, int] = {}
    explorers_per_panel = []
    for number in range(6):
        panel = ask(gateway, hello("bench/duo")).json()["bench"]
        explorers = [s["alias"] for s in panel["seats"] if s["seat"].startswith("explorer")]
        assert len(explorers) == 2, panel
        assert set(explorers) != {"x3", "x4"}, "two of one family sat together"
        waiting = [a for a in ("x1", "x2", "x3", "x4") if a not in explorers]
        twins_seated = bool({"x3", "x4"} & set(explorers))
        for chosen in explorers:
            for other in waiting:
                if twins_seated and other in ("x3", "x4"):
                    continue  # its twin holds a seat, so it may not sit whatever its staleness
                assert last_seen.get(chosen, -1) <= last_seen.get(other, -1), (number, chosen, other)
        for alias in explorers:
            last_seen[alias] = number
        explorers_per_panel.append(explorers)
    assert {a for seated in explorers_per_panel for a in seated} == {"x1", "x2", "x3", "x4"}
    assert set(explorers_per_panel[0]) <= {"x1", "x2", "x3", "x4"}
    assert len({a for seated in explorers_per_panel[:3] for a in seated}) == 4
