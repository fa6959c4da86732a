"""YAML export and import: round trip, idempotence, refusing a bad file whole."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from panelgate.core.types import CollectionInfo
from panelgate.store import Database, Invalid

from .conftest import POSTGRES_URL, empty_postgres, store_settings


async def _furnish(db: Database) -> None:
    """A bench with something of everything an export holds."""
    await db.endpoints.add("local", "http://127.0.0.1:9/v1", kind="local", actor="t")
    await db.endpoints.add(
        "cloud", "https://api.example/v1", api="responses", key_name="cloud-key",
        header_keys={"X-Title": "cloud-header-x-title"}, make_default=True, actor="t",
    )  # fmt: skip
    await db.models.add("alpha", "org/alpha", "local", role="code", context_window=32768, actor="t")
    await db.models.add("beta", "org/beta", "cloud", ad_hoc=True, vision=True, tools=False, actor="t")
    await db.models.add("gamma", "org/gamma", "cloud", options={"temperature": 0.3}, actor="t")
    await db.models.rename("alpha", "alpha-2", actor="t")
    await db.models.rename("alpha-2", "alpha-3", actor="t")
    await db.collections.save(
        CollectionInfo("core", ("gamma", "alpha-3", "beta"), shape="review", description="d", tags=("x", "y"),
                       reply="merged", merger="gamma"),
        actor="t",
    )  # fmt: skip
    side = CollectionInfo("side", ("beta",), offered_tools="refuse", verdicts_owed="chats")
    await db.collections.save(side, actor="t")
    await db.models.retire("gamma", "gone upstream", actor="t")
    await db.gateway.update({"max_calls": 7, "seat_deadline_s": 90, "decision_model": "beta"}, actor="t")


async def _fresh(tmp_path: Path) -> Database:
    """A second, empty database (on PostgreSQL the same one, emptied: close the first before)."""
    settings = store_settings(tmp_path / "other")
    if POSTGRES_URL:
        await empty_postgres(settings)
    return await Database.open(settings)


async def test_an_export_imported_into_an_empty_database_exports_the_same(
    db: Database, tmp_path: Path
) -> None:
    await _furnish(db)
    exported = await db.config.export_yaml()
    await db.close()
    other = await _fresh(tmp_path)
    try:
        counts = await other.config.import_yaml(exported, actor="t")
        assert await other.config.export_yaml() == exported
        assert (counts["endpoints"]["added"], counts["models"]["added"], counts["collections"]["added"]) == (
            2,
            3,
            2,
        )
        renamed = await other.models.get("alpha")
        assert renamed is not None and renamed.alias == "alpha-3"
        await other.models.restore("gamma", actor="t")
        restored = await other.collections.get("core")
        assert restored is not None and (restored.members[0], restored.merger) == ("gamma", "gamma")
        side = await other.collections.get("side")
        assert side is not None and (side.offered_tools, side.verdicts_owed) == ("refuse", "chats")
    finally:
        await other.close()


async def test_importing_the_same_export_again_changes_nothing(db: Database) -> None:
    await _furnish(db)
    exported = await db.config.export_yaml()
    audit_rows = len(await db.audit.list(limit=1000))
    counts = await db.config.import_yaml(exported, actor="t")
    assert all(count["added"] == count["changed"] == 0 for count in counts.values())
    assert len(await db.audit.list(limit=1000)) == audit_rows + 1
    assert await db.config.export_yaml() == exported


async def test_import_updates_what_differs_and_counts_it(db: Database) -> None:
    await _furnish(db)
    document = yaml.safe_load(await db.config.export_yaml())
    document["models"][0]["role"] = "light"
    document["collections"][1]["description"] = "side work"
    counts = await db.config.import_yaml(yaml.safe_dump(document), actor="t")
    assert (counts["models"]["changed"], counts["collections"]["changed"]) == (1, 1)
    alpha = await db.models.get("alpha-3")
    assert alpha is not None and alpha.role == "light"


async def test_export_holds_no_secret_and_says_where_keys_go(db: Database) -> None:
    await _furnish(db)
    exported = await db.config.export_yaml()
    assert "PANELGATE_KEY_" in exported.split("version:")[0]
    assert yaml.safe_load(exported)["endpoints"][0]["key_name"] == "cloud-key"


@pytest.mark.parametrize(
    ("change", "problem"),
    [
        (lambda d: d["models"][1].update(role="boss"), "models[1]: role must be one of"),
        (lambda d: d["models"][0].update(endpoint="nowhere"), "models[0]: no endpoint `nowhere`"),
        (
            lambda d: d["collections"][0]["members"].append("nobody"),
            "collections[0]: nobody is not on the bench",
        ),
        (
            lambda d: d["endpoints"][0].update(token="x"),
            "endpoints[0]: an endpoint has an unknown field `token`",
        ),
        (lambda d: d["gateway"].update(max_calls=99), "gateway: max_calls must be"),
        (
            lambda d: d["gateway"].update(decision_model="nobody"),
            "gateway: decision_model `nobody` is not a model on the bench",
        ),
        (lambda d: d.update(version=2), "version must be 1"),
        (
            lambda d: d["models"].append(dict(d["models"][1])),
            "models: an alias on the bench appears twice: `beta`",
        ),
    ],
)
async def test_an_invalid_document_is_refused_whole_naming_the_first_problem(
    db: Database, change: object, problem: str
) -> None:
    await _furnish(db)
    exported = await db.config.export_yaml()
    document = yaml.safe_load(exported)
    document["models"][0]["role"] = "light"
    change(document)  # type: ignore[operator]
    audit_rows = len(await db.audit.list(limit=1000))
    with pytest.raises(Invalid) as refused:
        await db.config.import_yaml(yaml.safe_dump(document), actor="t")
    assert refused.value.message.startswith(problem)
    assert await db.config.export_yaml() == exported
    assert len(await db.audit.list(limit=1000)) == audit_rows


async def test_a_file_that_is_not_yaml_is_refused_with_its_line(db: Database) -> None:
    with pytest.raises(Invalid, match="not valid YAML at line 3"):
        await db.config.import_yaml("version: 1\ngateway:\n\tmax_calls: 3\n", actor="t")
