"""Each model's facts that are not the public catalogs': its listing, what errors taught, overrides,
and the price watch's holds.

Facts are kept per source (`listing`, `learned`, `override`) so the merge in
`catalog.merge` can say where a value came from. Two rules live here
because they guard what is stored: a learned fact is written only when it
is tighter than what was learned before (a smaller context window), and an
override of context window, output limit, vision or tools goes to the
model's own columns, where a person has always set them, so every older
path that reads those columns keeps seeing the person's word.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import Row, and_, delete, insert, select, update
from sqlalchemy.ext.asyncio import AsyncConnection

from panelgate.store.audit import write_audit
from panelgate.store.connections import Connections
from panelgate.store.errors import Invalid
from panelgate.store.model_rows import checked_facts, on_bench, record
from panelgate.store.rules import check_bool, check_int, check_number
from panelgate.store.tables import endpoints, model_facts, models, paid_holds

COLUMN_FACTS = ("context_window", "max_output", "vision", "tools")
"""Facts whose override is a column of `models` (what `PATCH /api/models/{alias}` sets too)."""
OTHER_FACTS = ("structured_output", "reasoning", "price", "limits")
PRICE_PARTS = ("input", "output")
LIMIT_PARTS = ("rpm", "rpd", "tpm", "tpd")
LARGEST_PRICE = 1_000_000.0
"""US dollars per million tokens; far above any real price, low enough to catch a typo of units."""
LARGEST_LIMIT = 10**12


@dataclass(frozen=True)
class FactRecord:
    model_id: int
    fact: str
    source: str
    """listing, learned or override."""
    value: Any
    evidence: str
    at: datetime


@dataclass(frozen=True)
class HoldRecord:
    model_id: int
    state: str
    """held (never called) or allowed (a person allowed it to cost money; never held again)."""
    price: dict[str, float]
    source: str
    since: datetime
    changed_by: str | None


@dataclass(frozen=True)
class HoldCandidate:
    """A model the price watch found free before and priced now."""

    model_id: int
    price: dict[str, float]
    source: str


def check_override(fact: str, value: object) -> Any:
    """The cleaned override of a fact without a column (None clears it)."""
    if value is None:
        return None
    if fact in ("structured_output", "reasoning"):
        return check_bool(value, fact)
    if fact == "price":
        parts = _parts(value, fact, PRICE_PARTS, required=True)
        return {part: check_number(parts[part], f"price.{part}", 0.0, LARGEST_PRICE) for part in PRICE_PARTS}
    if fact == "limits":
        parts = _parts(value, fact, LIMIT_PARTS, required=False)
        limits = {part: check_int(parts[part], f"limits.{part}", 1, LARGEST_LIMIT) for part in parts}
        if not limits:
            raise Invalid(
                "limits must state at least one of rpm, rpd, tpm, tpd (null clears them)", field=fact
            )
        return limits
    raise Invalid(f"`{fact}` is not a model fact", field=fact)


def _parts(value: object, fact: str, names: tuple[str, ...], *, required: bool) -> dict[str, Any]:
    if not isinstance(value, Mapping):
        raise Invalid(f"{fact} must be an object with {', '.join(names)}", field=fact)
    unknown = sorted(str(key) for key in value if key not in names)
    if unknown:
        raise Invalid(f"{fact} takes {', '.join(names)}; not `{unknown[0][:40]}`", field=fact)
    missing = [name for name in names if name not in value]
    if required and missing:
        raise Invalid(f"{fact} needs {', '.join(names)}; `{missing[0]}` is missing", field=fact)
    return {str(key): part for key, part in value.items() if part is not None}


class FactBook:
    def __init__(self, connections: Connections) -> None:
        self._connections = connections

    async def of_models(self, model_ids: Collection[int] | None = None) -> dict[int, list[FactRecord]]:
        """The listing, learned and override facts of these models (None: of every model)."""
        query = select(model_facts)
        if model_ids is not None:
            query = query.where(model_facts.c.model_id.in_(sorted(model_ids)))
        async with self._connections.read() as connection:
            rows = (await connection.execute(query)).all()
        found: dict[int, list[FactRecord]] = {}
        for row in rows:
            found.setdefault(row.model_id, []).append(FactRecord(**row._mapping))
        return found

    async def replace_listing(
        self, listed: Mapping[int, Mapping[str, Any]], evidence: str, now: datetime
    ) -> None:
        """Each model's listing facts become `listed[model_id]` (models left out keep theirs)."""
        if not listed:
            return
        async with self._connections.write() as connection:
            await connection.execute(
                delete(model_facts).where(
                    model_facts.c.source == "listing", model_facts.c.model_id.in_(sorted(listed))
                )
            )
            rows = [
                {
                    "model_id": model_id,
                    "fact": fact,
                    "source": "listing",
                    "value": value,
                    "evidence": evidence,
                    "at": now,
                }
                for model_id, facts in listed.items()
                for fact, value in facts.items()
                if value is not None
            ]
            if rows:
                await connection.execute(insert(model_facts), rows)

    async def learn(
        self, endpoint: str, served_id: str, fact: str, value: int, evidence: str, now: datetime
    ) -> list[str]:
        """Note that `served_id` on `endpoint` takes at most `value` (its `fact`), when that is lower
        than what was learned before; the aliases that learned it."""
        async with self._connections.read() as connection:
            tighter = await _tighter(connection, endpoint, served_id, fact, value)
        if not tighter:
            return []
        async with self._connections.write() as connection:
            learned = []
            for model_id, alias in await _tighter(connection, endpoint, served_id, fact, value):
                where = _fact_key(model_id, fact, "learned")
                await connection.execute(delete(model_facts).where(where))
                await connection.execute(
                    insert(model_facts).values(
                        model_id=model_id, fact=fact, source="learned", value=value, evidence=evidence, at=now
                    )
                )
                learned.append(alias)
            return learned

    async def set_overrides(self, alias: str, changes: Mapping[str, Any], actor: str, now: datetime) -> None:
        """Set (or, with None, clear) the person's word on facts of the model `alias`."""
        columns = checked_facts({k: v for k, v in changes.items() if k in COLUMN_FACTS})
        others = {k: check_override(k, v) for k, v in changes.items() if k not in COLUMN_FACTS}
        async with self._connections.write() as connection:
            row = await on_bench(connection, alias, "editing")
            public = record(row).public()
            before: dict[str, Any] = {k: public[k] for k in columns}
            after: dict[str, Any] = dict(columns)
            if columns:
                await connection.execute(update(models).where(models.c.id == row.id).values(**columns))
            for fact, value in others.items():
                where = _fact_key(row.id, fact, "override")
                old = (await connection.execute(select(model_facts.c.value).where(where))).scalar()
                before[fact], after[fact] = old, value
                await connection.execute(delete(model_facts).where(where))
                if value is not None:
                    await connection.execute(
                        insert(model_facts).values(
                            model_id=row.id,
                            fact=fact,
                            source="override",
                            value=value,
                            evidence=f"set by {actor}",
                            at=now,
                        )
                    )
            changed = [key for key in after if before.get(key) != after[key]]
            if changed:
                await write_audit(
                    connection,
                    actor=actor,
                    entity="model",
                    key=row.alias,
                    action="facts",
                    before={key: before.get(key) for key in changed},
                    after={key: after[key] for key in changed},
                )

    async def holds(self) -> dict[int, HoldRecord]:
        async with self._connections.read() as connection:
            rows = (await connection.execute(select(paid_holds))).all()
        return {row.model_id: HoldRecord(**row._mapping) for row in rows}

    async def hold(self, found: Sequence[HoldCandidate], now: datetime) -> list[int]:
        """Hold each model found turned paid, unless a person already allowed it; the newly held."""
        if not found:
            return []
        async with self._connections.write() as connection:
            known = {
                row.model_id
                for row in (
                    await connection.execute(
                        select(paid_holds.c.model_id).where(
                            paid_holds.c.model_id.in_([c.model_id for c in found])
                        )
                    )
                ).all()
            }
            fresh = [c for c in found if c.model_id not in known]
            for candidate in fresh:
                await connection.execute(
                    insert(paid_holds).values(
                        model_id=candidate.model_id,
                        state="held",
                        price=candidate.price,
                        source=candidate.source,
                        since=now,
                        changed_by=None,
                    )
                )
            return [c.model_id for c in fresh]

    async def allow_paid(self, alias: str, actor: str, now: datetime) -> HoldRecord:
        """Let the model `alias` be called though it costs money, from now on."""
        async with self._connections.write() as connection:
            row = await on_bench(connection, alias, "allowing")
            where = paid_holds.c.model_id == row.id
            found = (await connection.execute(select(paid_holds).where(where))).first()
            if found is None:
                await connection.execute(
                    insert(paid_holds).values(
                        model_id=row.id, state="allowed", price={}, source="", since=now, changed_by=actor
                    )
                )
            elif found.state != "allowed":
                await connection.execute(
                    update(paid_holds).where(where).values(state="allowed", since=now, changed_by=actor)
                )
            if found is None or found.state != "allowed":
                await write_audit(
                    connection,
                    actor=actor,
                    entity="model",
                    key=row.alias,
                    action="allow-paid",
                    before={"held": found is not None},
                    after={"allowed_paid": True},
                )
            held: Row[Any] = (await connection.execute(select(paid_holds).where(where))).one()
        return HoldRecord(**held._mapping)


def _fact_key(model_id: int, fact: str, source: str) -> Any:
    return and_(
        model_facts.c.model_id == model_id, model_facts.c.fact == fact, model_facts.c.source == source
    )


async def _tighter(
    connection: AsyncConnection, endpoint: str, served_id: str, fact: str, value: int
) -> list[tuple[int, str]]:
    """(model id, alias) of the models on the bench served as `served_id` on `endpoint` for which
    `value` is lower than what was learned of `fact` so far (or nothing was)."""
    learned = model_facts.alias("learned")
    query = (
        select(models.c.id, models.c.alias, learned.c.value)
        .select_from(
            models.join(endpoints, models.c.endpoint_id == endpoints.c.id).outerjoin(
                learned,
                and_(
                    learned.c.model_id == models.c.id, learned.c.fact == fact, learned.c.source == "learned"
                ),
            )
        )
        .where(endpoints.c.name == endpoint, models.c.served_id == served_id, models.c.retired_at.is_(None))
    )
    rows = (await connection.execute(query)).all()
    return [
        (row.id, row.alias)
        for row in rows
        if not isinstance(row.value, int) or isinstance(row.value, bool) or value < row.value
    ]
