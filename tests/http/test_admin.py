"""The admin JSON API: endpoints after a listing test, models, collections, settings, config."""

from __future__ import annotations

import stat

import httpx
import pytest

from tests.http.helpers import ask, hello
from tests.support.gateway import TEST_DATABASE_URL, Gateway
from tests.support.upstream import FakeUpstream


def test_endpoint_is_saved_only_after_its_listing_answers(gateway: Gateway, upstream: FakeUpstream):
    refused = gateway.api("POST", "/api/endpoints", {"name": "up", "base_url": upstream.url + "/nowhere"})
    assert "models" in refused["error"]["message"]
    assert gateway.api("GET", "/api/endpoints")["endpoints"] == []
    upstream.listed(["m1", "m2"])
    added = gateway.add_endpoint("up", upstream.url)
    assert added["listed"] == ["m1", "m2"] and added["endpoint"]["is_default"] is True


def test_endpoint_key_is_tested_sent_upstream_and_never_stored_or_exported(
    gateway: Gateway, upstream: FakeUpstream
):
    upstream.behave("m1", require_key="sk-secret-123456")
    upstream.listed(["m1"])
    upstream.require_key = "sk-secret-123456"
    gateway.api(
        "POST", "/api/endpoints", {"name": "up", "base_url": upstream.url, "key": "sk-wrong"}, expect=400
    )
    gateway.add_endpoint("up", upstream.url, key="sk-secret-123456")
    gateway.add_model("m1")
    gateway.save_collection("solo", ["m1"])
    assert ask(gateway, hello("bench/solo")).json()["bench"]["seats"][0]["status"] == "ok"
    assert upstream.requests_for("m1")[0].headers["authorization"] == "Bearer sk-secret-123456"
    key_file = gateway.home / "keys.json"
    assert stat.S_IMODE(key_file.stat().st_mode) == 0o600
    export = httpx.get(f"{gateway.url}/api/config").text
    assert "sk-secret" not in export and "sk-secret" not in str(gateway.api("GET", "/api/endpoints"))
    if not TEST_DATABASE_URL:
        raw = (gateway.home / "panelgate.db").read_bytes() + (gateway.home / "panelgate.db-wal").read_bytes()
        assert b"sk-secret" not in raw


def test_model_rename_keeps_collections_and_history(bench: Gateway, upstream: FakeUpstream):
    bench.api("PATCH", "/api/models/m1", {"alias": "first"}, expect=200)
    assert bench.api("GET", "/api/collections/core")["collection"]["members"] == ["first", "m2", "m3"]
    assert bench.api("GET", "/api/models/m1")["model"]["alias"] == "first"
    bench.api("POST", "/api/models", {"alias": "m1", "served_id": "other", "endpoint": "up"}, expect=409)


def test_retired_member_is_skipped_and_restore_puts_it_back(bench: Gateway, upstream: FakeUpstream):
    bench.api("POST", "/api/models/m2/retire", {"why": "withdrawn"}, expect=200)
    assert bench.api("GET", "/api/collections/core")["collection"]["members"] == ["m1", "m3"]
    assert [s["alias"] for s in ask(bench, hello()).json()["bench"]["seats"]] == ["m1", "m3"]
    assert upstream.requests_for("m2") == []
    bench.api("POST", "/api/models/m2/restore", {}, expect=200)
    assert bench.api("GET", "/api/collections/core")["collection"]["members"] == ["m1", "m2", "m3"]


def test_collection_patch_keeps_unspecified_fields(bench: Gateway, upstream: FakeUpstream):
    bench.api("PATCH", "/api/collections/core", {"remove": ["m3"], "tags": ["review"]}, expect=200)
    shown = bench.api("GET", "/api/collections/core")["collection"]
    assert shown["members"] == ["m1", "m2"] and shown["description"] == "three models"
    assert shown["tags"] == ["review"]


@pytest.mark.parametrize(
    "body",
    [
        {"members": []},
        {"members": ["nobody"]},
        {"members": ["m1"], "reply": "both"},
        {"members": ["m1"], "shape": "poetry"},
        {"members": ["m1"], "merger": "nobody"},
        {"members": ["m1"], "colour": "red"},
    ],
)
def test_bad_collections_are_refused_with_the_field(bench: Gateway, upstream: FakeUpstream, body: dict):
    refused = bench.api("PUT", "/api/collections/other", body)
    assert refused["error"]["message"]
    bench.api("GET", "/api/collections/other", expect=404)


def test_bad_collection_name_is_refused(bench: Gateway, upstream: FakeUpstream):
    bench.api("PUT", "/api/collections/Bad_Name", {"members": ["m1"]}, expect=400)


def test_gateway_settings_are_range_checked(bench: Gateway, upstream: FakeUpstream):
    bench.api("PATCH", "/api/settings/gateway", {"max_calls": 11}, expect=400)
    bench.api("PATCH", "/api/settings/gateway", {"max_explorers": -1}, expect=400)
    assert bench.api("GET", "/api/settings/gateway")["gateway"]["max_calls"] == 3


def test_config_export_imports_into_an_empty_gateway(bench: Gateway, upstream: FakeUpstream, tmp_path):
    exported = httpx.get(f"{bench.url}/api/config").text
    fresh = Gateway(tmp_path / "fresh").start()
    try:
        fresh.api("POST", "/api/config", {"yaml": exported}, expect=200)
        assert httpx.get(f"{fresh.url}/api/config").text == exported
        assert [s["alias"] for s in ask(fresh, hello()).json()["bench"]["seats"]] == ["m1", "m2", "m3"]
    finally:
        fresh.close()


def test_every_change_is_in_the_audit_log(bench: Gateway, upstream: FakeUpstream):
    bench.api("PATCH", "/api/models/m1", {"role": "code"}, expect=200)
    changes = bench.api("GET", "/api/audit", expect=200)["changes"]
    done = {(c["entity"], c["action"]) for c in changes}
    assert {("endpoint", "add"), ("model", "add"), ("collection", "add"), ("model", "update")} <= done
    role_change = next(c for c in changes if c["entity"] == "model" and c["action"] == "update")
    assert role_change["key"] == "m1"
