"""Getting a public catalog's document: fetched from its address, else read from the cached copy.

Each fetched document that reads as a catalog is written to the data folder
(`<data>/catalog/<source>.json`, replaced whole, never half-written), so a
gateway that cannot reach the internet (offline, firewalled, or a source
that is down) still has the last good copy, and an operator of an
air-gapped install can drop the files there by hand. An empty address
means "never fetch": only the cached file is read. Redirects are followed
(no credential is sent to a catalog); a document over `MAX_BYTES` is
refused.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson

from panelgate.catalog.facts import Source
from panelgate.catalog.public_lists import UnreadableCatalog, models_dev_entries, openrouter_entries
from panelgate.core.files import write_atomically
from panelgate.store.catalog_book import CatalogEntry

DEFAULT_URLS: dict[Source, str] = {
    "models.dev": "https://models.dev/api.json",
    "openrouter": "https://openrouter.ai/api/v1/models",
}
READERS: dict[Source, Callable[[Any], list[CatalogEntry]]] = {
    "models.dev": models_dev_entries,
    "openrouter": openrouter_entries,
}
FETCH_TIMEOUT_S = 30.0
MAX_BYTES = 64 * 1024 * 1024


@dataclass(frozen=True)
class Feed:
    """How getting one catalog went: `origin` fetched, cache or unavailable (then `entries` is None)."""

    source: Source
    origin: str
    detail: str
    entries: list[CatalogEntry] | None


def cache_file(cache_dir: Path, source: Source) -> Path:
    return cache_dir / f"{source}.json"


async def read_feed(source: Source, url: str, cache_dir: Path) -> Feed:
    """`source`'s entries: fetched from `url` when it answers with a catalog, else from the cache."""
    reader = READERS[source]
    why = "not fetched: its address is empty"
    if url:
        import httpx  # when a catalog is first read (daily, or on a person's refresh), not at start

        try:
            body = await _fetch(url)
            entries = reader(orjson.loads(body))
        except (httpx.HTTPError, OSError, ValueError, _TooLarge) as exc:  # orjson and readers: ValueError
            why = f"could not fetch {url}: {_said(exc)}"
        else:
            await asyncio.to_thread(write_atomically, cache_file(cache_dir, source), body)
            return Feed(source, "fetched", f"{len(entries):,} models from {url}", entries)
    cached = cache_file(cache_dir, source)
    try:
        entries = reader(orjson.loads(await asyncio.to_thread(cached.read_bytes)))
    except FileNotFoundError:
        return Feed(source, "unavailable", f"{why}; no cached copy at {cached}", None)
    except (OSError, ValueError) as exc:
        return Feed(source, "unavailable", f"{why}; the cached copy is unreadable: {_said(exc)}", None)
    return Feed(source, "cache", f"{why}; read {len(entries):,} models from the cached copy", entries)


class _TooLarge(Exception):
    pass


async def _fetch(url: str) -> bytes:
    import httpx

    async with (
        httpx.AsyncClient(timeout=FETCH_TIMEOUT_S, follow_redirects=True, trust_env=False) as client,
        client.stream("GET", url, headers={"accept": "application/json"}) as reply,
    ):
        reply.raise_for_status()
        parts, size = [], 0
        async for data in reply.aiter_bytes():
            size += len(data)
            if size > MAX_BYTES:
                raise _TooLarge(f"the document passed {MAX_BYTES:,} bytes")
            parts.append(data)
    return b"".join(parts)


def _said(exc: BaseException) -> str:
    if isinstance(exc, UnreadableCatalog):
        return str(exc)
    import httpx

    if isinstance(exc, httpx.HTTPStatusError):
        return f"HTTP {exc.response.status_code}"
    text = str(exc) or type(exc).__name__
    return text if len(text) <= 200 else text[:199] + "…"
