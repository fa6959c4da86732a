"""Endpoints: the default rule, removal rules, and no secrets in URLs or headers."""

from __future__ import annotations

import pytest

from panelgate.store import Conflict, Database, Invalid, NotFound


async def _defaults(db: Database) -> list[str]:
    return [endpoint.name for endpoint in await db.endpoints.list() if endpoint.is_default]


async def test_first_endpoint_added_becomes_the_default(db: Database) -> None:
    await db.endpoints.add("first", "https://one.example/v1", actor="t")
    await db.endpoints.add("second", "https://two.example/v1", actor="t")
    assert await _defaults(db) == ["first"]


async def test_make_default_moves_the_default_to_the_new_endpoint(db: Database) -> None:
    await db.endpoints.add("first", "https://one.example/v1", actor="t")
    await db.endpoints.add("second", "https://two.example/v1", make_default=True, actor="t")
    assert await _defaults(db) == ["second"]


async def test_set_default_leaves_exactly_one_default(db: Database) -> None:
    await db.endpoints.add("first", "https://one.example/v1", actor="t")
    await db.endpoints.add("second", "https://two.example/v1", actor="t")
    await db.endpoints.set_default("second", actor="t")
    assert await _defaults(db) == ["second"]


async def test_removing_an_endpoint_with_models_on_the_bench_names_them(bench: Database) -> None:
    with pytest.raises(Conflict, match="alpha, beta, gamma; retire those models first"):
        await bench.endpoints.remove("local", actor="t")


async def test_the_default_is_removed_only_when_it_is_the_last_endpoint(db: Database) -> None:
    await db.endpoints.add("first", "https://one.example/v1", actor="t")
    await db.endpoints.add("second", "https://two.example/v1", actor="t")
    with pytest.raises(Conflict, match="make another endpoint the default first"):
        await db.endpoints.remove("first", actor="t")
    await db.endpoints.remove("second", actor="t")
    await db.endpoints.remove("first", actor="t")
    assert await db.endpoints.list() == []


async def test_base_url_with_credentials_is_refused_without_repeating_them(db: Database) -> None:
    with pytest.raises(Invalid) as refused:
        await db.endpoints.add("leaky", "https://me:hunter2@api.example/v1", actor="t")
    assert refused.value.field == "base_url"
    assert "hunter2" not in refused.value.message


@pytest.mark.parametrize(
    "base_url",
    [
        "http://[::1/v1",  # urlsplit raised ValueError: a 500 instead of a refusal
        "http://api.example/v 1",
        "http://api.example/v1\x00",  # PostgreSQL cannot keep a NUL
        "http://api.example/\nv1",
    ],
)
async def test_a_base_url_that_is_not_one_url_is_refused_naming_it(db: Database, base_url: str) -> None:
    with pytest.raises(Invalid) as refused:
        await db.endpoints.add("odd", base_url, actor="t")
    assert refused.value.field == "base_url"
    assert await db.endpoints.list() == []


async def test_base_url_with_a_query_is_refused(db: Database) -> None:
    with pytest.raises(Invalid, match="key_name"):
        await db.endpoints.add("gem", "https://api.example/v1?key=s3cret", actor="t")


async def test_a_header_that_carries_a_secret_is_refused(db: Database) -> None:
    with pytest.raises(Invalid, match="carries a secret") as refused:
        await db.endpoints.add(
            "hub",
            "https://hub.example/api",
            header_keys={"Authorization": "hub-header-authorization"},
            actor="t",
        )
    assert "s3" not in refused.value.message


async def test_endpoint_names_follow_the_collection_name_rule(db: Database) -> None:
    with pytest.raises(Invalid, match="lower-case"):
        await db.endpoints.add("Open AI", "https://api.example/v1", actor="t")


async def test_adding_an_existing_name_is_a_conflict(db: Database) -> None:
    await db.endpoints.add("first", "https://one.example/v1", actor="t")
    with pytest.raises(Conflict, match="already exists"):
        await db.endpoints.add("first", "https://other.example/v1", actor="t")


async def test_update_changes_the_given_fields_and_trims_the_url(db: Database) -> None:
    await db.endpoints.add("hub", "https://hub.example/api", kind="hub", actor="t")
    updated = await db.endpoints.update(
        "hub", {"base_url": "https://hub2.example/api/", "key_name": "hub-key"}, actor="t"
    )
    assert (updated.base_url, updated.key_name, updated.kind) == (
        "https://hub2.example/api",
        "hub-key",
        "hub",
    )


async def test_update_refuses_a_field_that_cannot_change(db: Database) -> None:
    await db.endpoints.add("hub", "https://hub.example/api", actor="t")
    with pytest.raises(Invalid, match="`name` cannot be set on an endpoint"):
        await db.endpoints.update("hub", {"name": "other"}, actor="t")


async def test_editing_an_unknown_endpoint_lists_the_known_ones(db: Database) -> None:
    await db.endpoints.add("first", "https://one.example/v1", actor="t")
    assert await db.endpoints.get("nope") is None
    with pytest.raises(NotFound, match="endpoints: first"):
        await db.endpoints.set_default("nope", actor="t")
