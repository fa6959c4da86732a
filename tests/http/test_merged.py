"""Merged replies: the merger's answer, its call id, and every fallback to all answers."""

from __future__ import annotations

import pytest

from tests.http.helpers import ask, hello, sse_events
from tests.support.gateway import Gateway
from tests.support.upstream import FakeUpstream


@pytest.fixture
def merging(bench: Gateway, upstream: FakeUpstream) -> Gateway:
    upstream.serve("merger-model", "tiny-model", "broken-model")
    bench.add_model("mg", "merger-model")
    bench.add_model("tiny", "tiny-model", context_window=50)
    bench.add_model("broken", "broken-model")
    upstream.behave("broken-model", status=400, error_message="model is broken")
    return bench


def test_merged_suffix_gives_the_mergers_answer_with_its_call_id(merging: Gateway, upstream: FakeUpstream):
    merging.api("PATCH", "/api/collections/core", {"merger": "mg"}, expect=200)
    body = ask(merging, hello("bench/core:merged")).json()
    panel = body["bench"]
    content = body["choices"][0]["message"]["content"]
    assert panel["reply"] == "merged"
    assert panel["merger"]["call"] == panel["panel"] + ".merger" and panel["merger"]["alias"] == "mg"
    assert content.startswith("answer from merger-model") and panel["merger"]["call"] in content
    assert [s["alias"] for s in panel["seats"]] == ["m1", "m2", "m3"]
    merge_request = upstream.requests_for("merger-model")[0].body["messages"]
    asked = merge_request[-1]["content"]
    assert merge_request[0]["role"] == "system"
    assert "say hi" in asked and all(f"answer from m{i}" in asked for i in (1, 2, 3))


def test_merger_is_recorded_like_a_seat(merging: Gateway, upstream: FakeUpstream):
    merging.api("PATCH", "/api/collections/core", {"merger": "mg"}, expect=200)
    panel = ask(merging, hello("bench/core:merged")).json()["bench"]
    recorded = merging.api("GET", f"/api/panels/{panel['panel']}", expect=200)
    assert [s["call"] for s in recorded["seats"]][-1] == panel["panel"] + ".merger"
    assert merging.api("POST", "/bench/pending", {"calls": [panel["merger"]["call"]]})["pending"] == [
        panel["merger"]["call"]
    ]


def test_merged_reply_falls_back_to_every_answer_when_merger_fails(merging: Gateway, upstream: FakeUpstream):
    merging.api("PATCH", "/api/collections/core", {"merger": "broken"}, expect=200)
    body = ask(merging, hello("bench/core", bench={"reply": "merged"})).json()
    panel, content = body["bench"], body["choices"][0]["message"]["content"]
    assert panel["reply"] == "all" and "broken" in panel["note"]
    assert panel["merger"]["status"] == "error"
    assert content.splitlines()[0].startswith("_") and all(s["call"] in content for s in panel["seats"])
    recorded = merging.api("GET", f"/api/panels/{panel['panel']}", expect=200)
    assert panel["merger"]["call"] in [s["call"] for s in recorded["seats"]]


def test_the_note_says_both_that_offered_tools_were_left_out_and_why_the_merge_fell_back(
    merging: Gateway, upstream: FakeUpstream
):
    merging.api("PATCH", "/api/collections/core", {"merger": "broken"}, expect=200)
    tools = [{"type": "function", "function": {"name": "search_web", "parameters": {"type": "object"}}}]
    body = ask(merging, hello("bench/core:merged", tools=tools)).json()
    note = body["bench"]["note"]
    assert note.startswith("the request offered 1 tool,") and "broken" in note
    recorded = merging.api("GET", f"/api/panels/{body['bench']['panel']}", expect=200)
    assert recorded["panel"]["note"] == note
    assert not any("tools" in request.body for request in upstream.requests)


def test_merged_reply_falls_back_without_calling_a_merger_too_small(merging: Gateway, upstream: FakeUpstream):
    merging.api("PATCH", "/api/collections/core", {"merger": "tiny"}, expect=200)
    body = ask(merging, hello("bench/core:merged")).json()
    panel = body["bench"]
    assert panel["reply"] == "all" and "context window" in panel["note"] and "merger" not in panel
    assert upstream.requests_for("tiny-model") == []
    assert all(s["call"] in body["choices"][0]["message"]["content"] for s in panel["seats"])


def test_merged_reply_falls_back_when_no_seat_answered(merging: Gateway, upstream: FakeUpstream):
    merging.api("PATCH", "/api/collections/core", {"merger": "mg"}, expect=200)
    for model in ("m1", "m2", "m3"):
        upstream.behave(model, status=400, error_message="nope")
    panel = ask(merging, hello("bench/core:merged")).json()["bench"]
    assert panel["reply"] == "all" and panel["note"] and upstream.requests_for("merger-model") == []


def test_body_beats_suffix_beats_collection(merging: Gateway, upstream: FakeUpstream):
    merging.api("PATCH", "/api/collections/core", {"reply": "merged", "merger": "mg"}, expect=200)
    assert "merger" not in ask(merging, hello("bench/core:all")).json()["bench"]
    assert "merger" not in ask(merging, hello("bench/core:merged", bench={"reply": "all"})).json()["bench"]
    assert ask(merging, hello("bench/core")).json()["bench"]["reply"] == "merged"
    merging.api("PATCH", "/api/collections/core", {"reply": "all"}, expect=200)
    assert ask(merging, hello("bench/core", bench={"reply": "merged"})).json()["bench"]["reply"] == "merged"


def test_merger_defaults_to_a_member_when_the_collection_names_none(merging: Gateway, upstream: FakeUpstream):
    panel = ask(merging, hello("bench/core:merged")).json()["bench"]
    assert panel["reply"] == "merged" and panel["merger"]["alias"] == "m1"


def test_merger_with_most_useful_verdicts_on_the_shape_is_chosen(merging: Gateway, upstream: FakeUpstream):
    first = ask(merging, hello()).json()["bench"]
    m2 = next(s["call"] for s in first["seats"] if s["alias"] == "m2")
    merging.api("POST", "/bench/verdict", {"call": m2, "useful": True}, expect=200)
    panel = ask(merging, hello("bench/core:merged")).json()["bench"]
    assert panel["merger"]["alias"] == "m2"


def test_streamed_merge_arrives_in_pieces_with_bench_on_the_last_chunk(
    merging: Gateway, upstream: FakeUpstream
):
    merging.api("PATCH", "/api/collections/core", {"merger": "mg"}, expect=200)
    upstream.behave("merger-model", answer="one two three four", chunks=4)
    events = [
        e
        for e in sse_events(ask(merging, hello("bench/core:merged", stream=True)).text)
        if isinstance(e, dict)
    ]
    texts = [e["choices"][0]["delta"].get("content") for e in events]
    merged_pieces = [t for t in texts if t and not t.startswith("\n")]
    assert len(merged_pieces) >= 4 and "".join(t or "" for t in texts).startswith("one two three four")
    assert events[-1]["bench"]["reply"] == "merged" and len(events[-1]["bench"]["seats"]) == 3
