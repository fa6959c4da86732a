"""The usage ledger: one row per upstream call, with who asked, why, how it ended and its tokens."""

from __future__ import annotations

from tests.http.helpers import ask, hello
from tests.http.route_helpers import FIRST, arrange_agents
from tests.support.gateway import Gateway
from tests.support.upstream import FakeUpstream


def ledger(gateway: Gateway) -> list[dict]:
    return list(reversed(gateway.api("GET", "/api/usage")["recent"]))


def test_every_seat_of_a_panel_is_one_row_with_its_streamed_tokens(bench: Gateway, upstream: FakeUpstream):
    upstream.behave("m1", usage=(120, 30))
    upstream.behave("m2", status=500, error_message="boom")
    seats = ask(bench, hello()).json()["bench"]["seats"]
    rows = {row["alias"]: row for row in ledger(bench)}
    assert set(rows) == {"m1", "m2", "m3"}
    assert {row["call"] for row in rows.values()} == {seat["call"] for seat in seats}
    m1, m2 = rows["m1"], rows["m2"]
    assert (m1["purpose"], m1["caller"], m1["status"], m1["tokens_in"], m1["tokens_out"]) == (
        "panel", "local", "ok", 120, 30
    )  # fmt: skip
    assert (m2["status"], m2["error_kind"]) == ("error", "other")
    assert m2["attempts"] == len(upstream.requests_for("m2")) > 1  # its retries are one call
    assert all(row["endpoint"] == "up" and row["served_id"] == row["alias"] for row in rows.values())
    (day_m1,) = [t for t in bench.api("GET", "/api/usage")["day"] if t["alias"] == "m1"]
    assert (day_m1["calls"], day_m1["tokens_in"], day_m1["tokens_out"]) == (1, 120, 30)


def test_a_merge_is_its_own_row(bench: Gateway, upstream: FakeUpstream):
    upstream.serve("merger-model")
    bench.add_model("mg", "merger-model")
    bench.api("PATCH", "/api/collections/core", {"merger": "mg"}, expect=200)
    panel = ask(bench, hello("bench/core:merged")).json()["bench"]
    merge = [row for row in ledger(bench) if row["purpose"] == "merge"]
    assert [(row["alias"], row["call"]) for row in merge] == [("mg", panel["merger"]["call"])]


def test_a_route_turn_notes_the_member_that_failed_and_the_one_that_answered(
    gateway: Gateway, upstream: FakeUpstream
):
    agents = arrange_agents(gateway, upstream)
    upstream.behave("m1", status=429, error_message="slow down")
    reply = agents.api("POST", "/v1/chat/completions", {"model": "bench/agents", "messages": FIRST})
    assert reply["bench"]["alias"] == "m2"
    rows = ledger(agents)
    assert [(r["alias"], r["purpose"], r["status"], r["error_kind"]) for r in rows] == [
        ("m1", "route", "error", "capacity"),
        ("m2", "route", "ok", None),
    ]
    assert rows[1]["tokens_out"] is not None and rows[1]["call"] == rows[0]["call"]


def test_a_call_refused_by_pacing_was_never_sent_and_is_not_in_the_ledger(
    bench: Gateway, upstream: FakeUpstream
):
    bench.save_collection("solo", ["m1"])
    bench.gateway_settings(max_calls=1, max_explorers=0, seat_deadline_s=3)
    rule = {"endpoint": "up", "served_id": "m1", "measure": "requests", "window": "day", "most": 1}
    bench.api("POST", "/api/limits", rule, expect=201)
    ask(bench, hello("bench/solo"))
    refused = ask(bench, hello("bench/solo")).json()["bench"]["seats"][0]
    assert refused["error"].startswith("capacity: not sent")
    assert len(ledger(bench)) == len(upstream.requests_for("m1")) == 1


def test_a_call_sent_once_then_refused_a_retry_by_pacing_is_one_row(bench: Gateway, upstream: FakeUpstream):
    """A 429 asking for an hour's rest: the retry is refused without being sent, the sent call is noted."""
    bench.save_collection("solo", ["m1"])
    bench.gateway_settings(max_calls=1, max_explorers=0, seat_deadline_s=3)
    upstream.behave("m1", status=429, error_message="come back later", retry_after=3600)
    seat = ask(bench, hello("bench/solo")).json()["bench"]["seats"][0]
    assert seat["status"] != "ok"
    assert len(upstream.requests_for("m1")) == 1
    (row,) = ledger(bench)
    assert (row["alias"], row["status"], row["error_kind"], row["attempts"]) == ("m1", "error", "capacity", 1)
