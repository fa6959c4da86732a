"""The admin JSON API: endpoints after a listing test, models, collections, settings, config."""

from __future__ import annotations

import stat

import httpx
import pytest

from tests.http.helpers import ask, hello
from tests.support.gateway import TEST_DATABASE_URL, Gateway, free_port
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


def _refused(gateway: Gateway, method: str, path: str, body: dict | None = None) -> dict:
    response = httpx.request(method, f"{gateway.url}{path}", json=body)
    assert response.status_code == 400, response.text
    error: dict = response.json()["error"]
    return error


def test_a_base_url_that_does_not_parse_is_refused_naming_it(gateway: Gateway, upstream: FakeUpstream):
    refused = _refused(gateway, "POST", "/api/endpoints", {"name": "up", "base_url": "http://[::1/v1"})
    assert refused["field"] == "base_url"


def test_a_base_url_with_credentials_is_refused_before_it_is_asked(gateway: Gateway, upstream: FakeUpstream):
    base_url = f"http://me:sk-hunter2-secret@127.0.0.1:{free_port()}/v1"
    refused = _refused(gateway, "POST", "/api/endpoints", {"name": "up", "base_url": base_url})
    assert refused["field"] == "base_url" and "hunter2" not in refused["message"]


@pytest.mark.parametrize("flag", ["default", "test"])
def test_an_endpoint_flag_must_be_true_or_false(gateway: Gateway, upstream: FakeUpstream, flag: str):
    body = {"name": "up", "base_url": upstream.url, flag: "false"}
    assert _refused(gateway, "POST", "/api/endpoints", body)["field"] == flag
    assert gateway.api("GET", "/api/endpoints")["endpoints"] == []


def test_changing_nothing_on_an_unknown_model_is_404(bench: Gateway, upstream: FakeUpstream):
    refused = bench.api("PATCH", "/api/models/nobody", {}, expect=404)
    assert refused["error"]["field"] == "alias"


@pytest.mark.parametrize(
    ("path", "field"),
    [
        ("/api/models/m%001", "alias"),
        ("/api/collections/co%00re", "name"),
        ("/api/panels/p%00", "panel_id"),
        ("/api/audit?entity=model%00", "entity"),
        ("/api/panels?collection=core%00", "collection"),
    ],
)
def test_a_nul_character_in_a_path_or_query_is_refused_naming_it(
    bench: Gateway, upstream: FakeUpstream, path: str, field: str
):
    assert _refused(bench, "GET", path)["field"] == field


@pytest.mark.parametrize(
    ("path", "body", "field"),
    [
        ("/api/models", {"served_id": "m\u00004", "endpoint": "up", "alias": "m4"}, "served_id"),
        ("/api/models", {"served_id": "m4", "endpoint": "u\u0000p"}, "endpoint"),
        ("/api/collections/core", {"description": "three\u0000models"}, "description"),
        ("/api/models/m1/retire", {"why": "gone\u0000"}, "why"),
    ],
)
def test_a_nul_character_in_stored_text_is_refused_naming_it(
    bench: Gateway, upstream: FakeUpstream, path: str, body: dict, field: str
):
    method = "PATCH" if path.startswith("/api/collections") else "POST"
    assert _refused(bench, method, path, body)["field"] == field


def test_model_rename_keeps_collections_and_history(bench: Gateway, upstream: FakeUpstream):
    bench.api("PATCH", "/api/models/m1", {"alias": "first"}, expect=200)
    assert bench.api("GET", "/api/collections/core")["collection"]["members"] == ["first", "m2", "m3"]
    assert bench.api("GET", "/api/models/m1")["model"]["alias"] == "first"
    upstream.serve("other")
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
        {"members": ["m1"], "offered_tools": "keep"},
        {"members": ["m1"], "verdicts_owed": 1},
    ],
)
def test_bad_collections_are_refused_with_the_field(bench: Gateway, upstream: FakeUpstream, body: dict):
    refused = bench.api("PUT", "/api/collections/other", body)
    assert refused["error"]["message"]
    bench.api("GET", "/api/collections/other", expect=404)


def test_a_collection_says_what_its_panels_do_with_offered_tools_and_which_owe_verdicts(
    bench: Gateway, upstream: FakeUpstream
):
    shown = bench.api("GET", "/api/collections/core")["collection"]
    assert (shown["offered_tools"], shown["verdicts_owed"]) == ("drop", "all")
    changed = {"offered_tools": "refuse", "verdicts_owed": "chats"}
    saved = bench.api("PATCH", "/api/collections/core", changed, expect=200)["collection"]
    assert (saved["offered_tools"], saved["verdicts_owed"], saved["members"]) == (
        "refuse",
        "chats",
        ["m1", "m2", "m3"],
    )
    replaced = bench.api("PUT", "/api/collections/core", {"members": ["m1"]}, expect=200)["collection"]
    assert (replaced["offered_tools"], replaced["verdicts_owed"]) == ("drop", "all")


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
