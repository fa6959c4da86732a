"""A panel over OpenAI Responses, with the official `openai` SDK as the client."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import httpx
import openai
import pytest

from tests.http.helpers import sdk, sse_events
from tests.support.gateway import Gateway
from tests.support.upstream import FakeUpstream

PIXEL = (
    "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk"
    "+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="
)
LIFECYCLE_START = [
    "response.created",
    "response.in_progress",
    "response.output_item.added",
    "response.content_part.added",
]
LIFECYCLE_END = [
    "response.output_text.done",
    "response.content_part.done",
    "response.output_item.done",
    "response.completed",
]


@pytest.fixture
def client(bench: Gateway) -> Iterator[openai.OpenAI]:
    """The official OpenAI client pointed at the gateway (the bench arranged), closed afterwards."""
    with sdk(bench) as official:
        yield official


def _post(gateway: Gateway, body: dict[str, Any]) -> httpx.Response:
    return httpx.post(f"{gateway.url}/v1/responses", json=body, timeout=60)


def _refusal(caught: pytest.ExceptionInfo[openai.APIStatusError]) -> str:
    body = caught.value.body
    assert isinstance(body, dict) and body["type"] == "invalid_request_error"
    assert body["code"] == str(caught.value.status_code)
    return str(body["message"])


def test_three_member_collection_answers_with_one_section_per_seat(
    bench: Gateway, upstream: FakeUpstream, client: openai.OpenAI
):
    response = client.responses.create(model="bench/core", instructions="be brief", input="say hi")
    panel = response.model_extra["bench"]
    text = response.output_text
    assert response.status == "completed" and response.id == f"resp_{panel['panel']}"
    assert response.model == "bench/core" and response.model_extra["store"] is False
    assert response.usage is not None and response.usage.input_tokens > 0 and response.usage.output_tokens > 0
    assert [s["alias"] for s in panel["seats"]] == ["m1", "m2", "m3"]
    for seat in panel["seats"]:
        assert seat["status"] == "ok" and seat["call"] in text
        assert f"## member — {seat['alias']}" in text and f"answer from {seat['alias']}" in text
    sent = [upstream.requests_for(m)[0].body["messages"] for m in ("m1", "m2", "m3")]
    expected = [{"role": "system", "content": "be brief"}, {"role": "user", "content": "say hi"}]
    assert sent == [expected, expected, expected]


def test_message_items_reach_every_seat_as_a_conversation(
    bench: Gateway, upstream: FakeUpstream, client: openai.OpenAI
):
    client.responses.create(
        model="bench/core",
        input=[
            {"role": "developer", "content": "answer in French"},
            {"role": "user", "content": [{"type": "input_text", "text": "hello"}]},
            {"type": "reasoning", "id": "rs_1", "summary": []},
            {
                "type": "message",
                "role": "assistant",
                "content": [{"type": "output_text", "text": "bonjour", "annotations": []}],
            },
            {"role": "user", "content": "again"},
        ],
    )
    expected = [
        {"role": "system", "content": "answer in French"},
        {"role": "user", "content": "hello"},
        {"role": "assistant", "content": "bonjour"},
        {"role": "user", "content": "again"},
    ]
    assert [upstream.requests_for(m)[0].body["messages"] for m in ("m1", "m2", "m3")] == [expected] * 3


def test_model_name_is_echoed_as_sent(bench: Gateway, upstream: FakeUpstream, client: openai.OpenAI):
    response = client.responses.create(model="core:all", input="say hi")
    assert response.model == "core:all" and response.model_extra["bench"]["collection"] == "bench/core"


def test_streamed_fast_seat_section_arrives_before_slow_seat(
    bench: Gateway, upstream: FakeUpstream, client: openai.OpenAI
):
    upstream.behave("m1", delay=1.2)
    events = list(client.responses.create(model="bench/core", input="say hi", stream=True))
    pieces = [e.delta for e in events if e.type == "response.output_text.delta"]
    text = "".join(pieces)
    assert text.index("## member — m2") < text.index("## member — m1")
    assert text.index("## member — m3") < text.index("## member — m1")
    assert "**bench/core**" in pieces[0] and "## member" not in pieces[0], "the heading comes alone, first"
    last = events[-1]
    assert last.type == "response.completed" and last.response.output_text == text
    assert [s["alias"] for s in last.response.model_extra["bench"]["seats"]] == ["m1", "m2", "m3"]


def test_stream_helper_sees_the_whole_lifecycle_with_contiguous_sequence_numbers(
    bench: Gateway, upstream: FakeUpstream, client: openai.OpenAI
):
    with client.responses.stream(model="bench/core", input="say hi") as stream:
        events = list(stream)
        final = stream.get_final_response()
    types = [e.type for e in events]
    assert types[:4] == LIFECYCLE_START and types[-4:] == LIFECYCLE_END
    assert set(types[4:-4]) == {"response.output_text.delta"}
    assert [e.sequence_number for e in events] == list(range(len(events)))
    assert final.status == "completed" and final.model_extra["bench"]["panel"] in final.id
    assert final.output_text == "".join(e.delta for e in events if e.type == "response.output_text.delta")


def test_stream_sends_keep_alives_while_seats_think(bench: Gateway, upstream: FakeUpstream):
    upstream.behave("m1", delay=1.6)
    raw = _post(bench, {"model": "bench/core", "input": "say hi", "stream": True}).text
    before_completed = raw.split("event: response.completed")[0]
    assert ": keep-alive" in before_completed.split("event: response.content_part.added")[1]
    events = [e for e in sse_events(raw) if isinstance(e, dict)]
    assert [e["sequence_number"] for e in events] == list(range(len(events)))
    assert "bench" in events[-1]["response"] and all(
        "bench" not in e.get("response", {}) for e in events[:-1]
    )


def test_merged_suffix_answers_with_the_mergers_text(
    bench: Gateway, upstream: FakeUpstream, client: openai.OpenAI
):
    upstream.serve("merger-model")
    bench.add_model("mg", "merger-model")
    bench.api("PATCH", "/api/collections/core", {"merger": "mg"}, expect=200)
    response = client.responses.create(model="bench/core:merged", input="say hi")
    assert response.model_extra["bench"]["reply"] == "merged"
    assert response.output_text.startswith("answer from merger-model")


def test_input_image_reaches_only_seeing_seats(bench: Gateway, upstream: FakeUpstream, client: openai.OpenAI):
    bench.api("PATCH", "/api/models/m1", {"vision": True}, expect=200)
    content = [{"type": "input_text", "text": "what is this?"}, {"type": "input_image", "image_url": PIXEL}]
    response = client.responses.create(model="bench/core", input=[{"role": "user", "content": content}])
    assert [s["alias"] for s in response.model_extra["bench"]["seats"]] == ["m1"]
    assert upstream.requests_for("m2") == [] and upstream.requests_for("m3") == []
    sent = upstream.requests_for("m1")[0].body["messages"][0]["content"]
    assert sent == [
        {"type": "text", "text": "what is this?"},
        {"type": "image_url", "image_url": {"url": PIXEL}},
    ]


def test_unknown_collection_is_404_listing_collections(
    bench: Gateway, upstream: FakeUpstream, client: openai.OpenAI
):
    with pytest.raises(openai.NotFoundError) as caught:
        client.responses.create(model="bench/nope", input="say hi")
    assert "bench/core" in caught.value.message and caught.value.body["code"] == "404"
    assert upstream.requests == []


def test_function_tools_offered_to_a_panel_are_left_out_and_the_note_says_so(
    bench: Gateway, upstream: FakeUpstream, client: openai.OpenAI
):
    tools: Any = [{"type": "function", "name": "f", "parameters": {"type": "object"}, "strict": False}]
    response = client.responses.create(model="bench/core", input="say hi", tools=tools)
    note = response.model_extra["bench"]["note"]
    assert "offered 1 tool," in note and "bench/core:route" in note
    assert len(upstream.requests) == 3 and all("tools" not in r.body for r in upstream.requests)


def test_function_call_history_in_a_panel_is_refused_pointing_to_route(
    bench: Gateway, upstream: FakeUpstream, client: openai.OpenAI
):
    history: Any = [
        {"role": "user", "content": "weather?"},
        {"type": "function_call", "call_id": "c1", "name": "weather", "arguments": "{}"},
        {"type": "function_call_output", "call_id": "c1", "output": "sunny"},
    ]
    with pytest.raises(openai.BadRequestError) as caught:
        client.responses.create(model="bench/core", input=history)
    assert "bench/core:route" in _refusal(caught)
    assert upstream.requests == []


def test_hosted_tool_is_refused(bench: Gateway, upstream: FakeUpstream, client: openai.OpenAI):
    with pytest.raises(openai.BadRequestError) as caught:
        client.responses.create(model="bench/core", input="news?", tools=[{"type": "web_search"}])
    assert "hosted tool" in _refusal(caught) and caught.value.body["param"] == "tools"
    assert upstream.requests == []


@pytest.mark.parametrize(
    "stored", [{"previous_response_id": "resp_abc"}, {"conversation": "conv_abc"}], ids=["previous", "conv"]
)
def test_stored_conversation_fields_are_refused(
    bench: Gateway, upstream: FakeUpstream, client: openai.OpenAI, stored: dict
):
    with pytest.raises(openai.BadRequestError) as caught:
        client.responses.create(model="bench/core", input="go on", **stored)
    assert "nothing is stored" in _refusal(caught)
    assert upstream.requests == []


def test_input_file_part_is_refused(bench: Gateway, upstream: FakeUpstream, client: openai.OpenAI):
    part: Any = {
        "type": "input_file",
        "filename": "a.pdf",
        "file_data": "data:application/pdf;base64,JVBERi0=",
    }
    with pytest.raises(openai.BadRequestError) as caught:
        client.responses.create(model="bench/core", input=[{"role": "user", "content": [part]}])
    assert "file (PDF)" in _refusal(caught)
    assert upstream.requests == []


def test_input_image_by_file_id_is_refused(bench: Gateway, upstream: FakeUpstream, client: openai.OpenAI):
    part: Any = {"type": "input_image", "file_id": "file_abc", "detail": "auto"}
    with pytest.raises(openai.BadRequestError) as caught:
        client.responses.create(model="bench/core", input=[{"role": "user", "content": [part]}])
    assert "uploaded file" in _refusal(caught)
    assert upstream.requests == []


def test_retrieving_a_response_is_404_saying_nothing_is_stored(
    bench: Gateway, upstream: FakeUpstream, client: openai.OpenAI
):
    with pytest.raises(openai.NotFoundError) as caught:
        client.responses.retrieve("resp_abc")
    assert "nothing is stored" in caught.value.message


def test_malformed_json_is_refused_in_the_responses_shape(bench: Gateway, upstream: FakeUpstream):
    response = httpx.post(
        f"{bench.url}/v1/responses", content=b'{"model":', headers={"Content-Type": "application/json"}
    )
    assert response.status_code == 400
    error = response.json()["error"]
    assert error["type"] == "invalid_request_error" and error["code"] == "400" and "JSON" in error["message"]
