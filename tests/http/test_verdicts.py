"""Verdicts: recorded, superseded, idempotent; the record and the pending list read them back."""

from __future__ import annotations

from urllib.parse import urlencode

import pytest

from tests.http.helpers import ask
from tests.support.gateway import Gateway
from tests.support.upstream import FakeUpstream


def _seats(gateway: Gateway, prompt: str = "say hi") -> dict[str, str]:
    body = {"model": "bench/core", "messages": [{"role": "user", "content": prompt}]}
    return {s["alias"]: s["call"] for s in ask(gateway, body).json()["bench"]["seats"]}


def _verdict(gateway: Gateway, body: dict, expect: int = 200) -> dict:
    return gateway.api("POST", "/bench/verdict", body, expect=expect)


def test_later_verdict_supersedes_the_earlier(bench: Gateway, upstream: FakeUpstream):
    call = _seats(bench)["m1"]
    assert _verdict(bench, {"call": call, "useful": True})["result"] == "created"
    assert _verdict(bench, {"call": call, "useful": False, "note": "wrong line"})["result"] == "superseded"
    record = bench.api("GET", "/bench/record?collection=bench/core")["aliases"]["m1"]
    assert (record["useful"], record["notUseful"], record["judged"]) == (0, 1, 1)


def test_identical_verdict_writes_nothing(bench: Gateway, upstream: FakeUpstream):
    call = _seats(bench)["m2"]
    _verdict(bench, {"call": call, "useful": True, "note": "ok", "real": ["line 3 is off by one"]})
    again = _verdict(bench, {"call": call, "useful": True, "note": "ok", "real": ["line 3 is off by one"]})
    assert again["result"] == "unchanged"


def test_verdict_without_note_keeps_the_earlier_note(bench: Gateway, upstream: FakeUpstream):
    call = _seats(bench)["m2"]
    _verdict(bench, {"call": call, "useful": True, "note": "checked against the code"})
    assert _verdict(bench, {"call": call, "useful": True})["result"] == "unchanged"


def test_verdict_for_unknown_call_is_404(bench: Gateway, upstream: FakeUpstream):
    response = bench.api("POST", "/bench/verdict", {"call": "p20260101-000000-abcd.member1", "useful": True})
    assert "call" in response["error"]["message"]
    _verdict(bench, {"call": "p20260101-000000-abcd.member1", "useful": True}, expect=404)


@pytest.mark.parametrize(
    "body",
    [
        {"call": "x", "useful": "yes"},
        {"call": 5, "useful": True},
        {"useful": True},
        {"call": "x", "useful": True, "real": "one claim"},
        {"call": "x", "useful": True, "false": [1, 2]},
        {"call": "x", "useful": True, "note": 7},
    ],
)
def test_verdict_with_wrong_types_is_400(bench: Gateway, upstream: FakeUpstream, body: dict):
    _verdict(bench, body, expect=400)


def test_record_counts_per_alias_and_filters_by_task(bench: Gateway, upstream: FakeUpstream):
    parser = _seats(bench, "review the parser for off-by-one errors")
    other = _seats(bench, "write a haiku")
    _verdict(bench, {"call": parser["m1"], "useful": True})
    _verdict(bench, {"call": parser["m2"], "useful": False})
    _verdict(bench, {"call": other["m1"], "useful": True})
    everything = bench.api("GET", "/bench/record?collection=bench/core")["aliases"]
    assert everything["m1"]["useful"] == 2 and everything["m2"]["notUseful"] == 1
    assert everything["m1"]["lastAt"]
    parser_only = bench.api("GET", "/bench/record?collection=core&task=parser")["aliases"]
    assert parser_only["m1"]["useful"] == 1 and parser_only["m2"]["notUseful"] == 1
    assert bench.api("GET", "/bench/record?collection=bench/other")["aliases"] == {}


def test_the_task_filter_wants_every_word_in_the_prompt_or_the_note_in_any_case(
    bench: Gateway, upstream: FakeUpstream
):
    review = _seats(bench, "Review the PARSER for off-by-one errors")
    haiku = _seats(bench, "write a haiku for the Überprüfung")
    _verdict(bench, {"call": review["m1"], "useful": True, "note": "caught the 100%_bound case"})
    _verdict(bench, {"call": review["m2"], "useful": False})
    _verdict(bench, {"call": review["m2"], "useful": True, "note": "fine on a second read"})
    _verdict(bench, {"call": haiku["m1"], "useful": False, "note": "parser-free, as asked"})

    def tallied(task: str) -> dict[str, tuple[int, int]]:
        asked = urlencode({"collection": "core", "task": task})
        aliases = bench.api("GET", f"/bench/record?{asked}")["aliases"]
        return {alias: (tally["useful"], tally["notUseful"]) for alias, tally in aliases.items()}

    assert tallied("parser REVIEW") == {"m1": (1, 0), "m2": (1, 0)}, "only each call's current verdict"
    assert tallied("parser haiku") == {"m1": (0, 1)}, "one word in the prompt, the other in the note"
    assert tallied("second read") == {"m2": (1, 0)}
    assert tallied("%_") == {"m1": (1, 0)}, "% and _ are letters, not patterns"
    assert tallied("ÜBERPRÜFUNG haiku") == {"m1": (0, 1)}
    assert tallied("überprüfung review") == {}
    assert tallied("nowhere") == {}


def test_pending_lists_only_unjudged_ok_and_empty_seats(bench: Gateway, upstream: FakeUpstream):
    upstream.behave("m2", status=400, error_message="nope")
    upstream.behave("m3", empty=True)
    seats = _seats(bench)
    _verdict(bench, {"call": seats["m1"], "useful": True})
    calls = [seats["m1"], seats["m2"], seats["m3"], "p20260101-000000-abcd.member1"]
    assert bench.api("POST", "/bench/pending", {"calls": calls})["pending"] == [seats["m3"]]


def test_pending_refuses_a_body_without_a_call_list(bench: Gateway, upstream: FakeUpstream):
    bench.api("POST", "/bench/pending", {"calls": "p1.member1"}, expect=400)


def test_a_verdict_on_a_failed_seat_is_a_400_saying_failures_are_health(
    bench: Gateway, upstream: FakeUpstream
):
    upstream.behave("m2", status=400, error_message="nope")
    failed = _seats(bench)["m2"]
    refused = _verdict(bench, {"call": failed, "useful": False}, expect=400)
    assert refused["error"]["param"] == "call"
    assert "health, not its usefulness" in refused["error"]["message"]
    assert bench.api("GET", "/bench/record?collection=bench/core")["aliases"] == {}


def test_a_verdict_on_an_empty_seat_is_recorded(bench: Gateway, upstream: FakeUpstream):
    upstream.behave("m3", empty=True)
    assert _verdict(bench, {"call": _seats(bench)["m3"], "useful": False})["result"] == "created"
