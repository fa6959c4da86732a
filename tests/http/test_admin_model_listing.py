"""`POST /api/models` asks the endpoint's listing first; `unlisted` adds an id it does not name."""

from __future__ import annotations

from typing import Any

from tests.support.gateway import Gateway
from tests.support.upstream import FakeUpstream


def add(gateway: Gateway, served_id: str, expect: int, **fields: Any) -> Any:
    return gateway.api(
        "POST", "/api/models", {"served_id": served_id, "endpoint": "up", **fields}, expect=expect
    )


def test_an_id_the_listing_names_is_put_on_the_bench(bench: Gateway, upstream: FakeUpstream):
    upstream.serve("org/m4:free")
    assert add(bench, "org/m4:free", 201)["model"]["alias"] == "m4-free"


def test_an_id_the_listing_lacks_is_refused_naming_the_endpoint_and_the_closest_ids(
    bench: Gateway, upstream: FakeUpstream
):
    error = add(bench, "m4", 400)["error"]
    assert error["field"] == "served_id"
    assert error["message"].startswith("`up` does not serve `m4` (its model listing does not name it)")
    assert "did you mean `m3`, `m2`, `m1`? If it serves `m4` all the same" in error["message"]
    assert '"unlisted": true' in error["message"]
    bench.api("GET", "/api/models/m4", expect=404)


def test_an_id_far_from_every_listed_one_is_refused_with_what_the_listing_holds(
    bench: Gateway, upstream: FakeUpstream
):
    error = add(bench, "nosuch", 400)["error"]
    assert "it lists `m1`, `m2`, `m3`" in error["message"]


def test_unlisted_puts_an_id_the_listing_lacks_on_the_bench(bench: Gateway, upstream: FakeUpstream):
    added = add(bench, "m4", 201, unlisted=True)["model"]
    assert (added["alias"], added["served_id"], added["endpoint"]) == ("m4", "m4", "up")


def test_a_listing_that_does_not_answer_refuses_the_id_unless_unlisted(
    bench: Gateway, upstream: FakeUpstream
):
    upstream.require_key = "sk-only-this-one"  # the listing now answers 401
    error = add(bench, "m4", 409)["error"]
    assert error["field"] == "endpoint"
    assert error["message"].startswith("could not read the models `up` lists (")
    assert "If you know it serves `m4`" in error["message"]
    add(bench, "m4", 201, unlisted=True)


def test_unlisted_must_be_true_or_false(bench: Gateway, upstream: FakeUpstream):
    assert add(bench, "m4", 400, unlisted="yes")["error"]["field"] == "unlisted"


def test_an_unknown_endpoint_is_refused_naming_the_endpoints(bench: Gateway, upstream: FakeUpstream):
    refused = bench.api("POST", "/api/models", {"served_id": "m4", "endpoint": "nowhere"}, expect=400)
    assert refused["error"] == {"message": "no endpoint named `nowhere`; endpoints: up", "field": "endpoint"}


def test_a_model_without_an_endpoint_goes_on_the_default_one(gateway: Gateway, upstream: FakeUpstream):
    upstream.serve("m2")
    gateway.add_endpoint("first", upstream.url)
    gateway.add_endpoint("second", upstream.url)
    gateway.api("POST", "/api/endpoints/second/default", expect=200)
    added = gateway.api("POST", "/api/models", {"served_id": "m2"}, expect=201)["model"]
    assert (added["alias"], added["endpoint"]) == ("m2", "second")


def test_a_model_without_an_endpoint_on_a_gateway_with_none_is_refused(gateway: Gateway):
    refused = gateway.api("POST", "/api/models", {"served_id": "m2"}, expect=400)
    assert refused["error"] == {
        "message": "no endpoint yet; add one first (`panelgate endpoint add`)",
        "field": "endpoint",
    }
