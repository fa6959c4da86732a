"""A key scoped to collections uses, sees, judges and reads back only those collections.

The key here may use `core`; `other` is the collection it must not reach: asking it
(in any API, in route mode) is 403 before any model is asked, it appears in no
listing or refusal, and its calls can be neither judged nor read back. An unscoped
key stands for the owner of `other`.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import openai
import pytest

from tests.http.helpers import hello
from tests.http.key_helpers import get, keyed_bench, make_key, post, refused
from tests.support.gateway import Gateway
from tests.support.upstream import FakeUpstream

HI_GEMINI = {"contents": [{"role": "user", "parts": [{"text": "hi"}]}]}
HI_MESSAGES = [{"role": "user", "content": "hi"}]


@dataclass(frozen=True)
class Keys:
    gateway: Gateway
    scoped: str
    """May use `core` only."""
    owner: str
    """May use every collection."""


@pytest.fixture
def keys(tmp_path: Path, upstream: FakeUpstream) -> Iterator[Keys]:
    with keyed_bench(tmp_path / "home", upstream) as gateway:
        yield Keys(gateway, make_key(gateway, collections=["core"]), make_key(gateway, name="owner"))


def _calls(keys: Keys, key: str, collection: str) -> dict[str, str]:
    reply = post(keys.gateway, "/v1/chat/completions", hello(f"bench/{collection}"), key)
    assert reply.status_code == 200, reply.text
    return {seat["alias"]: seat["call"] for seat in reply.json()["bench"]["seats"]}


# ---- asking ----------------------------------------------------------------------------------


def test_asking_another_collection_is_403_before_any_upstream_call(keys: Keys, upstream: FakeUpstream):
    chat = keys.gateway.keep(
        openai.OpenAI(base_url=f"{keys.gateway.url}/v1", api_key=keys.scoped, max_retries=0)
    )
    with pytest.raises(openai.PermissionDeniedError, match="bench/core only"):
        chat.chat.completions.create(model="bench/other", messages=[{"role": "user", "content": "hi"}])
    assert upstream.requests == []
    assert chat.chat.completions.create(
        model="bench/core", messages=[{"role": "user", "content": "hi"}]
    ).choices


@pytest.mark.parametrize(
    ("path", "body"),
    [
        ("/v1/messages", {"model": "bench/other", "max_tokens": 50, "messages": HI_MESSAGES}),
        ("/v1/responses", {"model": "bench/other", "input": "hi"}),
        ("/v1/completions", {"model": "bench/other", "prompt": "hi"}),
        ("/api/chat", {"model": "bench/other", "messages": HI_MESSAGES, "stream": False}),
        ("/api/generate", {"model": "bench/other", "prompt": "hi", "stream": False}),
        ("/v1beta/models/bench/other:generateContent", HI_GEMINI),
        ("/v1beta/models/bench/other:streamGenerateContent?alt=sse", HI_GEMINI),
    ],
)
def test_every_api_refuses_another_collection(keys: Keys, upstream: FakeUpstream, path: str, body: Any):
    assert "bench/core" in refused(post(keys.gateway, path, body, keys.scoped), 403)
    assert upstream.requests == []


@pytest.mark.parametrize(
    ("path", "body"),
    [
        ("/v1/chat/completions", hello("bench/other:route")),
        ("/v1/messages", {"model": "bench/other:route", "max_tokens": 50, "messages": HI_MESSAGES}),
        ("/v1beta/models/bench/other:route:generateContent", HI_GEMINI),
    ],
)
def test_route_mode_on_another_collection_is_refused(
    keys: Keys, upstream: FakeUpstream, path: str, body: Any
):
    refused(post(keys.gateway, path, body, keys.scoped), 403)
    assert upstream.requests == []


@pytest.mark.parametrize(
    "body",
    [hello("bench/nope"), {"messages": HI_MESSAGES}, hello("")],
    ids=["unknown collection", "no model", "empty model"],
)
def test_a_refusal_names_only_the_keys_collections(keys: Keys, body: dict[str, Any]):
    response = post(keys.gateway, "/v1/chat/completions", body, keys.scoped)
    assert response.status_code in (400, 403, 404)
    assert "bench/core" in response.text and "other" not in response.text


# ---- listings --------------------------------------------------------------------------------


@pytest.mark.parametrize("path", ["/v1/models", "/api/tags", "/api/ps", "/v1beta/models"])
def test_another_collection_is_absent_from_every_listing(keys: Keys, path: str):
    listing = get(keys.gateway, path, keys.scoped)
    assert listing.status_code == 200 and "bench/core" in listing.text
    assert "other" not in listing.text
    assert "bench/other" in get(keys.gateway, path, keys.owner).text


def test_another_collection_cannot_be_looked_up_by_name(keys: Keys):
    for path in ("/v1/models/bench/other", "/v1/models/bench/other:all", "/v1beta/models/bench/other"):
        response = get(keys.gateway, path, keys.scoped)
        assert response.status_code == 404 and "bench/core" in response.text
        assert "the other bench" not in response.text
    shown = post(keys.gateway, "/api/show", {"model": "bench/other"}, keys.scoped)
    assert shown.status_code == 404 and "the other bench" not in shown.text


# ---- verdicts and the record -----------------------------------------------------------------


def test_a_scoped_key_cannot_judge_another_collections_call(keys: Keys, upstream: FakeUpstream):
    theirs = _calls(keys, keys.owner, "other")["m1"]
    judged = post(keys.gateway, "/bench/verdict", {"call": theirs, "useful": False}, keys.scoped)
    unknown = post(
        keys.gateway,
        "/bench/verdict",
        {"call": "p20260101-000000-abcd.member1", "useful": False},
        keys.scoped,
    )
    assert refused(judged, 404) == refused(unknown, 404).replace("p20260101-000000-abcd.member1", theirs)
    pending = post(keys.gateway, "/bench/pending", {"calls": [theirs]}, keys.owner).json()["pending"]
    assert theirs in str(pending), "the verdict was not stored"
    assert get(keys.gateway, "/bench/record?collection=other", keys.owner).json()["aliases"] == {}


def test_a_scoped_key_judges_its_own_collections_calls(keys: Keys, upstream: FakeUpstream):
    mine = _calls(keys, keys.scoped, "core")["m2"]
    judged = post(keys.gateway, "/bench/verdict", {"call": mine, "useful": True}, keys.scoped)
    assert judged.status_code == 200 and judged.json()["result"] == "created"
    record = get(keys.gateway, "/bench/record?collection=core", keys.scoped).json()["aliases"]
    assert record["m2"]["useful"] == 1


def test_the_record_shows_a_scoped_key_only_its_collections(keys: Keys, upstream: FakeUpstream):
    theirs = _calls(keys, keys.owner, "other")["m1"]
    post(keys.gateway, "/bench/verdict", {"call": theirs, "useful": True, "note": "secret"}, keys.owner)
    assert (
        get(keys.gateway, "/bench/record?collection=other", keys.owner).json()["aliases"]["m1"]["useful"] == 1
    )
    for asked in ("bench/other", "other"):
        refused(get(keys.gateway, f"/bench/record?collection={asked}", keys.scoped), 403)
    own = get(keys.gateway, "/bench/record", keys.scoped)
    assert own.status_code == 200 and own.json()["aliases"] == {}


def test_pending_shows_a_scoped_key_only_its_collections_calls(keys: Keys, upstream: FakeUpstream):
    theirs = _calls(keys, keys.owner, "other")
    mine = _calls(keys, keys.scoped, "core")
    asked = {"calls": [*theirs.values(), *mine.values()]}
    shown = str(post(keys.gateway, "/bench/pending", asked, keys.scoped).json()["pending"])
    assert all(call in shown for call in mine.values())
    assert not any(call in shown for call in theirs.values())
    everything = str(post(keys.gateway, "/bench/pending", asked, keys.owner).json()["pending"])
    assert all(call in everything for call in theirs.values())


# ---- known gaps, outside the access layer ----------------------------------------------------


@pytest.mark.parametrize(
    ("path", "body"),
    [
        ("/v1/messages/count_tokens", {"model": "bench/other", "messages": HI_MESSAGES}),
        ("/v1beta/models/bench/other:countTokens", HI_GEMINI),
    ],
)
def test_counting_tokens_on_another_collection_is_refused(keys: Keys, path: str, body: Any):
    refused(post(keys.gateway, path, body, keys.scoped), 403)


def test_counting_tokens_on_an_unknown_collection_names_only_the_keys_collections(keys: Keys):
    body = {"model": "bench/nope", "messages": HI_MESSAGES}
    response = post(keys.gateway, "/v1/messages/count_tokens", body, keys.scoped)
    assert "bench/core" in response.text and "other" not in response.text


def test_seating_an_ad_hoc_model_with_with_needs_a_key_made_to(keys: Keys, upstream: FakeUpstream):
    upstream.serve("m4")
    keys.gateway.add_model("m4", ad_hoc=True)
    keys.gateway.gateway_settings(max_calls=4, max_explorers=1)
    plain, allowed = make_key(keys.gateway, name="plain"), make_key(keys.gateway, name="ad hoc", ad_hoc=True)
    body = hello(**{"with": ["m4"]})
    assert "ad hoc" in refused(post(keys.gateway, "/v1/chat/completions", body, plain), 403)
    assert upstream.requests == []
    seated = post(keys.gateway, "/v1/chat/completions", body, allowed)
    assert seated.status_code == 200, seated.text
    assert "m4" in [seat["alias"] for seat in seated.json()["bench"]["seats"]]
