"""The admin API for gateway keys: make (shown once), list (never the key or its hash), revoke."""

from __future__ import annotations

import hashlib
import re

import httpx
import pytest

from tests.support.gateway import Gateway
from tests.support.upstream import FakeUpstream

KEY = re.compile(r"^pgk_[A-Za-z0-9_-]{43}$")


def _make(gateway: Gateway, **body: object) -> dict:
    created: dict = gateway.api("POST", "/api/keys", {"name": "laptop", **body}, expect=201)
    return created


def test_a_new_key_is_shown_once_with_its_record(gateway: Gateway):
    created = _make(gateway, rpm=30)
    assert KEY.fullmatch(created["key"])
    assert created["name"] == "laptop" and created["hint"] == created["key"][-4:]
    assert (created["collections"], created["rpm"]) == (None, 30)
    assert created["revoked"] is False and created["revoked_at"] is None and created["last_used_at"] is None
    assert created["created_at"] and isinstance(created["id"], int)


def test_the_listing_never_shows_a_key_or_its_hash(gateway: Gateway):
    created = _make(gateway)
    listing = gateway.api("GET", "/api/keys", expect=200)
    [shown] = listing["keys"]
    assert shown == {name: value for name, value in created.items() if name != "key"}
    text = httpx.get(f"{gateway.url}/api/keys").text
    audit = httpx.get(f"{gateway.url}/api/audit").text
    for secret in (created["key"], hashlib.sha256(created["key"].encode()).hexdigest()):
        assert secret not in text and secret not in audit


def test_a_key_can_be_scoped_to_collections(bench: Gateway, upstream: FakeUpstream):
    created = _make(bench, collections=["core"])
    assert created["collections"] == ["core"]
    assert bench.api("GET", "/api/keys")["keys"][0]["collections"] == ["core"]


def test_revoke_marks_the_key_and_keeps_it_listed(gateway: Gateway):
    created = _make(gateway)
    revoked = gateway.api("POST", f"/api/keys/{created['id']}/revoke", expect=200)
    assert revoked["revoked"] is True and revoked["revoked_at"] and "key" not in revoked
    again = gateway.api("POST", f"/api/keys/{created['id']}/revoke", expect=200)
    assert again["revoked_at"] == revoked["revoked_at"]
    assert gateway.api("GET", "/api/keys")["keys"] == [revoked]


def test_make_and_revoke_are_in_the_audit_log(gateway: Gateway):
    created = _make(gateway)
    gateway.api("POST", f"/api/keys/{created['id']}/revoke", expect=200)
    changes = gateway.api("GET", "/api/audit?entity=gateway_key")["changes"]
    assert [(c["action"], c["key"]) for c in changes] == [
        ("revoke", str(created["id"])),
        ("add", str(created["id"])),
    ]
    assert changes[1]["after"]["name"] == "laptop"


@pytest.mark.parametrize("key_id", ["999", "0", "99999999999999999999"])
def test_revoking_an_unknown_key_is_404(gateway: Gateway, key_id: str):
    refused = gateway.api("POST", f"/api/keys/{key_id}/revoke", expect=404)
    assert refused["error"]["message"]


def test_revoking_by_something_other_than_an_id_is_400(gateway: Gateway):
    refused = gateway.api("POST", "/api/keys/laptop/revoke", expect=400)
    assert refused["error"]["field"] == "key_id"


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({}, "name"),
        ({"name": ""}, "name"),
        ({"name": "   "}, "name"),
        ({"name": 5}, "name"),
        ({"name": "x" * 81}, "name"),
        ({"name": "lap\u0000top"}, "name"),
        ({"name": "ci", "rpm": 0}, "rpm"),
        ({"name": "ci", "rpm": "60"}, "rpm"),
        ({"name": "ci", "rpm": 100_001}, "rpm"),
        ({"name": "ci", "collections": []}, "collections"),
        ({"name": "ci", "collections": "core"}, "collections"),
        ({"name": "ci", "collections": ["nobody"]}, "collections"),
        ({"name": "ci", "colour": "red"}, "colour"),
    ],
)
def test_bad_bodies_are_refused_with_the_field(gateway: Gateway, body: dict, field: str):
    refused = gateway.api("POST", "/api/keys", body, expect=400)
    assert refused["error"]["field"] == field and refused["error"]["message"]
    assert gateway.api("GET", "/api/keys")["keys"] == []


def test_a_body_that_is_not_json_is_415(gateway: Gateway):
    response = httpx.post(
        f"{gateway.url}/api/keys", content=b'{"name": "x"}', headers={"content-type": "text/plain"}
    )
    assert response.status_code == 415
    assert response.json()["error"]["message"]


def test_the_openapi_document_describes_the_replies(gateway: Gateway):
    document = httpx.get(f"{gateway.url}/openapi.json").json()
    create = document["paths"]["/api/keys"]["post"]
    assert set(create["responses"]) == {"201", "4XX"}
    assert create["requestBody"]["content"]["application/json"]["schema"]["required"] == ["name"]
    shown = document["components"]["schemas"]["KeyShown"]["properties"]
    assert "hint" in shown and "hash" not in shown and "key" not in shown
    assert "key" in document["components"]["schemas"]["CreatedKey"]["properties"]
