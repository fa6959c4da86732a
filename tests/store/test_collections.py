"""Collections: the rules a saved collection keeps, order, replace, delete."""

from __future__ import annotations

from dataclasses import replace

import pytest

from panelgate.core.types import CollectionInfo
from panelgate.store import Database, Invalid, NotFound

CORE = CollectionInfo(
    "core",
    ("gamma", "alpha"),
    shape="review",
    description="reviews",
    tags=("code",),
    offered_tools="refuse",
    verdicts_owed="chats",
)


async def test_save_keeps_member_order_and_every_field(bench: Database) -> None:
    await bench.collections.save(CORE, actor="t")
    assert await bench.collections.get("core") == CORE


async def test_save_replaces_the_whole_collection(bench: Database) -> None:
    await bench.collections.save(CORE, actor="t")
    smaller = CollectionInfo("core", ("beta",), reply="merged", merger="alpha")
    await bench.collections.save(smaller, actor="t")
    assert await bench.collections.list() == [smaller]


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"name": "Core"}, "name"),
        ({"members": ()}, "members"),
        ({"members": ("alpha", "alpha")}, "members"),
        ({"members": ("alpha", "nobody")}, "members"),
        ({"shape": "poetry"}, "shape"),
        ({"reply": "some"}, "reply"),
        ({"merger": "nobody"}, "merger"),
        ({"description": "x" * 301}, "description"),
        ({"tags": tuple(f"t{n}" for n in range(9))}, "tags"),
        ({"offered_tools": "keep"}, "offered_tools"),
        ({"verdicts_owed": "some"}, "verdicts_owed"),
    ],
)
async def test_save_refuses_a_collection_that_breaks_a_rule(
    bench: Database, change: dict[str, object], field: str
) -> None:
    with pytest.raises(Invalid) as refused:
        await bench.collections.save(replace(CORE, **change), actor="t")  # type: ignore[arg-type]
    assert refused.value.field == field


async def test_a_retired_model_cannot_be_saved_as_a_member(bench: Database) -> None:
    await bench.models.retire("gamma", "", actor="t")
    with pytest.raises(Invalid, match="gamma is not on the bench"):
        await bench.collections.save(CORE, actor="t")


async def test_delete_removes_the_collection(bench: Database) -> None:
    await bench.collections.save(CORE, actor="t")
    await bench.collections.delete("core", actor="t")
    assert await bench.collections.get("core") is None


async def test_deleting_an_unknown_collection_is_not_found(bench: Database) -> None:
    with pytest.raises(NotFound):
        await bench.collections.delete("nope", actor="t")
