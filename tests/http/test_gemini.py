"""A panel over the Gemini API, with the official `google-genai` SDK as the client.

The SDK hides the reply's headers behind its own types, so the `X-Bench-*`
headers and the raw stream framing are read through httpx.
"""

from __future__ import annotations

import base64
from collections.abc import Iterator
from typing import Any

import httpx
import orjson
import pytest
from google import genai
from google.genai import errors, types

from tests.support.gateway import Gateway
from tests.support.upstream import FakeUpstream

PIXEL_DATA = (
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="
)
HI = {"contents": [{"role": "user", "parts": [{"text": "say hi"}]}]}


@pytest.fixture
def client(bench: Gateway) -> Iterator[genai.Client]:
    """The official GenAI client pointed at the gateway (the bench arranged); kept open for the
    whole test, since the SDK closes its connection pool when the client object goes away."""
    options = types.HttpOptions(
        base_url=bench.url, api_version="v1beta", retry_options=types.HttpRetryOptions(attempts=1)
    )
    official = genai.Client(api_key="x", http_options=options)
    yield official
    official.close()


def _post(gateway: Gateway, path: str, body: dict[str, Any], **headers: str) -> httpx.Response:
    return httpx.post(f"{gateway.url}{path}", json=body, headers=headers, timeout=60)


def _gemini_error(response: httpx.Response, code: int, status: str) -> str:
    assert response.status_code == code, response.text
    error = response.json()["error"]
    assert error["code"] == code and error["status"] == status
    return str(error["message"])


def _sse_chunks(raw: str) -> list[dict[str, Any]]:
    return [
        orjson.loads(line.removeprefix("data: ")) for line in raw.splitlines() if line.startswith("data: ")
    ]


def _text(chunk: dict[str, Any]) -> str:
    return "".join(p["text"] for p in chunk["candidates"][0]["content"]["parts"])


def test_three_member_collection_answers_with_one_section_per_seat(
    bench: Gateway, upstream: FakeUpstream, client: genai.Client
):
    reply = client.models.generate_content(
        model="bench/core",
        contents="say hi",
        config=types.GenerateContentConfig(system_instruction="be brief", temperature=0.2),
    )
    text = reply.text or ""
    assert reply.model_version == "bench/core"
    assert reply.candidates and reply.candidates[0].finish_reason == types.FinishReason.STOP
    assert reply.usage_metadata and reply.usage_metadata.prompt_token_count
    assert reply.usage_metadata.candidates_token_count
    for alias in ("m1", "m2", "m3"):
        assert f"## member — {alias}" in text and f"answer from {alias}" in text
    sent = [upstream.requests_for(m)[0].body["messages"] for m in ("m1", "m2", "m3")]
    expected = [{"role": "system", "content": "be brief"}, {"role": "user", "content": "say hi"}]
    assert sent == [expected, expected, expected]


def test_whole_reply_names_the_panel_and_every_seat_in_headers(bench: Gateway, upstream: FakeUpstream):
    response = _post(bench, "/v1beta/models/bench/core:generateContent", HI)
    assert response.status_code == 200, response.text
    panel = response.headers["X-Bench-Panel"]
    seats = orjson.loads(response.headers["X-Bench-Seats"])
    named = [{key: seat[key] for key in ("call", "seat", "alias", "status")} for seat in seats]
    assert named == [
        {"call": f"{panel}.member{n}", "seat": "member", "alias": f"m{n}", "status": "ok"} for n in (1, 2, 3)
    ]
    assert all(set(seat["usage"]) == {"input", "output", "estimated"} for seat in seats)
    assert "bench" not in response.json() and all(s["call"] in _text(response.json()) for s in seats)


def test_url_encoded_model_name_is_read_and_echoed(bench: Gateway, upstream: FakeUpstream):
    response = _post(bench, "/v1beta/models/bench%2Fcore:generateContent", HI)
    assert response.status_code == 200, response.text
    assert response.json()["modelVersion"] == "bench/core"
    assert len(orjson.loads(response.headers["X-Bench-Seats"])) == 3


def test_streamed_fast_seat_section_arrives_before_slow_seat(
    bench: Gateway, upstream: FakeUpstream, client: genai.Client
):
    upstream.behave("m1", delay=1.2)
    chunks = list(client.models.generate_content_stream(model="bench/core", contents="say hi"))
    pieces = [chunk.text or "" for chunk in chunks]
    text = "".join(pieces)
    assert text.index("## member — m2") < text.index("## member — m1")
    assert text.index("## member — m3") < text.index("## member — m1")
    assert "**bench/core**" in pieces[0] and "## member" not in pieces[0], "the heading comes alone, first"
    last = chunks[-1]
    assert last.candidates and last.candidates[0].finish_reason == types.FinishReason.STOP
    assert last.usage_metadata and last.usage_metadata.total_token_count


def test_sse_stream_sends_empty_chunks_while_seats_think(bench: Gateway, upstream: FakeUpstream):
    upstream.behave("m1", delay=1.2)
    response = _post(bench, "/v1beta/models/bench/core:streamGenerateContent?alt=sse", HI)
    assert response.headers["content-type"].startswith("text/event-stream")
    chunks = _sse_chunks(response.text)
    assert [_text(c) for c in chunks[1:-1]].count("") > 0, "a slow seat must be covered by empty chunks"
    finishes = [c["candidates"][0].get("finishReason") for c in chunks]
    assert finishes[-1] == "STOP" and finishes.count("STOP") == 1
    assert "X-Bench-Panel" in response.headers and "X-Bench-Seats" not in response.headers


def test_stream_without_sse_is_one_growing_json_array(bench: Gateway, upstream: FakeUpstream):
    with httpx.stream(
        "POST", f"{bench.url}/v1beta/models/bench%2Fcore:streamGenerateContent", json=HI, timeout=60
    ) as response:
        assert response.headers["content-type"].startswith("application/json")
        raw = b"".join(response.iter_bytes())
    assert raw.startswith(b"[{") and b"}\r\n,\r\n{" not in raw and b"},\r\n{" in raw and raw.endswith(b"]")
    chunks = orjson.loads(raw)
    assert chunks[-1]["candidates"][0]["finishReason"] == "STOP"
    assert all(f"answer from m{n}" in "".join(_text(c) for c in chunks) for n in (1, 2, 3))


def test_merged_suffix_answers_with_the_mergers_text_and_names_the_merger(
    bench: Gateway, upstream: FakeUpstream, client: genai.Client
):
    upstream.serve("merger-model")
    bench.add_model("mg", "merger-model")
    bench.api("PATCH", "/api/collections/core", {"merger": "mg"}, expect=200)
    reply = client.models.generate_content(model="bench/core:merged", contents="say hi")
    assert (reply.text or "").startswith("answer from merger-model")
    assert reply.model_version == "bench/core:merged"
    response = _post(bench, "/v1beta/models/bench%2Fcore%3Amerged:generateContent", HI)
    seats = orjson.loads(response.headers["X-Bench-Seats"])
    assert [s["seat"] for s in seats] == ["member", "member", "member", "merger"]
    assert seats[-1]["alias"] == "mg"


def test_image_parts_reach_only_seeing_seats(bench: Gateway, upstream: FakeUpstream, client: genai.Client):
    bench.api("PATCH", "/api/models/m1", {"vision": True}, expect=200)
    image = types.Part.from_bytes(data=base64.b64decode(PIXEL_DATA), mime_type="image/png")
    reply = client.models.generate_content(model="bench/core", contents=["what is this?", image])
    assert "## member — m1" in (reply.text or "") and "## member — m2" not in (reply.text or "")
    assert upstream.requests_for("m2") == [] and upstream.requests_for("m3") == []
    sent = upstream.requests_for("m1")[0].body["messages"][0]["content"]
    assert sent[1] == {"type": "image_url", "image_url": {"url": f"data:image/png;base64,{PIXEL_DATA}"}}


def test_count_tokens_counts_images_without_asking_a_model(
    bench: Gateway, upstream: FakeUpstream, client: genai.Client
):
    image = types.Part.from_uri(file_uri="https://example.org/cat.png", mime_type="image/png")
    text_only = client.models.count_tokens(model="bench/core", contents="x" * 40)
    with_image = client.models.count_tokens(model="bench/core", contents=["x" * 40, image])
    assert text_only.total_tokens == 11 and with_image.total_tokens == 11 + 2500
    contents = [{"role": "user", "parts": [{"text": "x" * 40}]}]
    wrapped = {"generateContentRequest": {"model": "models/bench/core", "contents": contents}}
    assert _post(bench, "/v1beta/models/bench/core:countTokens", wrapped).json() == {"totalTokens": 11}
    assert upstream.requests == []


def test_count_tokens_for_an_unknown_collection_is_404_listing_collections(
    bench: Gateway, upstream: FakeUpstream
):
    response = _post(bench, "/v1beta/models/bench/nope:countTokens", HI)
    assert "bench/core" in _gemini_error(response, 404, "NOT_FOUND")


def test_unknown_collection_is_404_listing_collections(
    bench: Gateway, upstream: FakeUpstream, client: genai.Client
):
    with pytest.raises(errors.ClientError) as caught:
        client.models.generate_content(model="bench/nope", contents="say hi")
    assert caught.value.code == 404 and caught.value.status == "NOT_FOUND"
    assert "bench/core" in str(caught.value.message)
    assert upstream.requests == []


def test_function_declarations_offered_to_a_panel_are_left_out(
    bench: Gateway, upstream: FakeUpstream, client: genai.Client
):
    tool = types.Tool(function_declarations=[types.FunctionDeclaration(name="f", description="a tool")])
    config = types.GenerateContentConfig(
        tools=[tool], automatic_function_calling=types.AutomaticFunctionCallingConfig(disable=True)
    )
    reply = client.models.generate_content(model="bench/core", contents="say hi", config=config)
    assert "answer from m1" in (reply.text or "")
    assert len(upstream.requests) == 3 and all("tools" not in r.body for r in upstream.requests)


def test_google_search_tool_is_refused(bench: Gateway, upstream: FakeUpstream, client: genai.Client):
    config = types.GenerateContentConfig(tools=[types.Tool(google_search=types.GoogleSearch())])
    with pytest.raises(errors.ClientError) as caught:
        client.models.generate_content(model="bench/core", contents="say hi", config=config)
    assert caught.value.code == 400 and "Google-hosted" in str(caught.value.message)
    assert upstream.requests == []


def test_files_api_file_is_refused(bench: Gateway, upstream: FakeUpstream, client: genai.Client):
    uploaded = types.Part.from_uri(
        file_uri="https://generativelanguage.googleapis.com/v1beta/files/abc123", mime_type="image/png"
    )
    with pytest.raises(errors.ClientError) as caught:
        client.models.generate_content(model="bench/core", contents=["look", uploaded])
    assert caught.value.code == 400 and "Files API" in str(caught.value.message)
    assert upstream.requests == []


def test_unsupported_method_is_404_in_the_gemini_shape(bench: Gateway, upstream: FakeUpstream):
    message = _gemini_error(_post(bench, "/v1beta/models/bench/core:embedContent", HI), 404, "NOT_FOUND")
    assert "embedContent" in message and "generateContent" in message
    assert upstream.requests == []


def test_models_list_shows_every_collection_in_three_reply_modes(
    bench: Gateway, upstream: FakeUpstream, client: genai.Client
):
    models = list(client.models.list())
    assert [m.name for m in models] == [
        "models/bench/core",
        "models/bench/core:merged",
        "models/bench/core:route",
    ]
    assert all(
        m.supported_actions == ["generateContent", "streamGenerateContent", "countTokens"] for m in models
    )


def test_models_get_describes_one_collection(bench: Gateway, upstream: FakeUpstream, client: genai.Client):
    bench.api("PATCH", "/api/models/m1", {"context_window": 8000}, expect=200)
    model = client.models.get(model="bench/core:merged")
    assert model.name == "models/bench/core:merged" and model.display_name == "bench/core:merged"
    assert model.description and "three models" in model.description
    assert model.input_token_limit == 8000


def test_unknown_model_is_404_in_the_gemini_shape(
    bench: Gateway, upstream: FakeUpstream, client: genai.Client
):
    with pytest.raises(errors.ClientError) as caught:
        client.models.get(model="bench/nope")
    assert caught.value.code == 404 and "bench/core" in str(caught.value.message)


def test_a_key_in_the_query_or_header_does_not_disturb_the_request(bench: Gateway, upstream: FakeUpstream):
    """A client that sends its key both ways (the same key) is served; two different keys are a 400
    (tests/http/test_access_hardening.py)."""
    response = _post(
        bench, "/v1beta/models/bench/core:generateContent?key=abc", HI, **{"x-goog-api-key": "abc"}
    )
    assert response.status_code == 200 and "answer from m1" in _text(response.json())
    alone = _post(bench, "/v1beta/models/bench/core:generateContent?key=abc", HI)
    assert alone.status_code == 200


def test_malformed_json_is_refused_in_the_gemini_shape(bench: Gateway, upstream: FakeUpstream):
    response = httpx.post(
        f"{bench.url}/v1beta/models/bench/core:generateContent",
        content=b'{"contents":',
        headers={"Content-Type": "application/json"},
    )
    assert "JSON" in _gemini_error(response, 400, "INVALID_ARGUMENT")


def test_unknown_path_under_v1beta_is_404_in_the_gemini_shape(bench: Gateway, upstream: FakeUpstream):
    _gemini_error(httpx.get(f"{bench.url}/v1beta/files"), 404, "NOT_FOUND")
