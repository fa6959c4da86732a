"""Gateway keys: made once, kept as a hash, found by their text, scoped, revoked, touched sparingly."""

from __future__ import annotations

import hashlib
from datetime import timedelta

import pytest
from sqlalchemy import select

from panelgate.core.types import CollectionInfo
from panelgate.settings import Settings
from panelgate.store import Database, Invalid, NotFound
from panelgate.store.gateway_keys import KEY_PATTERN, looks_like_key
from panelgate.store.tables import audit_log, gateway_keys

from .conftest import POSTGRES_URL, T0


@pytest.fixture
async def with_core(bench: Database) -> Database:
    """The bench with collections `core` (alpha, beta) and `solo` (gamma)."""
    await bench.collections.save(CollectionInfo("core", ("alpha", "beta")), actor="setup")
    await bench.collections.save(CollectionInfo("solo", ("gamma",)), actor="setup")
    return bench


async def _raw_rows(db: Database) -> list[tuple[object, ...]]:
    async with db.engine.connect() as connection:
        keys = (await connection.execute(select(gateway_keys))).all()
        audit = (await connection.execute(select(audit_log))).all()
    return [tuple(row) for row in [*keys, *audit]]


async def test_create_returns_a_well_formed_key_and_its_record(db: Database) -> None:
    record, key = await db.keys.create("laptop", actor="ann")
    assert KEY_PATTERN.fullmatch(key) and looks_like_key(key)
    assert (record.name, record.hint, record.collections, record.rpm) == ("laptop", key[-4:], None, None)
    assert record.created_at.utcoffset() == timedelta(0)
    assert record.last_used_at is None and not record.revoked
    assert await db.keys.get(record.id) == record


async def test_every_key_is_different(db: Database) -> None:
    made = {(await db.keys.create(f"key {n}", actor="ann"))[1] for n in range(5)}
    assert len(made) == 5


async def test_find_knows_a_key_by_its_text(db: Database) -> None:
    record, key = await db.keys.create("laptop", rpm=60, actor="ann")
    assert await db.keys.find(key) == record


async def test_find_does_not_know_a_different_or_malformed_key(db: Database) -> None:
    _, key = await db.keys.create("laptop", actor="ann")
    other = key[:-1] + ("A" if key[-1] != "A" else "B")
    assert looks_like_key(other)
    assert await db.keys.find(other) is None
    for malformed in ("", key[4:], key + "x", "sk-" + key[4:], key.replace(key[10], "!")):
        assert not looks_like_key(malformed)
        assert await db.keys.find(malformed) is None


async def test_a_revoked_key_is_still_found_and_says_so(db: Database) -> None:
    record, key = await db.keys.create("laptop", actor="ann")
    revoked = await db.keys.revoke(record.id, actor="bob")
    assert revoked.revoked and revoked.revoked_at is not None
    found = await db.keys.find(key)
    assert found == revoked and found.revoked


async def test_revoking_twice_keeps_the_first_time_and_one_audit_row(db: Database) -> None:
    record, _ = await db.keys.create("laptop", actor="ann")
    first = await db.keys.revoke(record.id, actor="bob")
    again = await db.keys.revoke(record.id, actor="bob")
    assert again.revoked_at == first.revoked_at
    rows = await db.audit.list(entity="gateway_key")
    assert [row.action for row in rows] == ["revoke", "add"]


@pytest.mark.parametrize("key_id", [0, -1, 999, 2**31, 2**70])
async def test_revoking_an_unknown_key_is_not_found(db: Database, key_id: int) -> None:
    await db.keys.create("laptop", actor="ann")
    with pytest.raises(NotFound):
        await db.keys.revoke(key_id, actor="bob")
    assert await db.keys.get(key_id) is None


async def test_list_shows_every_key_oldest_first_revoked_ones_too(db: Database) -> None:
    first, _ = await db.keys.create("first", actor="ann")
    await db.keys.create("second", actor="ann")
    await db.keys.revoke(first.id, actor="ann")
    assert [(key.name, key.revoked) for key in await db.keys.list()] == [("first", True), ("second", False)]


async def test_the_database_keeps_the_hash_never_the_key(db: Database, settings: Settings) -> None:
    record, key = await db.keys.create("laptop", rpm=10, actor="ann")
    await db.keys.revoke(record.id, actor="ann")
    digest = hashlib.sha256(key.encode()).hexdigest()
    async with db.engine.connect() as connection:
        stored = (await connection.execute(select(gateway_keys.c.hash))).scalar_one()
    assert stored == digest
    for row in await _raw_rows(db):
        assert key not in repr(row) and key[4:] not in repr(row)
    audit = await db.audit.list(entity="gateway_key")
    assert digest not in repr(audit) and key not in repr(audit)
    assert audit[-1].after == {
        "name": "laptop",
        "hint": key[-4:],
        "collections": None,
        "rpm": 10,
        "ad_hoc": False,
        "tokens_per_day": None,
        "tokens_per_month": None,
        "cost_per_day": None,
        "cost_per_month": None,
    }
    if not POSTGRES_URL:
        files = sorted(settings.data_dir.glob("panelgate.db*"))
        assert files and all(key.encode() not in path.read_bytes() for path in files)


async def test_a_scoped_key_allows_only_its_collections(with_core: Database) -> None:
    record, key = await with_core.keys.create("ci", collections=["solo"], actor="ann")
    assert record.collections == ("solo",)
    assert record.scope().allows("solo") and not record.scope().allows("core")
    found = await with_core.keys.find(key)
    assert found is not None and found.collections == ("solo",)


async def test_an_unscoped_key_allows_every_collection(with_core: Database) -> None:
    record, _ = await with_core.keys.create("ops", actor="ann")
    assert record.scope().allows("core") and record.scope().allows("anything-made-later")


@pytest.mark.parametrize(
    ("fields", "field"),
    [
        ({"name": ""}, "name"),
        ({"name": "   "}, "name"),
        ({"name": "x" * 81}, "name"),
        ({"name": 7}, "name"),
        ({"name": "lap\x00top"}, "name"),
        ({"rpm": 0}, "rpm"),
        ({"rpm": 100_001}, "rpm"),
        ({"rpm": 2.5}, "rpm"),
        ({"rpm": True}, "rpm"),
        ({"collections": []}, "collections"),
        ({"collections": "core"}, "collections"),
        ({"collections": ["nobody"]}, "collections"),
        ({"collections": ["core", "nobody"]}, "collections"),
        ({"collections": ["core", "core"]}, "collections"),
        ({"collections": ["Not A Name"]}, "collections"),
    ],
)
async def test_create_refuses_a_key_that_breaks_a_rule(
    with_core: Database, fields: dict[str, object], field: str
) -> None:
    asked: dict[str, object] = {"name": "laptop", **fields}
    with pytest.raises(Invalid) as refused:
        await with_core.keys.create(asked.pop("name"), **asked, actor="ann")  # type: ignore[arg-type]
    assert refused.value.field == field
    assert await with_core.keys.list() == []


async def test_an_unknown_collection_is_named_in_the_refusal(with_core: Database) -> None:
    with pytest.raises(Invalid, match="`nobody`"):
        await with_core.keys.create("ci", collections=["core", "nobody"], actor="ann")


async def test_name_is_kept_without_surrounding_space_and_limits_are_inclusive(with_core: Database) -> None:
    record, _ = await with_core.keys.create("  " + "n" * 80 + " ", rpm=100_000, actor="ann")
    assert record.name == "n" * 80 and record.rpm == 100_000
    smallest, _ = await with_core.keys.create("x", rpm=1, actor="ann")
    assert smallest.rpm == 1


async def test_touch_records_last_use_at_most_once_a_minute(db: Database) -> None:
    record, key = await db.keys.create("laptop", actor="ann")
    await db.keys.touch(record.id, T0)
    await db.keys.touch(record.id, T0 + timedelta(seconds=59))
    found = await db.keys.find(key)
    assert found is not None and found.last_used_at == T0
    await db.keys.touch(record.id, T0 + timedelta(seconds=60))
    found = await db.keys.find(key)
    assert found is not None and found.last_used_at == T0 + timedelta(seconds=60)


async def test_touch_throttles_each_key_on_its_own(db: Database) -> None:
    first, _ = await db.keys.create("first", actor="ann")
    second, _ = await db.keys.create("second", actor="ann")
    await db.keys.touch(first.id, T0)
    await db.keys.touch(second.id, T0 + timedelta(seconds=1))
    assert [key.last_used_at for key in await db.keys.list()] == [T0, T0 + timedelta(seconds=1)]


async def test_touch_from_another_process_never_moves_last_use_back(db: Database, settings: Settings) -> None:
    record, _ = await db.keys.create("laptop", actor="ann")
    await db.keys.touch(record.id, T0 + timedelta(minutes=5))
    other = await Database.open(settings)
    try:
        await other.keys.touch(record.id, T0)
    finally:
        await other.close()
    found = await db.keys.get(record.id)
    assert found is not None and found.last_used_at == T0 + timedelta(minutes=5)


async def test_touch_leaves_no_audit_row(db: Database) -> None:
    record, _ = await db.keys.create("laptop", actor="ann")
    await db.keys.touch(record.id, T0)
    assert [row.action for row in await db.audit.list(entity="gateway_key")] == ["add"]
