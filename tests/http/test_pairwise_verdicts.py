"""Pairwise verdicts through `POST /bench/verdict`: `better_than` names seats of the same panel only,
is kept on the verdict, and is superseded with it."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from typing import Any

from tests.http.helpers import ask
from tests.support.gateway import Gateway
from tests.support.upstream import FakeUpstream


def seats(gateway: Gateway, prompt: str = "say hi") -> dict[str, str]:
    """Alias → call id of one panel of `core`."""
    body = {"model": "bench/core", "messages": [{"role": "user", "content": prompt}]}
    return {s["alias"]: s["call"] for s in ask(gateway, body).json()["bench"]["seats"]}


def judge(gateway: Gateway, body: dict[str, Any], expect: int = 200) -> dict[str, Any]:
    answer: dict[str, Any] = gateway.api("POST", "/bench/verdict", body, expect=expect)
    return answer


def better_than_shown(gateway: Gateway, call: str) -> list[str]:
    """The current verdict's `better_than`, as the dashboard's panel list shows it."""
    panel = call.rsplit(".", 1)[0]
    shown = {seat["call"]: seat["verdict"] for seat in gateway.api("GET", f"/api/panels/{panel}")["seats"]}
    verdict = shown[call]
    return [] if verdict is None else list(verdict["better_than"])


def test_better_than_a_seat_of_another_panel_is_a_400_naming_it(bench: Gateway, upstream: FakeUpstream):
    mine, theirs = seats(bench), seats(bench, "another question")
    refused = judge(bench, {"call": mine["m1"], "useful": True, "better_than": [theirs["m2"]]}, expect=400)
    assert refused["error"]["param"] == "better_than"
    assert f"`{theirs['m2']}`" in refused["error"]["message"]
    assert better_than_shown(bench, mine["m1"]) == []


def test_better_than_seats_of_the_same_panel_is_stored(bench: Gateway, upstream: FakeUpstream):
    panel = seats(bench)
    judged = judge(bench, {"call": panel["m1"], "useful": True, "better_than": [panel["m3"], panel["m2"]]})
    assert judged["result"] == "created"
    assert better_than_shown(bench, panel["m1"]) == sorted([panel["m2"], panel["m3"]])


def test_a_later_verdict_replaces_the_better_than_list(bench: Gateway, upstream: FakeUpstream):
    panel = seats(bench)
    judge(bench, {"call": panel["m1"], "useful": True, "better_than": [panel["m2"], panel["m3"]]})
    later = judge(bench, {"call": panel["m1"], "useful": True, "better_than": [panel["m3"]]})
    assert later["result"] == "superseded"
    assert better_than_shown(bench, panel["m1"]) == [panel["m3"]]


def test_an_identical_pairwise_verdict_writes_nothing(bench: Gateway, upstream: FakeUpstream):
    panel = seats(bench)
    body = {"call": panel["m2"], "useful": True, "better_than": [panel["m1"]]}
    judge(bench, body)
    assert judge(bench, body)["result"] == "unchanged"


def test_a_verdict_without_better_than_keeps_the_earlier_list(bench: Gateway, upstream: FakeUpstream):
    panel = seats(bench)
    judge(bench, {"call": panel["m2"], "useful": True, "better_than": [panel["m1"]]})
    assert judge(bench, {"call": panel["m2"], "useful": True})["result"] == "unchanged"
    assert judge(bench, {"call": panel["m2"], "useful": True, "better_than": []})["result"] == "superseded"
    assert better_than_shown(bench, panel["m2"]) == []


def test_better_than_the_judged_call_itself_is_a_400(bench: Gateway, upstream: FakeUpstream):
    panel = seats(bench)
    refused = judge(bench, {"call": panel["m1"], "useful": True, "better_than": [panel["m1"]]}, expect=400)
    assert "the call being judged" in refused["error"]["message"]


def test_better_than_an_unknown_call_is_a_404_naming_it(bench: Gateway, upstream: FakeUpstream):
    panel = seats(bench)
    unknown = panel["m1"].rsplit(".", 1)[0] + ".member9"
    refused = judge(bench, {"call": panel["m1"], "useful": True, "better_than": [unknown]}, expect=404)
    assert f"`{unknown}`" in refused["error"]["message"]


def test_better_than_a_failed_seat_is_a_400(bench: Gateway, upstream: FakeUpstream):
    upstream.behave("m3", status=400, error_message="nope")
    panel = seats(bench)
    refused = judge(bench, {"call": panel["m1"], "useful": True, "better_than": [panel["m3"]]}, expect=400)
    assert "failed" in refused["error"]["message"]


def test_better_than_of_the_wrong_type_is_a_400(bench: Gateway, upstream: FakeUpstream):
    panel = seats(bench)
    for wrong in (panel["m2"], [7], [""]):
        judge(bench, {"call": panel["m1"], "useful": True, "better_than": wrong}, expect=400)


def test_the_dashboard_records_better_than_like_the_bench(bench: Gateway, upstream: FakeUpstream):
    panel = seats(bench)
    bench.api(
        "POST",
        "/api/verdicts",
        {"call": panel["m3"], "useful": True, "better_than": [panel["m1"]]},
        expect=200,
    )
    assert better_than_shown(bench, panel["m3"]) == [panel["m1"]]


def test_a_verdict_and_a_best_choice_sent_at_once_both_hold(bench: Gateway, upstream: FakeUpstream):
    """The Judge view sends "useful" then "best" for one seat as fast as keys are pressed; whichever the
    server takes first, the other keeps what it left out, so the best choice is never undone."""
    for round_number in range(8):
        panel = seats(bench, f"question {round_number}")
        plain = {"call": panel["m1"], "useful": True, "note": "clear"}
        best = {"call": panel["m1"], "useful": True, "better_than": [panel["m2"], panel["m3"]]}
        with ThreadPoolExecutor(max_workers=2) as pool:
            list(pool.map(lambda body: judge(bench, body), [plain, best]))
        assert better_than_shown(bench, panel["m1"]) == sorted([panel["m2"], panel["m3"]])
        stored = bench.api("GET", f"/api/panels/{panel['m1'].rsplit('.', 1)[0]}")["seats"]
        assert next(s["verdict"]["note"] for s in stored if s["call"] == panel["m1"]) == "clear"
