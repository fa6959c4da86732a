"""Export everything a person edits as one YAML file, and import such a file.

Export is stable (sorted by name or alias) so two exports of the same state
are the same text, and an export imported into an empty database exports
the same again. Import adds and updates, never removes or retires: it checks
the whole file against the database first, refuses it whole with `Invalid`
naming the first problem, then writes everything in one transaction with an
audit row per change. Header values an older export still holds are handed
to the key store (`keep`) and the rows name their keys instead.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import asdict
from functools import partial
from itertools import pairwise
from typing import Any

from sqlalchemy import insert, select, update
from sqlalchemy.ext.asyncio import AsyncConnection

from panelgate.core.types import CollectionInfo
from panelgate.store import collections as collection_rows
from panelgate.store import endpoints as endpoint_rows
from panelgate.store.audit import changed, write_audit
from panelgate.store.config_doc import (
    VERSION,
    Document,
    EndpointEntry,
    ModelEntry,
    dump,
    exported_model,
    located,
    parse,
)
from panelgate.store.connections import Connections
from panelgate.store.errors import Invalid
from panelgate.store.gateway import decision_model_on_bench, read_limits, write_limits
from panelgate.store.header_keys import KeepSecret
from panelgate.store.model_rows import former_aliases, record, select_models
from panelgate.store.records import ModelRecord
from panelgate.store.tables import alias_history, collections, endpoints, models, utcnow

SECTIONS = ("gateway", "endpoints", "models", "collections")


async def _all_models(connection: AsyncConnection) -> list[ModelRecord]:
    rows = (await connection.execute(select_models())).all()
    former = await former_aliases(connection, [row.id for row in rows])
    return [record(row, former.get(row.id, ())) for row in rows]


def _match(entry: ModelEntry, existing: list[ModelRecord]) -> ModelRecord | None:
    """The stored model an entry describes: same alias, and the same retirement time when retired."""
    at = None if entry.retired is None else entry.retired.at
    return next((model for model in existing if model.alias == entry.alias and model.retired_at == at), None)


def _check_models(document: Document, existing: list[ModelRecord], endpoint_names: set[str]) -> None:
    """What only the database can tell: endpoints exist, aliases and served ids are free."""
    for index, entry in enumerate(document.models):
        place = f"models[{index}]"
        if entry.retired is None and entry.endpoint not in endpoint_names:
            raise Invalid(
                f"{place}: no endpoint `{entry.endpoint}` in the file or the database", field="endpoint"
            )
        match = _match(entry, existing)
        others = [model for model in existing if model is not match]
        names = {entry.alias.lower()} if match is None and entry.retired is None else set()
        names |= {
            alias.lower() for alias in entry.former if match is None or alias not in match.former_aliases
        }
        for model in others:
            taken = {alias.lower() for alias in model.former_aliases}
            taken |= {model.alias.lower()} if not model.retired else set()
            if names & taken:
                raise Invalid(f"{place}: an alias of `{entry.alias}` is already used by `{model.alias}`")
            same_served = (model.endpoint, model.served_id) == (entry.endpoint, entry.served_id)
            if same_served and not model.retired and entry.retired is None:
                raise Invalid(
                    f"{place}: `{entry.served_id}` on `{entry.endpoint}` is on the bench as `{model.alias}`"
                )


class ConfigIO:
    def __init__(self, connections: Connections) -> None:
        self._connections = connections

    async def export_yaml(self) -> str:
        async with self._connections.read() as connection:
            limits = await read_limits(connection)
            endpoint_list = (await connection.execute(select(endpoints).order_by(endpoints.c.name))).all()
            model_list = await _all_models(connection)
            collection_list = (
                await connection.execute(select(collections).order_by(collections.c.name))
            ).all()
        model_list.sort(key=lambda model: (model.alias, model.retired, model.retired_at or model.created_at))
        return dump(
            {
                "version": VERSION,
                "gateway": asdict(limits),
                "endpoints": [endpoint_rows.record(row).public() for row in endpoint_list],
                "models": [exported_model(model) for model in model_list],
                "collections": [collection_rows.public(collection_rows.info(row)) for row in collection_list],
            }
        )

    async def import_yaml(
        self, text: str, actor: str, keep: KeepSecret | None = None
    ) -> dict[str, dict[str, int]]:
        """Add and update from an exported file; per section, how many were added, changed, unchanged.

        `keep` takes the header values an older export holds (refused without it).
        """
        document = parse(text)
        async with self._connections.write() as connection:
            existing = await _all_models(connection)
            checked = await _check_against_store(connection, document, existing)
            _keep_header_values(document, keep)
            summary = await _write_all(connection, document, existing, checked, actor)
            await write_audit(
                connection, actor=actor, entity="config", key="yaml", action="import", after=summary
            )
        return summary


def _keep_header_values(document: Document, keep: KeepSecret | None) -> None:
    """Hand the header values an older export holds to the key store; without one, refuse them."""
    for index, entry in enumerate(document.endpoints):
        if not entry.header_values:
            continue
        if keep is None:
            raise Invalid(
                f"endpoints[{index}].headers: header values are secrets and go to the key store, "
                "which this import cannot reach; name each header's key instead ({key_name: ...})",
                field="headers",
            )
        for key_name, value in entry.header_values.items():
            keep(key_name, value)


async def _check_against_store(
    connection: AsyncConnection, document: Document, existing: list[ModelRecord]
) -> list[CollectionInfo]:
    """Refuse what clashes with the database; returns the document's collections, checked."""
    stored_endpoints = set((await connection.execute(select(endpoints.c.name))).scalars())
    _check_models(document, existing, stored_endpoints | {entry.name for entry in document.endpoints})
    bench = {model.alias for model in existing if not model.retired}
    bench |= {entry.alias for entry in document.models if entry.retired is None}
    located("gateway", partial(decision_model_on_bench, document.gateway, bench))
    return [
        located(f"collections[{index}]", partial(collection_rows.checked, info, bench))
        for index, info in enumerate(document.collections)
    ]


async def _write_all(
    connection: AsyncConnection,
    document: Document,
    existing: list[ModelRecord],
    checked: list[CollectionInfo],
    actor: str,
) -> dict[str, dict[str, int]]:
    counts = {section: Counter({"added": 0, "changed": 0, "unchanged": 0}) for section in SECTIONS}
    changed_limits = await write_limits(connection, document.gateway, actor, "import")
    counts["gateway"]["changed" if changed_limits else "unchanged"] += 1
    for endpoint in document.endpoints:
        counts["endpoints"][await _import_endpoint(connection, endpoint, actor)] += 1
    for model in document.models:
        counts["models"][await _import_model(connection, model, _match(model, existing), actor)] += 1
    for collection in checked:
        counts["collections"][await collection_rows.write(connection, collection, actor, imported=True)] += 1
    return {section: dict(count) for section, count in counts.items()}


async def _import_endpoint(connection: AsyncConnection, entry: EndpointEntry, actor: str) -> str:
    row = await endpoint_rows.find(connection, entry.name)
    if row is None:
        await endpoint_rows.insert_endpoint(connection, entry.name, entry.fields, entry.default)
        after = endpoint_rows.record(await endpoint_rows.require(connection, entry.name)).public()
        await write_audit(
            connection, actor=actor, entity="endpoint", key=entry.name, action="import", after=after
        )
        return "added"
    wanted = {**entry.fields, "default": True} if entry.default else entry.fields
    before, after = changed(endpoint_rows.record(row).public(), wanted)
    if not after:
        return "unchanged"
    if after.pop("default", False):
        await connection.execute(update(endpoints).where(endpoints.c.is_default).values(is_default=False))
        after["is_default"] = True
    await connection.execute(
        update(endpoints).where(endpoints.c.id == row.id).values(updated_at=utcnow(), **after)
    )
    await write_audit(
        connection,
        actor=actor,
        entity="endpoint",
        key=entry.name,
        action="import",
        before=before,
        after=after,
    )
    return "changed"


async def _import_model(
    connection: AsyncConnection, entry: ModelEntry, match: ModelRecord | None, actor: str
) -> str:
    wanted = entry.as_dict()
    current = exported_model(match) if match is not None else {}
    before, after = changed(current, wanted)
    if not after:
        return "unchanged"
    endpoint = await endpoint_rows.find(connection, entry.endpoint)
    retired = entry.retired
    values: dict[str, Any] = {
        "alias": entry.alias,
        "served_id": entry.served_id,
        "endpoint_id": None if endpoint is None else endpoint.id,
        **entry.facts,
        "retired_at": None if retired is None else retired.at,
        "retired_by": None if retired is None else retired.by,
        "retired_why": "" if retired is None else retired.why,
        "restore": None if retired is None else {"endpoint": entry.endpoint, **retired.where},
    }
    if match is None:
        inserted = await connection.execute(
            insert(models).values(created_at=utcnow(), **values).returning(models.c.id)
        )
        model_id = inserted.scalar_one()
    else:
        model_id = match.id
        await connection.execute(update(models).where(models.c.id == model_id).values(**values))
    known = () if match is None else match.former_aliases
    chain = [*entry.former, entry.alias]
    for old, new in pairwise(chain):
        if old not in known:
            await connection.execute(
                insert(alias_history).values(model_id=model_id, old_alias=old, new_alias=new, at=utcnow())
            )
    action_before = None if match is None else before
    await write_audit(
        connection,
        actor=actor,
        entity="model",
        key=entry.alias,
        action="import",
        before=action_before,
        after=after,
    )
    return "added" if match is None else "changed"
