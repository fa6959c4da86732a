"""Clients that spell the gateway's paths their own way: google-genai on its default API version
(`/v1/`, shared with OpenAI's model list and get) and OpenAI clients whose base URL has no `/v1`."""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest
from google import genai
from google.genai import types
from openai import OpenAI

from tests.support.gateway import Gateway
from tests.support.upstream import FakeUpstream

LISTED = ["bench/core", "bench/core:merged", "bench/core:route"]


@pytest.fixture
def client(bench: Gateway) -> Iterator[genai.Client]:
    """The official GenAI client on its default API version (`v1`): only the base URL is ours."""
    official = genai.Client(
        api_key="x",
        http_options=types.HttpOptions(base_url=bench.url, retry_options=types.HttpRetryOptions(attempts=1)),
    )
    assert official._api_client._http_options.api_version == "v1"
    yield official
    official.close()


def bare_openai(gateway: Gateway) -> OpenAI:
    """The official OpenAI client with a base URL without `/v1`."""
    return gateway.keep(OpenAI(base_url=gateway.url, api_key="unused-locally", max_retries=0))


def test_gemini_default_api_version_lists_and_gets_collections(
    bench: Gateway, upstream: FakeUpstream, client: genai.Client
):
    assert [m.name for m in client.models.list()] == [f"models/{name}" for name in LISTED]
    model = client.models.get(model="bench/core")
    assert model.name == "models/bench/core" and model.description and "three models" in model.description
    assert model.supported_actions == ["generateContent", "streamGenerateContent", "countTokens"]


def test_gemini_default_api_version_asks_a_panel_whole_and_streamed(
    bench: Gateway, upstream: FakeUpstream, client: genai.Client
):
    reply = client.models.generate_content(model="bench/core", contents="say hi")
    assert reply.model_version == "bench/core"
    assert all(f"answer from {alias}" in (reply.text or "") for alias in ("m1", "m2", "m3"))
    chunks = list(client.models.generate_content_stream(model="bench/core", contents="say hi"))
    streamed = "".join(chunk.text or "" for chunk in chunks)
    assert all(f"answer from {alias}" in streamed for alias in ("m1", "m2", "m3"))
    assert len(upstream.requests) == 6


def test_gemini_default_api_version_counts_tokens_without_asking_a_model(
    bench: Gateway, upstream: FakeUpstream, client: genai.Client
):
    counted = client.models.count_tokens(model="bench/core", contents="say hi")
    assert counted.total_tokens and counted.total_tokens > 0
    assert upstream.requests == []


def test_gemini_refusal_under_v1_is_in_the_gemini_shape(bench: Gateway, upstream: FakeUpstream):
    response = httpx.get(f"{bench.url}/v1/models/bench/nope", headers={"x-goog-api-key": "x"})
    assert response.status_code == 404
    assert response.json()["error"]["status"] == "NOT_FOUND" and response.json()["error"]["code"] == 404


@pytest.mark.parametrize(
    ("headers", "query"),
    [({"x-goog-api-key": "x"}, ""), ({"x-goog-api-client": "genai-js/1.0"}, ""), ({}, "?key=x")],
    ids=["api-key-header", "api-client-header", "key-query"],
)
def test_v1_model_list_and_get_answer_gemini_callers_in_gemini_shape(
    bench: Gateway, upstream: FakeUpstream, headers: dict[str, str], query: str
):
    listed = httpx.get(f"{bench.url}/v1/models{query}", headers=headers).json()
    assert [m["name"] for m in listed["models"]] == [f"models/{name}" for name in LISTED]
    got = httpx.get(f"{bench.url}/v1/models/bench/core{query}", headers=headers).json()
    assert got["name"] == "models/bench/core" and "supportedGenerationMethods" in got


def test_v1_model_list_and_get_stay_openai_for_openai_callers(bench: Gateway, upstream: FakeUpstream):
    listed = httpx.get(f"{bench.url}/v1/models", headers={"Authorization": "Bearer sk-anything"}).json()
    assert listed["object"] == "list" and [m["id"] for m in listed["data"]] == LISTED
    got = httpx.get(f"{bench.url}/v1/models/bench/core").json()
    assert got["object"] == "model" and got["id"] == "bench/core"


def test_openai_client_without_v1_asks_a_panel_and_lists_collections(bench: Gateway, upstream: FakeUpstream):
    client = bare_openai(bench)
    reply = client.chat.completions.create(
        model="bench/core", messages=[{"role": "user", "content": "say hi"}]
    )
    assert reply.model == "bench/core"
    assert [s["alias"] for s in reply.model_extra["bench"]["seats"]] == ["m1", "m2", "m3"]
    assert [m.id for m in client.models.list()] == LISTED
    assert client.models.retrieve("bench/core").id == "bench/core"


def test_completions_and_responses_answer_without_v1(bench: Gateway, upstream: FakeUpstream):
    client = bare_openai(bench)
    completion = client.completions.create(model="bench/core", prompt="say hi")
    assert "answer from m1" in completion.choices[0].text
    response = client.responses.create(model="bench/core", input="say hi")
    assert "answer from m2" in response.output_text


def test_the_dashboards_models_page_keeps_its_path_for_a_browser(bench: Gateway, upstream: FakeUpstream):
    page = httpx.get(f"{bench.url}/models", headers={"Accept": "text/html,application/xhtml+xml,*/*;q=0.8"})
    assert page.status_code == 200 and page.headers["content-type"].startswith("text/html")
    listing = httpx.get(f"{bench.url}/models", headers={"Accept": "application/json"})
    assert [m["id"] for m in listing.json()["data"]] == LISTED
