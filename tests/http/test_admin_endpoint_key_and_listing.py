"""An endpoint's key changed over the admin API (tested first, never shown), and what its listing serves."""

from __future__ import annotations

import httpx
import pytest

from tests.http.helpers import ask, hello
from tests.support.gateway import Gateway
from tests.support.upstream import FakeUpstream

OLD_KEY = "sk-old-key-1234567890"
NEW_KEY = "sk-new-key-0987654321"


def _keyed_bench(gateway: Gateway, upstream: FakeUpstream) -> None:
    upstream.listed(["m1"])
    upstream.require_key = OLD_KEY
    gateway.add_endpoint("up", upstream.url, key=OLD_KEY)
    gateway.add_model("m1")
    gateway.save_collection("solo", ["m1"])


def test_a_new_key_is_tested_then_sent_upstream_and_never_shown(gateway: Gateway, upstream: FakeUpstream):
    _keyed_bench(gateway, upstream)
    upstream.require_key = NEW_KEY
    reply = httpx.put(f"{gateway.url}/api/endpoints/up/key", json={"key": NEW_KEY}, timeout=30)
    assert reply.status_code == 200, reply.text
    assert NEW_KEY not in reply.text and reply.json()["endpoint"]["key"] == "file"
    assert reply.json()["listed"] == ["m1"]
    assert ask(gateway, hello("bench/solo")).json()["bench"]["seats"][0]["status"] == "ok"
    assert upstream.requests_for("m1")[-1].headers["authorization"] == f"Bearer {NEW_KEY}"
    audit = httpx.get(f"{gateway.url}/api/audit", timeout=30).text
    endpoints = httpx.get(f"{gateway.url}/api/endpoints", timeout=30).text
    assert NEW_KEY not in audit and OLD_KEY not in audit and NEW_KEY not in endpoints
    change = gateway.api("GET", "/api/audit")["changes"][0]
    assert (change["entity"], change["key"], change["action"]) == ("endpoint", "up", "key")
    assert change["after"] == {"key_name": "up", "key": "set"}


def test_a_key_the_listing_refuses_is_not_saved(gateway: Gateway, upstream: FakeUpstream):
    _keyed_bench(gateway, upstream)
    refused = gateway.api("PUT", "/api/endpoints/up/key", {"key": "sk-typo"}, expect=400)
    assert "models" in refused["error"]["message"] and "sk-typo" not in str(refused)
    assert ask(gateway, hello("bench/solo")).json()["bench"]["seats"][0]["status"] == "ok"
    assert upstream.requests_for("m1")[-1].headers["authorization"] == f"Bearer {OLD_KEY}"
    assert all(c["action"] != "key" for c in gateway.api("GET", "/api/audit")["changes"])


def test_an_endpoint_added_without_a_key_gets_one_under_its_own_name(
    gateway: Gateway, upstream: FakeUpstream
):
    gateway.add_endpoint("up", upstream.url)
    changed = gateway.api("PUT", "/api/endpoints/up/key", {"key": f"  {NEW_KEY} "}, expect=200)
    assert changed["endpoint"]["key_name"] == "up" and changed["endpoint"]["key"] == "file"
    assert '"up": "' + NEW_KEY + '"' in (gateway.home / "keys.json").read_text()


def test_a_null_key_clears_it(gateway: Gateway, upstream: FakeUpstream):
    _keyed_bench(gateway, upstream)
    upstream.require_key = None
    cleared = gateway.api("PUT", "/api/endpoints/up/key", {"key": None}, expect=200)
    assert cleared["endpoint"]["key"] is None
    assert "up" not in (gateway.home / "keys.json").read_text()
    assert gateway.api("GET", "/api/audit")["changes"][0]["after"]["key"] == "cleared"


def test_a_key_from_the_environment_is_not_shadowed_by_one_saved_here(
    gateway: Gateway, upstream: FakeUpstream, monkeypatch: pytest.MonkeyPatch
):
    monkeypatch.setenv("PANELGATE_KEY_FROM_ENV", OLD_KEY)  # the in-process gateway reads os.environ
    gateway.add_endpoint("up", upstream.url, key_name="from-env")
    refused = gateway.api("PUT", "/api/endpoints/up/key", {"key": NEW_KEY}, expect=400)
    assert "PANELGATE_KEY_FROM_ENV" in refused["error"]["message"] and refused["error"]["field"] == "key"
    assert OLD_KEY not in str(refused) and not (gateway.home / "keys.json").exists()


def test_a_key_change_needs_the_key_and_a_known_endpoint(bench: Gateway, upstream: FakeUpstream):
    assert bench.api("PUT", "/api/endpoints/up/key", {}, expect=400)["error"]["field"] == "key"
    assert bench.api("PUT", "/api/endpoints/up/key", {"key": "a\nb"}, expect=400)["error"]["field"] == "key"
    missing = bench.api("PUT", "/api/endpoints/nowhere/key", {"key": NEW_KEY}, expect=404)
    assert "endpoints: up" in missing["error"]["message"]


def test_served_lists_what_the_endpoint_serves_and_what_is_on_the_bench(
    bench: Gateway, upstream: FakeUpstream
):
    bench.api("POST", "/api/models/m3/retire", {}, expect=200)
    upstream.listed(["m1", "m3", "org/m4:free"])
    served = bench.api("GET", "/api/endpoints/up/served", expect=200)
    assert served == {
        "endpoint": "up",
        "served": [
            {"served_id": "m1", "alias": "m1", "on_bench": ["m1"], "retired": []},
            {"served_id": "m3", "alias": "m3", "on_bench": [], "retired": ["m3"]},
            {"served_id": "org/m4:free", "alias": "m4-free", "on_bench": [], "retired": []},
        ],
        "unlisted": ["m2"],
    }


def test_served_asks_the_listing_with_the_endpoints_key(gateway: Gateway, upstream: FakeUpstream):
    _keyed_bench(gateway, upstream)
    upstream.listed(["m1", "m2"])
    served = gateway.api("GET", "/api/endpoints/up/served", expect=200)["served"]
    assert [s["served_id"] for s in served] == ["m1", "m2"]
    upstream.require_key = "sk-something-else"
    refused = gateway.api("GET", "/api/endpoints/up/served", expect=400)
    assert "models" in refused["error"]["message"] and OLD_KEY not in str(refused)
