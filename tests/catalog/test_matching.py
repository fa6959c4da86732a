"""Matching a bench model to public catalog entries: by served id, provider prefixes and variant tags."""

from __future__ import annotations

from panelgate.catalog.matching import Where, best_match, match_key
from panelgate.catalog.public_lists import models_dev_entries, openrouter_entries
from tests.catalog.loopback import models_dev, openrouter

MODELS_DEV = models_dev_entries(models_dev())
OPENROUTER = openrouter_entries(openrouter())


def test_match_keys_drop_the_vendor_path_case_and_variant_tags() -> None:
    assert match_key("meta-llama/Llama-3.3-70B-Instruct:free") == "llama-3.3-70b-instruct"
    assert match_key("openai/gpt-4o") == match_key("gpt-4o") == "gpt-4o"
    assert match_key("models/gemini-2.0-flash") == "gemini-2.0-flash"
    assert match_key("llama3.1:8b") == "llama3.1:8b", "a size tag is part of the model"


def test_the_serving_provider_is_known_by_the_endpoint_name_and_its_entry_gives_the_price() -> None:
    match = best_match(Where("llama-3.3-70b-versatile", "groq", "127.0.0.1"), MODELS_DEV)
    assert match is not None and match.serving and match.named() == "groq/llama-3.3-70b-versatile"
    assert match.facts()["price"] == {"input": 0.59, "output": 0.79}


def test_the_serving_provider_is_known_by_its_api_host() -> None:
    match = best_match(Where("deepseek-chat", "my-deepseek", "api.deepseek.com"), MODELS_DEV)
    assert match is not None and match.serving and match.named() == "deepseek/deepseek-chat"


def test_another_providers_entry_fills_facts_but_never_the_price() -> None:
    match = best_match(Where("openai/gpt-4o", "hub", "127.0.0.1"), MODELS_DEV)
    assert match is not None and not match.serving and match.named() == "openai/gpt-4o"
    facts = match.facts()
    assert facts["context_window"] == 128_000 and facts["vision"] is True
    assert "price" not in facts


def test_an_exact_openrouter_id_beats_its_free_or_paid_twin() -> None:
    on_openrouter = Where("deepseek/deepseek-chat-v3-0324:free", "openrouter", "127.0.0.1")
    match = best_match(on_openrouter, OPENROUTER)
    assert match is not None and match.entry.model == "deepseek/deepseek-chat-v3-0324:free" and match.serving
    assert match.facts()["price"] == {"input": 0.0, "output": 0.0}
    paid = best_match(Where("deepseek/deepseek-chat-v3-0324", "openrouter", "openrouter.ai"), OPENROUTER)
    assert paid is not None and paid.facts()["price"] == {"input": 0.25, "output": 0.85}


def test_no_entry_shares_the_key_so_nothing_matches() -> None:
    assert best_match(Where("m1", "up", "127.0.0.1"), MODELS_DEV) is None
