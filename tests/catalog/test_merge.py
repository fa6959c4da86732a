"""The merge order: override > learned (only when tighter) > listing > models.dev > openrouter."""

from __future__ import annotations

from panelgate.catalog.facts import Known
from panelgate.catalog.merge import merge_fact, merge_facts


def test_the_listing_beats_the_public_catalogs_and_models_dev_beats_openrouter() -> None:
    words = [
        Known("context_window", "openrouter", 200_000),
        Known("context_window", "models.dev", 128_000),
        Known("context_window", "listing", 64_000),
    ]
    merged = merge_fact("context_window", words)
    assert (merged.value, merged.chosen and merged.chosen.source) == (64_000, "listing")
    merged = merge_fact("context_window", words[:2])
    assert (merged.value, merged.chosen and merged.chosen.source) == (128_000, "models.dev")


def test_a_learned_window_replaces_the_catalogs_only_when_it_is_smaller() -> None:
    catalog = Known("context_window", "models.dev", 128_000)
    smaller = merge_fact("context_window", [catalog, Known("context_window", "learned", 8_192)])
    larger = merge_fact(
        "context_window",
        [Known("context_window", "models.dev", 4_096), Known("context_window", "learned", 8_192)],
    )
    assert (smaller.value, smaller.chosen and smaller.chosen.source) == (8_192, "learned")
    assert (larger.value, larger.chosen and larger.chosen.source) == (4_096, "models.dev")
    assert [w.source for w in larger.known] == ["learned", "models.dev"], "the learned word is still shown"


def test_a_learned_window_stands_alone_when_no_catalog_knows_one() -> None:
    merged = merge_fact("context_window", [Known("context_window", "learned", 8_192)])
    assert merged.value == 8_192


def test_a_learned_value_never_changes_a_fact_that_can_only_be_stated() -> None:
    merged = merge_fact("vision", [Known("vision", "models.dev", True), Known("vision", "learned", False)])
    assert merged.value is True


def test_an_override_wins_over_everything_and_keeps_what_it_replaced() -> None:
    merged = merge_fact(
        "context_window",
        [
            Known("context_window", "models.dev", 128_000),
            Known("context_window", "learned", 8_192),
            Known("context_window", "override", 200_000),
        ],
    )
    assert (merged.value, merged.chosen and merged.chosen.source) == (200_000, "override")
    assert merged.overridden is not None and (merged.overridden.source, merged.overridden.value) == (
        "learned",
        8_192,
    )


def test_an_override_of_a_fact_nobody_knew_replaces_nothing() -> None:
    merged = merge_fact("reasoning", [Known("reasoning", "override", True)])
    assert merged.value is True and merged.overridden is None


def test_unknown_facts_merge_to_none_and_every_fact_is_answered() -> None:
    merged = merge_facts([Known("tools", "openrouter", True)])
    assert merged["tools"].value is True
    assert merged["price"].value is None and merged["price"].chosen is None
    assert len(merged) == 8


def test_a_price_is_taken_whole_from_one_source() -> None:
    merged = merge_fact(
        "price",
        [
            Known("price", "openrouter", {"input": 0.0, "output": 0.0}),
            Known("price", "models.dev", {"input": 0.59, "output": 0.79}),
        ],
    )
    assert merged.value == {"input": 0.59, "output": 0.79}
