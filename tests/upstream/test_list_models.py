"""Listing an endpoint's models: the shapes endpoints answer in, and refusals as taxonomy kinds."""

from __future__ import annotations

import pytest

from panelgate.upstream import UpstreamClient, UpstreamStatusError
from tests.support.upstream import FakeUpstream


@pytest.mark.parametrize("shape", ["data", "models", "bare"])
async def test_listing_is_read_in_every_shape(client: UpstreamClient, upstream: FakeUpstream, shape: str):
    upstream.listed(["m1", "m2"], shape=shape)
    listed = await client.list_models(upstream.url)
    assert [model["id"] for model in listed] == ["m1", "m2"]


async def test_listing_sends_the_key_it_is_given(client: UpstreamClient):
    with FakeUpstream(["m1"], require_key="sk-listing-key-01") as guarded:
        listed = await client.list_models(guarded.url, key="sk-listing-key-01")
    assert [model["id"] for model in listed] == ["m1"]


async def test_listing_without_the_key_is_signin(client: UpstreamClient):
    with (
        FakeUpstream(["m1"], require_key="sk-listing-key-01") as guarded,
        pytest.raises(UpstreamStatusError) as caught,
    ):
        await client.list_models(guarded.url, endpoint="guarded")
    assert (caught.value.kind, caught.value.status, caught.value.provider) == ("signin", 401, "guarded")


async def test_listing_at_a_wrong_path_is_structural(client: UpstreamClient, upstream: FakeUpstream):
    with pytest.raises(UpstreamStatusError) as caught:
        await client.list_models(upstream.url.removesuffix("/v1") + "/api")
    assert caught.value.kind == "structural" and caught.value.status == 404
