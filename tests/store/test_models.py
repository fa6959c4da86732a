"""Models: aliases and their history, hand-set facts, the roster."""

from __future__ import annotations

import pytest

from panelgate.core.types import CollectionInfo
from panelgate.store import Conflict, Database, Invalid, NotFound


async def test_an_old_alias_finds_the_model_after_two_renames(bench: Database) -> None:
    await bench.models.rename("alpha", "alpha-2", actor="t")
    await bench.models.rename("alpha-2", "alpha-3", actor="t")
    found, middle = await bench.models.get("alpha"), await bench.models.get("alpha-2")
    assert found is not None and middle is not None
    assert (found.alias, found.former_aliases, middle.id) == ("alpha-3", ("alpha", "alpha-2"), found.id)


async def test_rename_rewrites_collection_members_and_merger(bench: Database) -> None:
    await bench.collections.save(CollectionInfo("core", ("beta", "alpha"), merger="alpha"), actor="t")
    await bench.models.rename("alpha", "alpha-2", actor="t")
    assert await bench.collections.get("core") == CollectionInfo(
        "core", ("beta", "alpha-2"), merger="alpha-2"
    )


async def test_rename_refuses_an_old_alias_even_of_the_same_model(bench: Database) -> None:
    await bench.models.rename("alpha", "alpha-2", actor="t")
    with pytest.raises(Conflict, match="earlier name of `alpha-2`"):
        await bench.models.rename("alpha-2", "alpha", actor="t")


async def test_rename_refuses_a_retired_models_alias(bench: Database) -> None:
    await bench.models.retire("gamma", "gone upstream", actor="t")
    with pytest.raises(Conflict, match="retired model"):
        await bench.models.rename("beta", "gamma", actor="t")


async def test_rename_refuses_an_alias_that_differs_only_in_case(bench: Database) -> None:
    with pytest.raises(Conflict, match="taken by `beta`"):
        await bench.models.rename("alpha", "BETA", actor="t")


async def test_rename_refuses_an_alias_breaking_the_rule(bench: Database) -> None:
    with pytest.raises(Invalid, match="not allowed") as refused:
        await bench.models.rename("alpha", "-alpha", actor="t")
    assert refused.value.field == "new_alias"


async def test_add_refuses_an_old_alias(bench: Database) -> None:
    await bench.models.rename("alpha", "alpha-2", actor="t")
    with pytest.raises(Conflict, match="earlier name"):
        await bench.models.add("alpha", "org/other", "local", actor="t")


async def test_add_refuses_a_served_id_already_on_that_endpoint(bench: Database) -> None:
    with pytest.raises(Conflict, match="already on the bench as `alpha`"):
        await bench.models.add("alpha-again", "org/alpha-7b", "local", actor="t")


async def test_add_on_an_unknown_endpoint_lists_the_endpoints(bench: Database) -> None:
    with pytest.raises(Invalid, match="endpoints: local") as refused:
        await bench.models.add("delta", "org/delta", "nowhere", actor="t")
    assert refused.value.field == "endpoint"


async def test_add_on_an_endpoint_name_with_a_nul_character_is_refused_naming_it(bench: Database) -> None:
    with pytest.raises(Invalid, match="endpoints: local") as refused:
        await bench.models.add("delta", "org/delta", "lo\x00cal", actor="t")
    assert refused.value.field == "endpoint"


async def test_a_served_id_with_a_nul_character_is_refused_naming_it(bench: Database) -> None:
    with pytest.raises(Invalid, match="NUL") as refused:
        await bench.models.add("delta", "org/\x00delta", "local", actor="t")
    assert refused.value.field == "served_id"


async def test_add_keeps_the_facts_set_by_hand(bench: Database) -> None:
    added = await bench.models.add(
        "eyes", "org/eyes", "local", role="vision", context_window=8192, vision=True, tools=False, actor="t"
    )
    info = added.to_info()
    assert (info.role, info.context_window, info.vision, info.tools) == ("vision", 8192, True, False)


@pytest.mark.parametrize(
    ("changes", "field"),
    [
        ({"role": "decision"}, "role"),
        ({"context_window": 0}, "context_window"),
        ({"max_output": "4096"}, "max_output"),
        ({"ad_hoc": "yes"}, "ad_hoc"),
        ({"vision": 1}, "vision"),
        ({"options": ["temperature"]}, "options"),
        ({"served_id": "org/x"}, "served_id"),
    ],
)
async def test_update_refuses_a_value_of_the_wrong_type_or_range(
    bench: Database, changes: dict[str, object], field: str
) -> None:
    with pytest.raises(Invalid) as refused:
        await bench.models.update("alpha", changes, actor="t")
    assert refused.value.field == field


async def test_update_changes_role_ad_hoc_and_options(bench: Database) -> None:
    updated = await bench.models.update(
        "alpha", {"role": "code", "ad_hoc": True, "options": {"temperature": 0.2}}, actor="t"
    )
    assert (updated.role, updated.ad_hoc, updated.options) == ("code", True, {"temperature": 0.2})


async def test_a_retired_model_cannot_be_edited_until_restored(bench: Database) -> None:
    await bench.models.retire("alpha", "", actor="t")
    with pytest.raises(Conflict, match="restore it before editing"):
        await bench.models.update("alpha", {"role": "code"}, actor="t")


async def test_an_unknown_alias_finds_nothing_and_cannot_be_edited(bench: Database) -> None:
    assert await bench.models.get("nobody") is None
    with pytest.raises(NotFound):
        await bench.models.update("nobody", {"role": "code"}, actor="t")


async def test_list_leaves_out_retired_models_unless_asked(bench: Database) -> None:
    await bench.models.retire("beta", "", actor="t")
    assert [model.alias for model in await bench.models.list()] == ["alpha", "gamma"]
    assert [model.alias for model in await bench.models.list(include_retired=True)] == [
        "alpha",
        "beta",
        "gamma",
    ]


async def test_roster_holds_retired_models_and_the_bench_wins_a_shared_alias(bench: Database) -> None:
    await bench.models.retire("beta", "", actor="t")
    await bench.models.add("beta", "org/beta-v2", "local", actor="t")
    await bench.models.retire("gamma", "", actor="t")
    roster = await bench.models.roster()
    assert (roster["beta"].served_id, roster["beta"].retired) == ("org/beta-v2", False)
    assert roster["gamma"].retired
