"""The two public catalogs as entries: models.dev's `api.json` and OpenRouter's `/api/v1/models`.

models.dev is one object of providers (older copies wrap it in
`providers`), each with its models; OpenRouter's is `{"data": [models]}`.
A model that cannot be read (no id) is skipped, never a reason to drop the
catalog; a document that is not of the expected shape is refused whole
(`UnreadableCatalog`), so a broken download never replaces a good list.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from panelgate.catalog.discover_traits import models_dev_traits, openrouter_traits
from panelgate.catalog.matching import host_of, match_key
from panelgate.catalog.reading import listing_facts, models_dev_facts
from panelgate.store.catalog_book import CatalogEntry

MAX_ID = 300


class UnreadableCatalog(ValueError):
    """A catalog document that is not the shape its source publishes."""


def models_dev_entries(document: Any) -> list[CatalogEntry]:
    providers = document.get("providers", document) if isinstance(document, Mapping) else None
    if not isinstance(providers, Mapping) or not providers:
        raise UnreadableCatalog("models.dev's api.json should be an object of providers")
    found: dict[tuple[str, str], CatalogEntry] = {}
    for provider_id, provider in providers.items():
        if not isinstance(provider, Mapping) or not isinstance(provider.get("models"), Mapping):
            continue
        name = str(provider.get("id") or provider_id)[:MAX_ID]
        api = provider.get("api")
        host = host_of(api) if isinstance(api, str) else ""
        for model_id, model in provider["models"].items():
            if not isinstance(model, Mapping):
                continue
            model_name = str(model.get("id") or model_id)[:MAX_ID]
            found[(name, model_name)] = CatalogEntry(
                source="models.dev",
                provider=name,
                model=model_name,
                match_key=match_key(model_name),
                api_host=host,
                facts=models_dev_facts(model),
                traits=models_dev_traits(provider, model),
            )
    if not found:
        raise UnreadableCatalog("models.dev's api.json lists no models")
    return list(found.values())


def openrouter_entries(document: Any) -> list[CatalogEntry]:
    listed = document.get("data") if isinstance(document, Mapping) else None
    if not isinstance(listed, list):
        raise UnreadableCatalog("OpenRouter's model list should be an object with a `data` list")
    found: dict[str, CatalogEntry] = {}
    for model in listed:
        if not isinstance(model, Mapping) or not isinstance(model.get("id"), str) or not model["id"].strip():
            continue
        model_id = model["id"].strip()[:MAX_ID]
        found[model_id] = CatalogEntry(
            source="openrouter",
            provider="openrouter",
            model=model_id,
            match_key=match_key(model_id),
            api_host="openrouter.ai",
            facts=listing_facts(model),
            traits=openrouter_traits(model),
        )
    if not found:
        raise UnreadableCatalog("OpenRouter's model list lists no models")
    return list(found.values())
