"""The admin and bench routes answer as their OpenAPI document says, under schemathesis (issue 5).

A real gateway on loopback, with a bench (endpoint `up` on the fake
upstream, m1–m3, collection `core`), one recorded panel and one route
conversation, serves `GET /openapi.json`; schemathesis reads it over HTTP and
sends every operation under `/api/` and `/bench/` generated requests, valid
and invalid (bodies, path and query parameters), checking that none gets a
5xx and that each status, content type and body is one the document lists.
The model APIs (`/v1`, `/v1beta` and Ollama's `/api/chat|generate|tags|show|version`)
are left out: their decoders are fuzzed in tests/formats/, and their replies
are streams and other APIs' shapes.

Known values (the recorded call ids, m1, `core`, `up`, the exported
configuration) are mixed into the generated path parameters and bodies, so
requests get past "not found" to the checks behind it. An endpoint's base
URL is pointed at loopback (the fake upstream, or a closed port) whenever it
is an http(s) URL: adding an endpoint asks its `/models` listing, and a
fuzzer must not send that to the internet. For the same reason the public
catalogs' addresses (`url`) are loopback from the start and stay so, and
`POST /api/catalog/refresh` is left out (tests/http/test_catalog_refresh.py
covers it against loopback).

Bounded for CI: derandomized (the same cases every run), no shrinking,
CASES_PER_MODE valid and as many invalid requests per operation (an
operation whose only input is a text path parameter has no invalid request).
Measured on a 2-core machine: the 64 admin operations in about 60 s (most of
it schemathesis making and checking the cases, about 1 s per operation and
mode), the 3 bench operations in about 3 s.
"""

from __future__ import annotations

from collections import Counter
from typing import Any
from urllib.parse import urlsplit

import httpx
import pytest
import schemathesis
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st
from hypothesis.errors import Unsatisfiable
from schemathesis import GenerationMode
from schemathesis.checks import not_a_server_error
from schemathesis.errors import FailureGroup
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    response_schema_conformance,
    status_code_conformance,
)

from tests.http.helpers import ask, hello
from tests.support.gateway import Gateway, free_port
from tests.support.upstream import FakeUpstream

CASES_PER_MODE = 10
MODEL_APIS = r"^/api/(chat|generate|tags|show|version)$"
"""Ollama's routes: a model API that shares the admin API's `/api/` prefix."""
FETCHES_CATALOGS = r"^/api/catalog/refresh$"
STARTS_SIGNINS = r"^/api/connect/\{provider\}$"
"""Starting a sign-in asks the provider (GitHub's device endpoint): tests/connect/ covers it on loopback."""
CHECKS = [not_a_server_error, status_code_conformance, content_type_conformance, response_schema_conformance]
BOUNDED = settings(
    max_examples=CASES_PER_MODE,
    deadline=None,
    derandomize=True,
    database=None,
    phases=[Phase.explicit, Phase.generate],
    suppress_health_check=list(HealthCheck),
)


@pytest.fixture
def recorded(bench: Gateway, upstream: FakeUpstream) -> Gateway:
    """The bench with one panel on the record, its public catalogs on a closed loopback port."""
    assert ask(bench, hello()).status_code == 200
    closed = {"url": f"http://127.0.0.1:{free_port()}/"}
    for source in ("models.dev", "openrouter"):
        bench.api("PUT", f"/api/catalog/sources/{source}", closed, expect=200)
    return bench


def test_admin_routes_answer_as_documented(recorded: Gateway, upstream: FakeUpstream) -> None:
    schema = _schema(recorded, upstream).include(path_regex=r"^/api/").exclude(path_regex=MODEL_APIS)
    _fuzz(schema.exclude(path_regex=FETCHES_CATALOGS).exclude(path_regex=STARTS_SIGNINS))


def test_bench_routes_answer_as_documented(recorded: Gateway, upstream: FakeUpstream) -> None:
    _fuzz(_schema(recorded, upstream).include(path_regex=r"^/bench/"))


def _schema(gateway: Gateway, upstream: FakeUpstream) -> Any:
    """The gateway's document, read over HTTP, with the bench's known values mixed into the cases."""
    panel = gateway.api("GET", "/api/panels", expect=200)["panels"][0]
    route = ask(gateway, hello("bench/core:route")).json()["bench"]
    calls = [seat["call"] for seat in panel["seats"]] + [route["call"]]
    in_path = {
        "panel_id": [panel["id"]],
        "conversation": [route["conversation"]],
        "alias": ["m1", "m2"],
        "name": ["core", "up"],
        "key_id": [1],
    }
    in_body = {
        "call": calls,
        "calls": [calls],
        "members": [["m1", "m2"], ["m3"]],
        "add": [["m3"]],
        "remove": [["m1"]],
        "merger": ["m2"],
        "endpoint": ["up"],
        "collections": [["core"]],
        "yaml": [httpx.get(f"{gateway.url}/api/config").text],
    }
    schema = schemathesis.openapi.from_url(f"{gateway.url}/openapi.json")
    schema.hook(_known_path_values(in_path))
    schema.hook(_known_body_values(in_body, upstream.url))
    return schema


def _fuzz(schema: Any) -> None:
    """Every operation, valid and invalid requests; all failures reported together."""
    failures: dict[str, Exception | FailureGroup] = {}
    sent: Counter[str] = Counter()
    labels = []
    for result in schema.get_all_operations():
        operation = result.ok()
        labels.append(operation.label)
        for mode in (GenerationMode.POSITIVE, GenerationMode.NEGATIVE):
            try:
                _send_cases(operation, mode, sent)
            except Unsatisfiable:
                assert mode is GenerationMode.NEGATIVE, f"{operation.label}: no valid request"
            except (Exception, FailureGroup) as exc:
                failures[f"{operation.label} ({mode.value})"] = exc
    assert not failures, "\n\n".join(f"{label}:\n{exc}" for label, exc in failures.items())
    assert sorted(sent) == sorted(labels), "every operation was sent requests"


def _send_cases(operation: Any, mode: GenerationMode, sent: Counter[str]) -> None:
    @BOUNDED
    @given(case=operation.as_strategy(generation_mode=mode))
    def send(case: schemathesis.Case) -> None:
        sent[case.operation.label] += 1
        case.call_and_validate(checks=CHECKS, timeout=30)

    send()


def _known_path_values(known: dict[str, list[Any]]) -> Any:
    def flatmap_path_parameters(context: Any, parameters: dict[str, Any] | None) -> Any:
        if not parameters:
            return st.just(parameters)
        choices = [parameters]
        for name, values in known.items():
            if name in parameters:
                choices += [{**parameters, name: value} for value in values]
        return st.sampled_from(choices)

    return flatmap_path_parameters


def _known_body_values(known: dict[str, list[Any]], upstream_url: str) -> Any:
    closed = f"http://127.0.0.1:{free_port()}/v1"

    def flatmap_body(context: Any, body: Any) -> Any:
        if not isinstance(body, dict):
            return st.just(body)
        for key in ("base_url", "url"):
            if isinstance(body.get(key), str):
                loopbacks = [{**body, key: _loopback(body[key], url)} for url in (upstream_url, closed)]
                return st.sampled_from(loopbacks)
        choices = [body]
        for name, values in known.items():
            if name in body:
                choices += [{**body, name: value} for value in values]
        return st.sampled_from(choices)

    return flatmap_body


def _loopback(base_url: str, loopback: str) -> str:
    """`base_url` with its scheme and host made `loopback`'s when it is an http(s) URL, else as it is."""
    try:
        parts = urlsplit(base_url.strip())
    except ValueError:
        return base_url
    if parts.scheme not in ("http", "https") or not parts.hostname:
        return base_url
    return loopback + parts.path
