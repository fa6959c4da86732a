"""`GET /api/record`: what the Record page draws, over HTTP: the standings per shape, the verdicts per
day (current verdicts only) and the next explorer seats with their reasons."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

from tests.http.helpers import ask
from tests.support.gateway import Gateway
from tests.support.upstream import FakeUpstream

PROSE = "write an essay about the autumn light over the harbour"


def panel(gateway: Gateway, collection: str = "core", prompt: str = "say hi") -> dict[str, str]:
    """Alias → call id of one panel."""
    body = {"model": f"bench/{collection}", "messages": [{"role": "user", "content": prompt}]}
    reply = ask(gateway, body)
    assert reply.status_code == 200, reply.text
    return {seat["alias"]: seat["call"] for seat in reply.json()["bench"]["seats"]}


def judge(gateway: Gateway, call: str, useful: bool) -> None:
    gateway.api("POST", "/bench/verdict", {"call": call, "useful": useful}, expect=200)


def record(gateway: Gateway, query: str = "") -> dict[str, Any]:
    found: dict[str, Any] = gateway.api("GET", f"/api/record{query}", expect=200)
    return found


def test_the_record_ranks_each_shape_and_counts_todays_verdicts(bench: Gateway, upstream: FakeUpstream):
    for _ in range(3):
        seats = panel(bench)
        judge(bench, seats["m1"], True)
        judge(bench, seats["m2"], False)
    judge(bench, panel(bench, prompt=PROSE)["m3"], True)
    found = record(bench)
    assert (found["collection"], found["shape"]) == (None, None)
    assert list(found["standings"]) == ["general", "prose"]
    general = found["standings"]["general"]
    assert [(row["alias"], row["judged"]) for row in general] == [("m1", 3), ("m2", 3)]
    assert general[0]["low"] < general[0]["mean"] < general[0]["high"]
    days = found["timeline"]["days"]
    today = datetime.now(UTC).date()
    assert len(days) == 30 and days[-1]["day"] == today.isoformat()
    assert days[0]["day"] == (today - timedelta(days=29)).isoformat()
    assert (days[-1]["useful"], days[-1]["not_useful"]) == (4, 3)
    assert (found["timeline"]["useful"], found["timeline"]["not_useful"]) == (4, 3)


def test_a_later_verdict_on_a_call_replaces_the_earlier_one_on_the_timeline(
    bench: Gateway, upstream: FakeUpstream
):
    call = panel(bench)["m1"]
    judge(bench, call, True)
    judge(bench, call, False)
    today = record(bench)["timeline"]["days"][-1]
    assert (today["useful"], today["not_useful"]) == (0, 1)


def test_narrowed_to_a_collection_only_its_verdicts_count(bench: Gateway, upstream: FakeUpstream):
    bench.save_collection("solo", ["m3"])
    judge(bench, panel(bench)["m1"], True)
    judge(bench, panel(bench, "solo")["m3"], False)
    for asked in ("solo", "bench/solo"):
        found = record(bench, f"?collection={asked}")
        assert found["collection"] == "solo"
        assert [row["alias"] for row in found["standings"]["general"]] == ["m3"]
        assert (found["timeline"]["useful"], found["timeline"]["not_useful"]) == (0, 1)
    only_prose = record(bench, "?shape=prose")
    assert only_prose["standings"] == {} and list(only_prose["explorers"]) == ["prose"]


def test_an_unknown_collection_is_a_404_naming_them_and_an_unknown_shape_a_400(
    bench: Gateway, upstream: FakeUpstream
):
    missing = bench.api("GET", "/api/record?collection=nope", expect=404)["error"]
    assert missing["field"] == "collection" and "bench/core" in missing["message"]
    wrong = bench.api("GET", "/api/record?shape=poetry", expect=400)["error"]
    assert wrong["field"] == "shape" and "enumeration" in wrong["message"]


def test_the_next_explorers_put_a_never_seated_model_first_then_challenger_and_leader(
    bench: Gateway, upstream: FakeUpstream
):
    bench.gateway_settings(max_calls=4, max_explorers=1)
    for _ in range(3):
        seats = panel(bench)
        judge(bench, seats["m1"], True)
        judge(bench, seats["m2"], False)
    upstream.serve("newcomer")
    bench.add_model("newcomer")
    general = record(bench)["explorers"]["general"]
    assert (general["seats"], general["floor"], general["rule"]) == (1, 10, "evidence")
    order = [(c["alias"], c["reason"], c["next_panel"]) for c in general["candidates"]]
    assert order[:3] == [("newcomer", "due", True), ("m3", "challenger", False), ("m1", "leader", False)]
    assert general["candidates"][0]["why"] == "due: never seated (floor 10)"
    assert general["candidates"][1]["why"] == "challenger: could still overturn the leader m1"


def test_a_collections_members_hold_no_explorer_seat_of_its_own_panels(
    bench: Gateway, upstream: FakeUpstream
):
    upstream.serve("outsider")
    bench.add_model("outsider")
    judge(bench, panel(bench)["m1"], True)
    core = record(bench, "?collection=core")["explorers"]["general"]
    assert core["seats"] == 0  # three members fill the three seats a panel has
    assert [c["alias"] for c in core["candidates"]] == ["outsider"]
    assert not core["candidates"][0]["next_panel"]
