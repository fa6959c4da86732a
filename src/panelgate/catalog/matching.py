"""Which public catalog entry describes a model on the bench.

A bench model is a served id on an endpoint: `gpt-4o` on OpenAI,
`openai/gpt-4o` on OpenRouter or a hub, `meta-llama/llama-3.3-70b-instruct:free`,
`models/gemini-2.0-flash`. Catalogs name the same model their own way, so
entries are found by a *match key*: the served id lower-cased, a variant tag
that only changes price or routing (`:free`, `:beta`, `:nitro`, `:latest`, …)
dropped, and only its last `/` segment kept. Among the entries sharing the
key, the one chosen is, in this order:

1. an entry of the provider that **serves** the model: the catalog's provider
   id is the endpoint's name (an endpoint named `groq`), or the provider's API
   host (models.dev `api`, or the few well-known hosts below) is the
   endpoint's host; OpenRouter's list serves endpoints on `openrouter.ai`;
2. an entry whose id is the served id exactly (`openai/gpt-4o`, or the
   provider and model joined by `/`);
3. an entry of the provider the served id names as its vendor
   (`openai/...` → provider `openai`);
4. then by provider and id, so the choice never changes between reads.

Price and limits differ between providers of the same model (a model free on
one is paid on another), so they are taken only from an entry of the
serving provider; the other facts describe the model and are taken from
whichever entry was chosen.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from urllib.parse import urlsplit

from panelgate.store.catalog_book import CatalogEntry

VARIANT_TAGS = (
    ":free",
    ":beta",
    ":extended",
    ":thinking",
    ":nitro",
    ":floor",
    ":online",
    ":exacto",
    ":latest",
)
KNOWN_HOSTS = {
    "api.openai.com": "openai",
    "api.anthropic.com": "anthropic",
    "generativelanguage.googleapis.com": "google",
    "openrouter.ai": "openrouter",
    "api.groq.com": "groq",
    "api.mistral.ai": "mistral",
    "api.deepseek.com": "deepseek",
    "api.x.ai": "xai",
}
"""Providers whose catalog entry may not state its API host."""
PROVIDER_ONLY = ("price", "limits")
"""Facts taken only from the serving provider's entry."""


def match_key(model_id: str) -> str:
    """`meta-llama/Llama-3.3-70B-Instruct:free` → `llama-3.3-70b-instruct`."""
    key = model_id.strip().lower()
    for tag in VARIANT_TAGS:
        if key.endswith(tag):
            key = key[: -len(tag)]
            break
    return key.rstrip("/").rsplit("/", 1)[-1]


def host_of(base_url: str) -> str:
    try:
        return (urlsplit(base_url).hostname or "").lower()
    except ValueError:
        return ""


@dataclass(frozen=True)
class Where:
    """Where a bench model is served: what matching needs to know of it."""

    served_id: str
    endpoint: str
    host: str


@dataclass(frozen=True)
class Match:
    entry: CatalogEntry
    serving: bool
    """The entry is the serving provider's: its price and limits count."""

    def facts(self) -> dict[str, object]:
        return {
            fact: value
            for fact, value in self.entry.facts.items()
            if value is not None and (self.serving or fact not in PROVIDER_ONLY)
        }

    def named(self) -> str:
        """The entry as a person finds it in the catalog: `provider/model` (OpenRouter: its id)."""
        if self.entry.source == "openrouter":
            return self.entry.model
        return f"{self.entry.provider}/{self.entry.model}"


def serves(entry: CatalogEntry, where: Where) -> bool:
    provider = entry.provider.lower()
    return provider == where.endpoint.lower() or bool(
        where.host and (where.host == entry.api_host.lower() or KNOWN_HOSTS.get(where.host) == provider)
    )


def best_match(where: Where, entries: Iterable[CatalogEntry]) -> Match | None:
    """The entry (of one catalog) that describes the model served at `where`, or None."""
    key = match_key(where.served_id)
    served = where.served_id.strip().lower()
    vendor = served.split("/", 1)[0] if "/" in served else ""
    candidates = [entry for entry in entries if entry.match_key == key]
    if not candidates:
        return None

    def rank(entry: CatalogEntry) -> tuple[bool, bool, bool, str, str]:
        model, provider = entry.model.lower(), entry.provider.lower()
        exact = served in (model, f"{provider}/{model}")
        return (not serves(entry, where), not exact, provider != vendor, provider, model)

    chosen = min(candidates, key=rank)
    return Match(chosen, serves(chosen, where))
