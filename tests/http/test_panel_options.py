"""The caller's call options reach every seat and the merger, in every inbound API and every upstream one.

A merged panel of three members (OpenAI chat, native Anthropic Messages, native Gemini) and a merger
is asked through each inbound API with its official SDK; what each upstream received is read back in
that upstream's own words (Anthropic `max_tokens`/`stop_sequences`, Gemini `generationConfig`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import anthropic
import httpx
import ollama
import pytest
import yaml
from google import genai
from google.genai import types

from tests.http.helpers import ask, sdk
from tests.support.anthropic_upstream import FakeAnthropic
from tests.support.gateway import Gateway
from tests.support.gemini_upstream import FakeGemini
from tests.support.upstream import FakeUpstream

MODEL = "bench/trio:merged"
QUESTION = "Is `x = x + 1` idempotent?"
ASKED = [{"role": "user", "content": QUESTION}]
SEATS = {"m1": ("chat", "m1"), "c1": ("anthropic", "claude-x"), "g1": ("gemini", "gemini-x")}
MERGER = ("chat", "merger-model")
EVERY_OPTION = {"temperature": 0, "max_tokens": 300, "stop": ["END"], "seed": 7}


@pytest.fixture
def claude() -> Iterator[FakeAnthropic]:
    with FakeAnthropic() as server:
        yield server


@pytest.fixture
def google() -> Iterator[FakeGemini]:
    with FakeGemini() as server:
        yield server


@pytest.fixture
def trio(gateway: Gateway, upstream: FakeUpstream, claude: FakeAnthropic, google: FakeGemini) -> Gateway:
    """Collection `trio` (m1 on OpenAI chat, c1 on Anthropic, g1 on Gemini) merged by `mg` on OpenAI chat."""
    for server, served_ids in (
        (upstream, ("m1", "merger-model")),
        (claude, ("claude-x",)),
        (google, ("gemini-x",)),
    ):
        for served_id in served_ids:
            server.behave(served_id)  # listed, so the model may be added
    gateway.add_endpoint("up", upstream.url)
    gateway.add_endpoint("claude", claude.url, api="anthropic")
    gateway.add_endpoint("google", google.url, api="gemini")
    gateway.add_model("m1")
    gateway.add_model("c1", served_id="claude-x", endpoint="claude")
    gateway.add_model("g1", served_id="gemini-x", endpoint="google")
    gateway.add_model("mg", served_id="merger-model")
    gateway.gateway_settings(max_calls=3, max_explorers=0, seat_deadline_s=10)
    gateway.save_collection("trio", ["m1", "c1", "g1"], merger="mg")
    return gateway


@pytest.fixture
def received(
    upstream: FakeUpstream, claude: FakeAnthropic, google: FakeGemini
) -> Callable[[str, str], list[dict[str, Any]]]:
    """Every request one served model got, as (temperature, max tokens, stop, seed) in OpenAI names."""
    servers = {"chat": upstream, "anthropic": claude, "gemini": google}

    def read(api: str, served_id: str) -> list[dict[str, Any]]:
        return [options_sent(api, request.body) for request in servers[api].requests_for(served_id)]

    return read


def options_sent(api: str, body: dict[str, Any]) -> dict[str, Any]:
    """The options an upstream request carries, read from that API's own fields."""
    if api == "anthropic":
        sent = {"temperature": body.get("temperature"), "max_tokens": body.get("max_tokens")}
        return {**sent, "stop": body.get("stop_sequences"), "seed": None}
    if api == "gemini":
        config = body.get("generationConfig", {})
        return {
            "temperature": config.get("temperature"),
            "max_tokens": config.get("maxOutputTokens"),
            "stop": config.get("stopSequences"),
            "seed": config.get("seed"),
        }
    return {name: body.get(name) for name in ("temperature", "max_tokens", "stop", "seed")}


def expected_at(api: str, options: dict[str, Any]) -> dict[str, Any]:
    """`options` as an upstream of `api` can carry them: Anthropic has no seed."""
    wanted = {"temperature": None, "max_tokens": None, "stop": None, "seed": None, **options}
    return {**wanted, "seed": None} if api == "anthropic" else wanted


def store_options(gateway: Gateway, stored: dict[str, dict[str, Any]]) -> None:
    """Give models stored call options, as a person does: in the configuration file, imported again."""
    document = yaml.safe_load(httpx.get(f"{gateway.url}/api/config", timeout=30).text)
    for model in document["models"]:
        model["options"] = stored.get(model["alias"], model["options"])
    gateway.api("POST", "/api/config", {"yaml": yaml.safe_dump(document)}, expect=200)


def assert_every_call_carried(
    received: Callable[[str, str], list[dict[str, Any]]], options: dict[str, Any]
) -> None:
    for alias, (api, served_id) in SEATS.items():
        assert received(api, served_id) == [expected_at(api, options)], alias
    api, served_id = MERGER
    assert received(api, served_id) == [expected_at(api, options)], "the merger"


def test_openai_chat_options_reach_every_seat_and_the_merger(
    trio: Gateway, received: Callable[[str, str], list[dict[str, Any]]]
):
    reply = sdk(trio).chat.completions.create(
        model=MODEL, messages=[{"role": "user", "content": QUESTION}], temperature=0, max_tokens=300,
        stop=["END"], seed=7,
    )  # fmt: skip
    assert reply.model_extra is not None and reply.model_extra["bench"]["reply"] == "merged"
    assert_every_call_carried(received, EVERY_OPTION)


def test_legacy_completions_options_reach_every_seat_and_the_merger(
    trio: Gateway, received: Callable[[str, str], list[dict[str, Any]]]
):
    reply = sdk(trio).completions.create(
        model=MODEL, prompt=QUESTION, temperature=0, max_tokens=300, stop=["END"], seed=7
    )
    assert reply.model_extra is not None and reply.model_extra["bench"]["reply"] == "merged"
    assert_every_call_carried(received, EVERY_OPTION)


def test_responses_options_reach_every_seat_and_the_merger(
    trio: Gateway, received: Callable[[str, str], list[dict[str, Any]]]
):
    reply = sdk(trio).responses.create(model=MODEL, input=QUESTION, temperature=0, max_output_tokens=300)
    assert reply.model_extra is not None and reply.model_extra["bench"]["reply"] == "merged"
    assert_every_call_carried(received, {"temperature": 0, "max_tokens": 300})


def test_anthropic_messages_options_reach_every_seat_and_the_merger(
    trio: Gateway, received: Callable[[str, str], list[dict[str, Any]]]
):
    client = trio.keep(anthropic.Anthropic(base_url=trio.url, api_key="x", max_retries=0))
    reply = client.messages.create(
        model=MODEL, messages=[{"role": "user", "content": QUESTION}], max_tokens=300,
        stop_sequences=["END"], extra_body={"temperature": 0},  # this SDK no longer takes `temperature`
    )  # fmt: skip
    assert reply.model_extra is not None and reply.model_extra["bench"]["reply"] == "merged"
    assert_every_call_carried(received, {"temperature": 0, "max_tokens": 300, "stop": ["END"]})


def test_ollama_chat_options_reach_every_seat_and_the_merger(
    trio: Gateway, received: Callable[[str, str], list[dict[str, Any]]]
):
    with ollama.Client(host=trio.url, timeout=30) as client:
        options = {"temperature": 0, "num_predict": 300, "stop": ["END"], "seed": 7}
        reply = client.chat(model=MODEL, messages=ASKED, options=options, stream=False)
    assert reply.message.content
    assert_every_call_carried(received, EVERY_OPTION)


def test_ollamas_no_limit_num_predict_sends_no_max_tokens(
    trio: Gateway, received: Callable[[str, str], list[dict[str, Any]]]
):
    with ollama.Client(host=trio.url, timeout=30) as client:
        client.chat(model=MODEL, messages=ASKED, options={"num_predict": -1, "temperature": 0}, stream=False)
    (chat,) = received("chat", "m1")
    assert chat["max_tokens"] is None and chat["temperature"] == 0


def test_gemini_generate_content_options_reach_every_seat_and_the_merger(
    trio: Gateway, received: Callable[[str, str], list[dict[str, Any]]]
):
    # google-genai as it ships: its default API version, `v1`
    options = types.HttpOptions(base_url=trio.url, retry_options=types.HttpRetryOptions(attempts=1))
    client = genai.Client(api_key="x", http_options=options)
    try:
        config = types.GenerateContentConfig(
            temperature=0, max_output_tokens=300, stop_sequences=["END"], seed=7
        )
        reply = client.models.generate_content(model=MODEL, contents=QUESTION, config=config)
    finally:
        client.close()
    assert reply.text
    assert_every_call_carried(received, EVERY_OPTION)


@pytest.mark.parametrize(
    ("merger", "api", "served_id"), [("c1", "anthropic", "claude-x"), ("g1", "gemini", "gemini-x")]
)
def test_a_native_merger_is_sent_the_options_in_its_own_api(
    trio: Gateway, received: Callable[[str, str], list[dict[str, Any]]], merger: str, api: str, served_id: str
):
    trio.api("PATCH", "/api/collections/trio", {"merger": merger}, expect=200)
    reply = ask(trio, {"model": MODEL, "messages": ASKED, **EVERY_OPTION}).json()
    assert reply["bench"]["merger"]["alias"] == merger
    seat_call, merge_call = received(api, served_id)
    assert seat_call == merge_call == expected_at(api, EVERY_OPTION)


def test_a_models_stored_options_reach_the_upstream_when_the_caller_sends_none(
    trio: Gateway, received: Callable[[str, str], list[dict[str, Any]]]
):
    stored = {
        "m1": {"temperature": 0.3, "seed": 11},
        "c1": {"temperature": 0.5, "max_tokens": 222},
        "g1": {"stop": ["STOP"], "seed": 12},
        "mg": {"temperature": 0.1},
    }
    store_options(trio, stored)
    assert ask(trio, {"model": MODEL, "messages": ASKED}).status_code == 200
    assert received("chat", "m1") == [expected_at("chat", stored["m1"])]
    assert received("anthropic", "claude-x") == [expected_at("anthropic", stored["c1"])]
    assert received("gemini", "gemini-x") == [expected_at("gemini", stored["g1"])]
    assert received(*MERGER) == [expected_at("chat", stored["mg"])]


def test_the_callers_options_override_the_models_stored_ones(
    trio: Gateway, upstream: FakeUpstream, received: Callable[[str, str], list[dict[str, Any]]]
):
    store_options(
        trio, {"m1": {"temperature": 1, "top_p": 0.5}, "c1": {"max_tokens": 4000, "temperature": 1}}
    )
    ask(trio, {"model": MODEL, "messages": ASKED, "temperature": 0, "max_completion_tokens": 100})
    (m1,) = upstream.requests_for("m1")
    assert (m1.body["temperature"], m1.body["top_p"], m1.body["max_completion_tokens"]) == (0, 0.5, 100)
    assert received("anthropic", "claude-x") == [
        expected_at("anthropic", {"temperature": 0, "max_tokens": 100})
    ]


def test_max_tokens_is_clamped_to_each_models_known_maximum(
    trio: Gateway, received: Callable[[str, str], list[dict[str, Any]]]
):
    for alias, most in (("m1", 8192), ("c1", 4096), ("mg", 1000)):
        trio.api("PATCH", f"/api/models/{alias}", {"max_output": most}, expect=200)
    ask(trio, {"model": MODEL, "messages": ASKED, "max_tokens": 100_000})
    assert [sent["max_tokens"] for sent in received("chat", "m1")] == [8192]
    assert [sent["max_tokens"] for sent in received("anthropic", "claude-x")] == [4096]
    assert [sent["max_tokens"] for sent in received("gemini", "gemini-x")] == [100_000], "no known maximum"
    assert [sent["max_tokens"] for sent in received(*MERGER)] == [1000]


def test_the_panel_record_shows_the_callers_options(trio: Gateway):
    panel = ask(trio, {"model": MODEL, "messages": ASKED, **EVERY_OPTION}).json()["bench"]["panel"]
    recorded = trio.api("GET", f"/api/panels/{panel}", expect=200)["panel"]
    assert recorded["options"] == EVERY_OPTION
    assert QUESTION not in str(recorded["options"])


def test_a_route_turn_is_sent_the_models_stored_options_under_the_callers_clamped(
    trio: Gateway, upstream: FakeUpstream
):
    store_options(trio, {"m1": {"temperature": 1, "seed": 5}})
    trio.api("PATCH", "/api/models/m1", {"max_output": 100}, expect=200)
    trio.save_collection("agents", ["m1"], reply="route")
    reply = ask(trio, {"model": "bench/agents", "messages": ASKED, "temperature": 0.2, "max_tokens": 5000})
    assert reply.status_code == 200, reply.text
    (sent,) = upstream.requests_for("m1")
    assert (sent.body["temperature"], sent.body["seed"], sent.body["max_tokens"]) == (0.2, 5, 100)
