"""Reading the public catalogs and endpoint listings into our fact names."""

from __future__ import annotations

import pytest

from panelgate.catalog.public_lists import UnreadableCatalog, models_dev_entries, openrouter_entries
from panelgate.catalog.reading import listing_facts
from tests.catalog.loopback import models_dev, openrouter


def test_models_dev_entries_carry_window_output_vision_tools_and_price_per_million() -> None:
    entries = {(e.provider, e.model): e for e in models_dev_entries(models_dev())}
    gpt = entries[("openai", "gpt-4o")]
    assert gpt.facts == {
        "context_window": 128_000, "max_output": 16_384, "vision": True, "tools": True,
        "structured_output": True, "reasoning": False, "price": {"input": 2.5, "output": 10.0},
    }  # fmt: skip
    assert entries[("deepseek", "deepseek-chat")].api_host == "api.deepseek.com"
    assert entries[("groq", "qwen-qwq-32b")].facts["reasoning"] is True


def test_openrouter_prices_per_token_become_per_million_and_a_router_has_no_price() -> None:
    entries = {e.model: e for e in openrouter_entries(openrouter())}
    gpt = entries["openai/gpt-4o"].facts
    assert gpt["price"] == {"input": 2.5, "output": 10.0}
    assert (gpt["context_window"], gpt["max_output"], gpt["vision"], gpt["tools"]) == (
        128_000,
        16_384,
        True,
        True,
    )
    assert gpt["structured_output"] is True and gpt["reasoning"] is False
    assert "price" not in entries["openrouter/auto"].facts, "-1 means 'depends', not a price"
    assert "max_output" not in entries["deepseek/deepseek-chat-v3-0324:free"].facts


def test_listings_in_other_providers_words() -> None:
    groq = {"id": "llama-3.3-70b-versatile", "context_window": 131072, "max_completion_tokens": 32768}
    mistral = {
        "id": "pixtral",
        "max_context_length": 131072,
        "capabilities": {"vision": True, "function_calling": True},
    }
    together = {"id": "x", "context_length": 8192, "pricing": {"input": 0.88, "output": 0.88}}
    bare = {"id": "m1", "object": "model", "owned_by": "fake"}
    assert listing_facts(groq) == {"context_window": 131072, "max_output": 32768}
    assert listing_facts(mistral) == {"context_window": 131072, "vision": True, "tools": True}
    assert listing_facts(together)["price"] == {"input": 0.88, "output": 0.88}
    assert listing_facts(bare) == {}, (
        "a listing that states nothing teaches nothing (an absent price is unknown)"
    )


@pytest.mark.parametrize("document", [[], {}, {"data": "x"}, {"providers": {}}, "text"])
def test_a_document_of_the_wrong_shape_is_refused_whole(document: object) -> None:
    with pytest.raises(UnreadableCatalog):
        models_dev_entries(document)
    with pytest.raises(UnreadableCatalog):
        openrouter_entries(document)
