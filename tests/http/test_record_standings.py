"""`GET /bench/record`'s `shapes`: per shape, each model's posterior mean, 90 % interval, verdicts, suite
results and pairwise strength, ranked; narrowed by `collection` and `shape` and by the caller's scope.
`GET /bench/pending`: the seats of the caller's own recent panels still owed a verdict."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.http.helpers import ask
from tests.http.key_helpers import get, keyed_bench, make_key, post, refused
from tests.support.gateway import Gateway
from tests.support.upstream import FakeUpstream

HELLO = "say hi"
PROSE = "write an essay about the autumn light over the harbour"
TRUE_CLAIMS = [
    "claim-caller-scope-unscoped",
    "claim-family-free-variant",
    "claim-merger-useful-count-first",
    "claim-sizing-images-flat",
]
"""Review-suite tasks of the starter pack whose claim is true: `VERDICT: TRUE` is right on each."""
CLAIM_REASONS = "\nThe attached code does what the claim says on every path through it."


def panel(gateway: Gateway, prompt: str = HELLO, collection: str = "core") -> dict[str, str]:
    """Alias → call id of one panel."""
    body = {"model": f"bench/{collection}", "messages": [{"role": "user", "content": prompt}]}
    reply = ask(gateway, body)
    assert reply.status_code == 200, reply.text
    return {s["alias"]: s["call"] for s in reply.json()["bench"]["seats"]}


def judge(gateway: Gateway, call: str, useful: bool, **more: Any) -> None:
    gateway.api("POST", "/bench/verdict", {"call": call, "useful": useful, **more}, expect=200)


def record(gateway: Gateway, query: str = "") -> dict[str, Any]:
    found: dict[str, Any] = gateway.api("GET", f"/bench/record{query}", expect=200)
    return found


def by_alias(rows: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    return {row["alias"]: row for row in rows}


def test_each_shape_ranks_its_models_by_posterior_mean_with_intervals(bench: Gateway, upstream: FakeUpstream):
    for _ in range(3):
        seats = panel(bench)
        judge(bench, seats["m1"], True)
        judge(bench, seats["m2"], False)
    judge(bench, panel(bench)["m3"], True)
    found = record(bench)
    assert list(found["shapes"]) == ["general"]
    ranked = found["shapes"]["general"]
    assert [row["alias"] for row in ranked] == ["m1", "m3", "m2"]
    assert [row["judged"] for row in ranked] == [3, 1, 3]
    assert ranked[0]["mean"] > ranked[1]["mean"] > ranked[2]["mean"]
    for row in ranked:
        assert 0 <= row["low"] < row["mean"] < row["high"] <= 1
        assert row["strength"] is None
    assert found["aliases"]["m1"] == {**found["aliases"]["m1"], "useful": 3, "notUseful": 0, "judged": 3}


def test_more_verdicts_narrow_the_interval(bench: Gateway, upstream: FakeUpstream):
    judge(bench, panel(bench)["m1"], True)
    judge(bench, panel(bench)["m2"], False)
    before = by_alias(record(bench)["shapes"]["general"])["m1"]
    for _ in range(4):
        judge(bench, panel(bench)["m1"], True)
    after = by_alias(record(bench)["shapes"]["general"])["m1"]
    assert after["judged"] == 5
    assert after["high"] - after["low"] < before["high"] - before["low"]


def test_shape_keeps_one_shape_and_an_unknown_shape_is_a_400(bench: Gateway, upstream: FakeUpstream):
    judge(bench, panel(bench)["m1"], True)
    judge(bench, panel(bench, PROSE)["m2"], False)
    assert list(record(bench)["shapes"]) == ["general", "prose"]
    only = record(bench, "?shape=prose")
    assert only["shape"] == "prose"
    assert list(only["shapes"]) == ["prose"] and [r["alias"] for r in only["shapes"]["prose"]] == ["m2"]
    assert record(bench, "?shape=code")["shapes"] == {}
    refusal = bench.api("GET", "/bench/record?shape=poetry", expect=400)
    assert refusal["error"]["param"] == "shape" and "quick" in refusal["error"]["message"]


def test_better_than_verdicts_give_each_model_a_pairwise_strength(bench: Gateway, upstream: FakeUpstream):
    for _ in range(3):
        seats = panel(bench)
        judge(bench, seats["m1"], True, better_than=[seats["m2"], seats["m3"]])
        judge(bench, seats["m3"], True, better_than=[seats["m2"]])
    judge(bench, panel(bench, PROSE)["m1"], True)
    found = record(bench)["shapes"]
    strengths = {alias: row["strength"] for alias, row in by_alias(found["general"]).items()}
    assert strengths["m1"]["value"] > strengths["m3"]["value"] > strengths["m2"]["value"]
    assert strengths["m1"]["winChance"] > 0.5 > strengths["m2"]["winChance"]
    for strength in strengths.values():
        assert strength["low"] < strength["value"] < strength["high"]
    assert by_alias(found["prose"])["m1"]["strength"] is None


def test_a_collection_shows_only_its_own_verdicts(bench: Gateway, upstream: FakeUpstream):
    bench.save_collection("other", ["m1", "m2"], description="the other bench")
    judge(bench, panel(bench)["m1"], True)
    judge(bench, panel(bench, collection="other")["m1"], False)
    assert by_alias(record(bench)["shapes"]["general"])["m1"]["judged"] == 2
    core = by_alias(record(bench, "?collection=bench/core")["shapes"]["general"])["m1"]
    other = by_alias(record(bench, "?collection=other")["shapes"]["general"])["m1"]
    assert (core["judged"], other["judged"]) == (1, 1)
    assert core["mean"] > other["mean"]


def test_a_scoped_key_sees_the_standings_of_its_collections_only(tmp_path: Path, upstream: FakeUpstream):
    with keyed_bench(tmp_path / "home", upstream) as gateway:
        scoped, owner = make_key(gateway, collections=["core"]), make_key(gateway, name="owner")
        for collection, key, useful in (
            ("core", scoped, True),
            ("other", owner, False),
            ("other", owner, False),
        ):
            reply = post(gateway, "/v1/chat/completions", _hello(collection), key).json()
            call = {s["alias"]: s["call"] for s in reply["bench"]["seats"]}["m1"]
            assert post(gateway, "/bench/verdict", {"call": call, "useful": useful}, key).status_code == 200
        refused(get(gateway, "/bench/record?collection=other&shape=quick", scoped), 403)
        own = get(gateway, "/bench/record", scoped).json()["shapes"]
        assert [(r["alias"], r["judged"]) for r in own["general"]] == [("m1", 1)]
        everything = get(gateway, "/bench/record", owner).json()["shapes"]
        assert by_alias(everything["general"])["m1"]["judged"] == 3


def test_a_suite_run_moves_the_review_estimates_without_adding_verdicts(
    bench: Gateway, upstream: FakeUpstream
):
    """What a person checks after running the review suite: `GET /bench/record?shape=review` (or
    `panelgate record --shape review`) lists the models it asked, the one that got its tasks right
    above even odds and above the one that got them wrong, each with its suite results in `suite`
    and still 0 verdicts in `judged`; a model the suite did not ask has no row there, and a
    collection's record leaves suite results out (they are the whole bench's). The record read
    before the run shows the new results at once, not after the gateway's few-second copy expires."""
    assert record(bench)["shapes"] == {}
    upstream.behave("m1", answer="VERDICT: TRUE" + CLAIM_REASONS)
    upstream.behave("m2", answer="VERDICT: FALSE" + CLAIM_REASONS)
    ran = bench.api("POST", "/api/suite/run", {"models": ["m1", "m2"], "tasks": TRUE_CLAIMS}, expect=200)
    assert {(a["model"], a["right"]) for a in ran["answers"]} == {("m1", True), ("m2", False)}
    found = record(bench)
    assert list(found["shapes"]) == ["review"] and found["aliases"] == {}
    right, wrong = found["shapes"]["review"]
    assert (right["alias"], right["judged"], right["suite"]) == ("m1", 0, len(TRUE_CLAIMS))
    assert (wrong["alias"], wrong["judged"], wrong["suite"]) == ("m2", 0, len(TRUE_CLAIMS))
    assert right["mean"] > 0.5 > wrong["mean"]
    assert record(bench, "?collection=core")["shapes"] == {}


def _hello(collection: str) -> dict[str, Any]:
    return {"model": f"bench/{collection}", "messages": [{"role": "user", "content": HELLO}]}


def test_pending_lists_the_callers_unjudged_seats_with_shape_and_prompt(
    bench: Gateway, upstream: FakeUpstream
):
    seats = panel(bench, PROSE)
    judge(bench, seats["m1"], True)
    owed = bench.api("GET", "/bench/pending", expect=200)["pending"]
    assert [seat["call"] for seat in owed] == [seats["m2"], seats["m3"]]
    first = owed[0]
    assert (first["alias"], first["seat"], first["collection"], first["shape"]) == (
        "m2",
        "member",
        "bench/core",
        "prose",
    )
    assert first["panel"] == seats["m2"].rsplit(".", 1)[0]
    assert first["preview"].startswith("write an essay") and first["at"]


def test_pending_is_empty_once_every_seat_is_judged(bench: Gateway, upstream: FakeUpstream):
    for call in panel(bench).values():
        judge(bench, call, True)
    assert bench.api("GET", "/bench/pending", expect=200) == {"pending": []}


def test_pending_shows_each_key_only_its_own_panels(tmp_path: Path, upstream: FakeUpstream):
    with keyed_bench(tmp_path / "home", upstream) as gateway:
        scoped, owner = make_key(gateway, collections=["core"]), make_key(gateway, name="owner")
        mine = post(gateway, "/v1/chat/completions", _hello("core"), scoped).json()["bench"]["seats"]
        theirs = post(gateway, "/v1/chat/completions", _hello("other"), owner).json()["bench"]["seats"]
        shown = [seat["call"] for seat in get(gateway, "/bench/pending", scoped).json()["pending"]]
        assert shown == [seat["call"] for seat in mine]
        owed = [seat["call"] for seat in get(gateway, "/bench/pending", owner).json()["pending"]]
        assert owed == [seat["call"] for seat in theirs]
        refused(get(gateway, "/bench/pending"), 401)
