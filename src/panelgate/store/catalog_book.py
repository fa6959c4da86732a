"""The public catalogs as last read: where each is fetched from, how that went, and every entry.

A refresh replaces a catalog's entries whole in one transaction, so a panel
never sees half of an old list and half of a new one. Entries are kept
rather than only the matches for today's bench, so a model added tomorrow
finds its facts without another fetch. Reading the rules of a match
(`catalog.matching`) is not this module's job: it hands out the entries
sharing a match key.

`catalog_seen` remembers when each (provider, model) was first listed, so
Discover can mark what is new; a row is only ever added, never changed.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import asdict, dataclass, field
from datetime import datetime
from typing import Any

from sqlalchemy import delete, func, insert, select, update
from sqlalchemy.engine import Connection

from panelgate.store.audit import write_audit
from panelgate.store.bulk import insert_rows
from panelgate.store.connections import Connections
from panelgate.store.tables import catalog_entries, catalog_seen, catalog_sources

IN_CHUNK = 500
"""Match keys asked per query (PostgreSQL and SQLite both take this many bound values with room)."""


@dataclass(frozen=True)
class CatalogEntry:
    """One model as one public catalog lists it, its facts in our names (see `catalog.facts`)."""

    source: str
    provider: str
    """The catalog's provider id (models.dev); `openrouter` for every entry of OpenRouter's list."""
    model: str
    """The catalog's own id for the model."""
    match_key: str
    api_host: str
    """The host of the provider's API (models.dev `api`), to tell which provider serves an endpoint."""
    facts: dict[str, Any]
    traits: dict[str, Any] = field(default_factory=dict)
    """What Discover needs beyond facts (name, text output, deprecation, API; `catalog.discover_traits`);
    kept in the `facts` column under `TRAITS_KEY`, so adding them needed no migration."""


TRAITS_KEY = "discover"


def _row(entry: CatalogEntry) -> dict[str, Any]:
    row = asdict(entry)
    traits = row.pop("traits")
    if traits:
        row["facts"] = {**row["facts"], TRAITS_KEY: traits}
    return row


def _entry(mapping: Any) -> CatalogEntry:
    values = dict(mapping)
    facts = dict(values.pop("facts"))
    traits = facts.pop(TRAITS_KEY, None)
    return CatalogEntry(**values, facts=facts, traits=traits if isinstance(traits, dict) else {})


@dataclass(frozen=True)
class SourceState:
    """A public catalog: its address and how its last refresh went (None: never refreshed)."""

    source: str
    url: str | None
    """None: never set (the catalog's default address applies); empty: never fetched."""
    refreshed_at: datetime | None = None
    origin: str = ""
    """fetched, cache (the address failed; the cached file was read) or unavailable."""
    detail: str = ""
    entries: int = 0


class CatalogBook:
    def __init__(self, connections: Connections) -> None:
        self._connections = connections

    async def sources(self) -> dict[str, SourceState]:
        async with self._connections.read() as connection:
            rows = (await connection.execute(select(catalog_sources))).all()
        return {row.source: SourceState(**row._mapping) for row in rows}

    async def set_url(self, source: str, url: str, actor: str) -> None:
        """Fetch `source` from `url` from now on (empty: never fetch it, read its cached file)."""
        async with self._connections.write(edits_config=False) as connection:
            found = (
                await connection.execute(select(catalog_sources).where(catalog_sources.c.source == source))
            ).first()
            if found is None:
                await connection.execute(
                    insert(catalog_sources).values(source=source, url=url, origin="", detail="", entries=0)
                )
            else:
                await connection.execute(
                    update(catalog_sources).where(catalog_sources.c.source == source).values(url=url)
                )
            await write_audit(
                connection,
                actor=actor,
                entity="catalog",
                key=source,
                action="set-url",
                before={"url": None if found is None else found.url},
                after={"url": url},
            )

    async def replace(
        self, state: SourceState, entries: Sequence[CatalogEntry] | None, default_url: str
    ) -> None:
        """Note how `state.source`'s refresh went and, when it was read (`entries` not None), put its
        entries in place of the old ones. Panels re-read the bench after it."""
        rows = None if entries is None else [_row(entry) for entry in entries]
        status = {k: v for k, v in asdict(state).items() if k not in ("source", "url")}
        async with self._connections.write() as connection:
            found = (
                await connection.execute(
                    select(catalog_sources.c.url).where(catalog_sources.c.source == state.source)
                )
            ).first()
            if found is None:
                await connection.execute(
                    insert(catalog_sources).values(source=state.source, url=default_url, **status)
                )
            else:
                await connection.execute(
                    update(catalog_sources).where(catalog_sources.c.source == state.source).values(**status)
                )
            if rows is not None:
                await connection.execute(
                    delete(catalog_entries).where(catalog_entries.c.source == state.source)
                )
                if rows:
                    await connection.execute(insert(catalog_entries), rows)

    async def entries_for(self, keys: Collection[str]) -> list[CatalogEntry]:
        """Every entry of every catalog whose match key is one of `keys`."""
        wanted = sorted(set(keys))
        found: list[CatalogEntry] = []
        async with self._connections.read() as connection:
            for start in range(0, len(wanted), IN_CHUNK):
                chunk = wanted[start : start + IN_CHUNK]
                query = select(catalog_entries).where(catalog_entries.c.match_key.in_(chunk))
                found += [_entry(row._mapping) for row in (await connection.execute(query)).all()]
        return found

    async def every_entry(self) -> list[CatalogEntry]:
        """Every entry of every catalog (Discover lists them all; a few thousand rows)."""
        async with self._connections.read() as connection:
            rows = (await connection.execute(select(catalog_entries))).all()
        return [_entry(row._mapping) for row in rows]

    async def first_seen(self) -> dict[tuple[str, str], datetime | None]:
        """When each (provider, model) was first listed; None: in the first list read (the baseline)."""
        async with self._connections.read() as connection:
            rows = (await connection.execute(select(catalog_seen))).all()
        return {(row.provider, row.model): row.first_seen for row in rows}

    async def any_seen(self) -> bool:
        async with self._connections.read() as connection:
            found = (await connection.execute(select(func.count()).select_from(catalog_seen))).scalar_one()
        return bool(found)

    async def note_seen(self, pairs: Collection[tuple[str, str]], first_seen: datetime | None) -> None:
        """Remember (provider, model) pairs not seen before as first seen at `first_seen` (None: the
        baseline); pairs already known keep their date, even when another refresh wrote them meanwhile."""
        rows = [{"provider": p, "model": m, "first_seen": first_seen} for p, m in sorted(set(pairs))]

        def add(connection: Connection) -> None:
            for start in range(0, len(rows), IN_CHUNK):
                insert_rows(connection, catalog_seen, rows[start : start + IN_CHUNK], on_conflict=())

        if rows:
            await self._connections.write_all_at_once(add)
