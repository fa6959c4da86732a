"""Owed verdicts follow the gateway key's id, not its name; names a caller could be confused by are refused.

Names were never unique: two keys named alike saw each other's owed seats,
and a key named `local` saw the panels of callers without a key. Keys made
before the rule are simulated by renaming a key's row in the database, as an
old install could have them.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.http.helpers import hello
from tests.http.key_helpers import get, keyed_bench, post
from tests.mcp_tools.mcp_helpers import as_json, mcp_client
from tests.support.gateway import Gateway, run_sql
from tests.support.upstream import FakeUpstream


@dataclass(frozen=True)
class Key:
    id: int
    text: str


def _make(gateway: Gateway, name: str) -> Key:
    created = gateway.api("POST", "/api/keys", {"name": name}, expect=201)
    return Key(int(created["id"]), str(created["key"]))


def _rename_in_database(gateway: Gateway, key: Key, name: str) -> None:
    """What an install from before the rule may hold: a key renamed straight in its database."""
    run_sql(gateway, f"UPDATE gateway_keys SET name = '{name}' WHERE id = {key.id}")


def _ask(gateway: Gateway, key: str | None) -> set[str]:
    """Ask a panel as `key` (None: no key); the calls of its seats."""
    reply = post(gateway, "/v1/chat/completions", hello(), key)
    assert reply.status_code == 200, reply.text
    return {seat["call"] for seat in reply.json()["bench"]["seats"]}


def _owed(gateway: Gateway, key: str | None) -> set[str]:
    reply = get(gateway, "/bench/pending", key)
    assert reply.status_code == 200, reply.text
    return {seat["call"] for seat in reply.json()["pending"]}


async def _owed_by_mcp(gateway: Gateway, key: str | None) -> set[str]:
    async with mcp_client(gateway, key=key) as client:
        listed = as_json(await client.call_tool("pending_verdicts", {}))["pending"]
    return {seat["call"] for seat in listed}


@pytest.fixture
def keyed(tmp_path: Path, upstream: FakeUpstream) -> Iterator[Gateway]:
    with keyed_bench(tmp_path / "home", upstream) as gateway:
        yield gateway


def test_a_second_active_key_with_the_same_name_is_refused(keyed: Gateway):
    _make(keyed, "laptop")
    refusal = keyed.api("POST", "/api/keys", {"name": "Laptop"}, expect=409)["error"]
    assert refusal["field"] == "name" and "already named `Laptop`" in refusal["message"]
    names = [key["name"] for key in keyed.api("GET", "/api/keys", expect=200)["keys"]]
    assert names == ["laptop"]


def test_a_revoked_keys_name_may_be_taken_again(keyed: Gateway):
    old = _make(keyed, "laptop")
    keyed.api("POST", f"/api/keys/{old.id}/revoke", expect=200)
    _make(keyed, "laptop")


@pytest.mark.parametrize("name", ["local", "Admin", "-", "scheduler"])
def test_a_key_may_not_take_a_name_the_gateway_records_itself(keyed: Gateway, name: str):
    refusal = keyed.api("POST", "/api/keys", {"name": name}, expect=400)["error"]
    assert f"`{name}` is a name the gateway uses itself" in refusal["message"]
    assert keyed.api("GET", "/api/keys", expect=200)["keys"] == []


async def test_keys_named_alike_before_the_rule_each_see_only_their_own_owed_seats(keyed: Gateway):
    first, second = _make(keyed, "twin"), _make(keyed, "twin-to-be")
    _rename_in_database(keyed, second, "twin")
    first_calls, second_calls = _ask(keyed, first.text), _ask(keyed, second.text)

    assert _owed(keyed, first.text) == first_calls
    assert _owed(keyed, second.text) == second_calls
    assert await _owed_by_mcp(keyed, first.text) == first_calls
    assert await _owed_by_mcp(keyed, second.text) == second_calls
    shown = {key["id"]: key["name"] for key in keyed.api("GET", "/api/keys", expect=200)["keys"]}
    assert shown == {first.id: "twin", second.id: "twin"}


async def test_a_key_named_local_before_the_rule_is_not_owed_keyless_callers_panels(bench: Gateway):
    old = _make(bench, "old laptop")
    _rename_in_database(bench, old, "local")
    keyless_calls, key_calls = _ask(bench, None), _ask(bench, old.text)

    assert _owed(bench, old.text) == key_calls
    assert await _owed_by_mcp(bench, old.text) == key_calls
    assert _owed(bench, None) == keyless_calls
    assert await _owed_by_mcp(bench, None) == keyless_calls
