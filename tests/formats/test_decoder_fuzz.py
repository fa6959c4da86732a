"""Every inbound decoder, fuzzed: any body is a request the engine can use, or a 4xx in the API's shape.

A decoder is the first code that reads what a stranger sent, so whatever it
is given it must answer with the canonical request (`PanelRequest`, or a
route turn's `RouteRequest`) or raise a `GatewayError` with a 4xx status that
names the field at fault and that the API's `error_body` words in the shape
its SDK raises — never any other exception, which would be a 500.

Inputs generated per run (hypothesis stops early only if it runs out of
distinct ones), and the decodes they make:

- any JSON object (`fuzz_bodies.json_objects`, its keys often the APIs' own
  field names): 400, each to all 15 decoders (8 panel ones counting Gemini's
  `:countTokens`, 7 route ones): 6,000 decodes;
- a valid request of one API bent at one to three places (a subtree
  replaced by any JSON value, dropped, or a field added): 200 per API for 8
  APIs, 1,600, each to the API's panel and route decoders: 3,000 decodes;
- any model name in Gemini's URL path, with a valid body: 200, 400 decodes;
- the HTTP body reader (`http/body.py`, which hands decoders their body and
  alone meets bodies that are not objects): 200 JSON values of any kind, 200
  byte strings: 400 reads.

2,600 inputs, 9,400 decodes and 400 reads in all; about 15 s on two busy cores.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import orjson
import pytest
from hypothesis import HealthCheck, given, note, settings
from hypothesis import strategies as st
from starlette.requests import Request

from panelgate.core.errors import BadRequest, GatewayError
from panelgate.core.route import RouteRequest
from panelgate.core.route_choice import conversation_key
from panelgate.core.sizing import count_images, estimate_tokens, prompt_preview
from panelgate.core.types import PanelRequest
from panelgate.formats.anthropic.panel import AnthropicMessages
from panelgate.formats.anthropic.route import AnthropicRoute
from panelgate.formats.completions.panel import OpenAICompletions
from panelgate.formats.completions.route import CompletionsRoute
from panelgate.formats.gemini.panel import GeminiFormat
from panelgate.formats.gemini.route import GeminiRoute
from panelgate.formats.ollama.panel import OllamaChat, OllamaGenerate
from panelgate.formats.ollama.route import OllamaChatRoute, OllamaGenerateRoute
from panelgate.formats.openai_chat.panel import OpenAIChat
from panelgate.formats.openai_chat.route import OpenAIChatRoute
from panelgate.formats.protocol import InboundFormat
from panelgate.formats.responses.panel import OpenAIResponses
from panelgate.formats.responses.route import ResponsesRoute
from panelgate.formats.route_protocol import RouteFormat
from panelgate.http.body import read_json_object
from tests.formats import fuzz_bodies as bodies

FUZZ = settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
ROLES = {"system", "user", "assistant", "tool"}

ErrorMessage = Callable[[dict[str, Any], GatewayError], object]
"""Checks an error body has the API's shape; gives back its message."""


def _openai_message(body: dict[str, Any], refusal: GatewayError) -> object:
    error = body["error"]
    assert set(body) == {"error"} and set(error) == {"message", "type", "param", "code"}
    assert error["code"] == str(refusal.status) and isinstance(error["type"], str)
    return error["message"]


def _anthropic_message(body: dict[str, Any], refusal: GatewayError) -> object:
    assert body["type"] == "error" and set(body["error"]) == {"type", "message"}
    assert body["error"]["type"].endswith("_error") or body["error"]["type"] == "request_too_large"
    return body["error"]["message"]


def _gemini_message(body: dict[str, Any], refusal: GatewayError) -> object:
    error = body["error"]
    assert set(body) == {"error"} and error["code"] == refusal.status and isinstance(error["status"], str)
    return error["message"]


def _ollama_message(body: dict[str, Any], refusal: GatewayError) -> object:
    assert set(body) == {"error"}
    return body["error"]


@dataclass(frozen=True)
class Surface:
    """One inbound API as the HTTP layer drives it: its decoders, its error shape, valid requests."""

    name: str
    fmt: InboundFormat
    route: RouteFormat | None
    error_message: ErrorMessage
    valid: tuple[dict[str, Any], ...]
    counts_tokens: bool = False
    """Decodes a Gemini `:countTokens` body (`decode_count`) rather than a request."""

    def decode(self, body: dict[str, Any]) -> PanelRequest:
        if self.counts_tokens:
            assert isinstance(self.fmt, GeminiFormat)
            return self.fmt.decode_count(body, caller="local")
        return self.fmt.decode(body, caller="local")

    def decode_route(self, body: dict[str, Any]) -> RouteRequest:
        assert self.route is not None
        return self.route.decode_route(body, caller="local")


def _gemini(model: str, *, streamed: bool = False) -> tuple[GeminiFormat, GeminiRoute]:
    """The Gemini adapters bound to a call, as the route bound to the URL path makes them."""
    return (
        GeminiFormat().for_call(model, streamed=streamed, sse=False),
        GeminiRoute().for_call(model, streamed=streamed, sse=False),
    )


GEMINI, GEMINI_ROUTE = _gemini("bench/core")
SURFACES = [
    Surface("openai-chat", OpenAIChat(), OpenAIChatRoute(), _openai_message, bodies.OPENAI_CHAT),
    Surface("responses", OpenAIResponses(), ResponsesRoute(), _openai_message, bodies.RESPONSES),
    Surface("completions", OpenAICompletions(), CompletionsRoute(), _openai_message, bodies.COMPLETIONS),
    Surface("anthropic", AnthropicMessages(), AnthropicRoute(), _anthropic_message, bodies.ANTHROPIC),
    Surface("gemini", GEMINI, GEMINI_ROUTE, _gemini_message, bodies.GEMINI),
    Surface("gemini-count", GEMINI, None, _gemini_message, bodies.GEMINI_COUNT, counts_tokens=True),
    Surface("ollama-chat", OllamaChat(), OllamaChatRoute(), _ollama_message, bodies.OLLAMA_CHAT),
    Surface(
        "ollama-generate", OllamaGenerate(), OllamaGenerateRoute(), _ollama_message, bodies.OLLAMA_GENERATE
    ),
]
BY_NAME = {surface.name: surface for surface in SURFACES}
every_api = pytest.mark.parametrize("api", list(BY_NAME))
"""Tests take the API's name: hypothesis then reports a failing case as that name, not the whole surface."""


def _check_refusal(surface: Surface, refusal: GatewayError) -> None:
    assert 400 <= refusal.status < 500, refusal
    assert isinstance(refusal.param, str) and refusal.param, f"the refusal names no field: {refusal}"
    shaped = surface.fmt.error_body(refusal)
    orjson.dumps(shaped)
    message = surface.error_message(shaped, refusal)
    assert isinstance(message, str) and message.strip()


def _check_panel(asked: object) -> None:
    """A panel request the engine can size, classify and record."""
    assert isinstance(asked, PanelRequest)
    assert asked.messages, "a panel request with no messages"
    assert all(isinstance(m, dict) and m.get("role") in ROLES for m in asked.messages)
    estimate_tokens(asked.messages)
    count_images(asked.messages)
    prompt_preview(asked.messages)
    orjson.dumps(asked.messages)


def _check_route(asked: object) -> None:
    """A route turn the engine can key, size and send on as JSON."""
    assert isinstance(asked, RouteRequest)
    assert asked.messages, "a route turn with no messages"
    assert all(isinstance(m, dict) for m in asked.messages)
    conversation_key("core", asked.caller, asked.messages)
    estimate_tokens(asked.messages)
    count_images(asked.messages)
    orjson.dumps(asked.body)


def _decodes_or_refuses(
    surface: Surface, decode: Callable[[dict[str, Any]], object], check: Callable[[object], None], body: Any
) -> None:
    try:
        asked = decode(bodies.as_read(body))
    except GatewayError as refusal:
        _check_refusal(surface, refusal)
    else:
        check(asked)


def _both_decoders_answer_or_refuse(surface: Surface, body: dict[str, Any]) -> None:
    """The panel decoder, and the route decoder a route-mode collection reads the same body with."""
    note(f"API: {surface.name}")
    _decodes_or_refuses(surface, surface.decode, _check_panel, body)
    if surface.route is not None:
        _decodes_or_refuses(surface, surface.decode_route, _check_route, body)


@every_api
def test_every_valid_request_the_fuzzing_bends_decodes(api: str) -> None:
    surface = BY_NAME[api]
    for body in surface.valid:
        _check_panel(surface.decode(bodies.as_read(body)))
        if surface.route is not None:
            _check_route(surface.decode_route(bodies.as_read(body)))


@settings(FUZZ, max_examples=400)
@given(body=bodies.json_objects)
def test_any_json_object_is_a_request_or_a_refusal_in_every_apis_shape(body: dict[str, Any]) -> None:
    for surface in SURFACES:
        _both_decoders_answer_or_refuse(surface, body)


@every_api
@FUZZ
@given(data=st.data())
def test_a_bent_valid_request_is_a_request_or_a_refusal_in_the_apis_shape(
    api: str, data: st.DataObject
) -> None:
    surface = BY_NAME[api]
    _both_decoders_answer_or_refuse(surface, data.draw(bodies.mutated(surface.valid), label="body"))


@FUZZ
@given(model=st.text(max_size=40), streamed=st.booleans())
def test_any_model_in_geminis_url_path_is_a_request_or_a_refusal(model: str, streamed: bool) -> None:
    fmt, route = _gemini(model, streamed=streamed)
    surface = Surface("gemini", fmt, route, _gemini_message, bodies.GEMINI)
    _both_decoders_answer_or_refuse(surface, bodies.GEMINI[1])


def _read(raw: bytes) -> dict[str, Any]:
    async def receive() -> dict[str, Any]:
        return {"type": "http.request", "body": raw, "more_body": False}

    scope = {"type": "http", "method": "POST", "headers": [(b"content-type", b"application/json")]}
    return asyncio.run(read_json_object(Request(scope, receive), max_bytes=1_000_000))


@FUZZ
@given(value=bodies.json_values)
def test_the_body_reader_reads_any_json_object_and_refuses_any_other_value(value: Any) -> None:
    try:
        read = _read(json.dumps(value).encode())
    except BadRequest as refusal:
        assert not isinstance(value, dict) and refusal.message == "the body must be a JSON object"
    else:
        assert isinstance(value, dict) and read == bodies.as_read(value)


@FUZZ
@given(raw=st.binary(max_size=64))
def test_the_body_reader_reads_any_bytes_as_an_object_or_a_400(raw: bytes) -> None:
    try:
        read = _read(raw)
    except BadRequest as refusal:
        assert refusal.status == 400 and refusal.message
    else:
        assert isinstance(read, dict)


def test_the_body_reader_refuses_nesting_deeper_than_the_gateway_can_write_back() -> None:
    nested: Any = {"q": 1}
    for _ in range(300):
        nested = [nested]
    use = {"type": "tool_use", "id": "t1", "name": "look", "input": {"q": nested}}
    body = {"model": "bench/core", "messages": [{"role": "assistant", "content": [use]}]}
    with pytest.raises(BadRequest):
        _read(json.dumps(body).encode())
