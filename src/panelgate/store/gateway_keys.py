"""Gateway keys: who may call the gateway, on which collections, at what rate, within what budget.

A key is `pgk_` and 32 random bytes (URL-safe base64), shown once when it is
made. The database keeps only its SHA-256 and its last four characters, so a
copy of the database, an export or an audit row holds nothing a caller could
use. `find` runs on every gateway request, so it takes the inline read path
(`Connections.read_all_at_once`) like route mode's lookups; `touch` records
last use at most once a minute per key, so using a key is not a write per
request. Deciding whether a request may go ahead is the auth layer's job:
this module only answers "which key is this, and what was it given".
"""

from __future__ import annotations

import hashlib
import re
import secrets
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import insert, or_, select, update
from sqlalchemy.engine import Connection
from sqlalchemy.ext.asyncio import AsyncConnection

from panelgate.core.caller_scope import OPEN_SCOPE, CallerScope
from panelgate.store.audit import write_audit
from panelgate.store.bulk import select_rows
from panelgate.store.connections import Connections
from panelgate.store.errors import Conflict, Invalid, NotFound
from panelgate.store.rules import (
    check_bool,
    check_name,
    check_number,
    check_optional_int,
    check_required_text,
)
from panelgate.store.tables import collections as collections_table
from panelgate.store.tables import gateway_keys, utcnow

KEY_PREFIX = "pgk_"
KEY_PATTERN = re.compile(r"^pgk_[A-Za-z0-9_-]{43}$")
"""Every key this module makes; text that does not match is malformed, not merely unknown."""
MAX_NAME = 80
MAX_RPM = 100_000
MAX_TOKENS = 10**12
MIN_COST, MAX_COST = 0.0001, 1_000_000.0
"""US dollars a budget may be set to: from a hundredth of a cent to a million."""
TOUCH_EVERY = timedelta(minutes=1)
_LARGEST_ID = 2**31 - 1  # the integer column's range on PostgreSQL
RESERVED_NAMES = frozenset({OPEN_SCOPE.name, "admin", "-", "scheduler", "onboarding", "auto"})
"""Names the gateway itself records as a caller or actor, so no key may take one: `local` (no key),
`admin` (the admin token or login), `-` (the access log's "nobody"), and the scheduler's, onboarding's
and auto-retire's own calls and edits."""


def looks_like_key(text: str) -> bool:
    """True when `text` has the shape of a gateway key (it may still be unknown or revoked)."""
    return KEY_PATTERN.fullmatch(text) is not None


def key_hash(plaintext: str) -> str:
    """What the database keeps of a key: the SHA-256 of its whole text, as hex."""
    return hashlib.sha256(plaintext.encode()).hexdigest()


@dataclass(frozen=True)
class Budgets:
    """What a key may spend per UTC day and calendar month (UTC); None means no limit."""

    tokens_per_day: int | None = None
    tokens_per_month: int | None = None
    cost_per_day: float | None = None
    """US dollars."""
    cost_per_month: float | None = None

    @property
    def any(self) -> bool:
        """Whether any budget is set (read on every request of the key, so no loop)."""
        return not (
            self.tokens_per_day is None
            and self.tokens_per_month is None
            and self.cost_per_day is None
            and self.cost_per_month is None
        )

    def as_dict(self) -> dict[str, int | float | None]:
        return {name: getattr(self, name) for name in BUDGET_FIELDS}


BUDGET_FIELDS = ("tokens_per_day", "tokens_per_month", "cost_per_day", "cost_per_month")
LIMIT_FIELDS = ("rpm", *BUDGET_FIELDS)
"""What `set_limits` may change."""


def checked_budgets(values: Mapping[str, object]) -> Budgets:
    """The budgets in `values` (absent or null: no limit), each in its range."""
    return Budgets(
        tokens_per_day=check_optional_int(values.get("tokens_per_day"), "tokens_per_day", 1, MAX_TOKENS),
        tokens_per_month=check_optional_int(
            values.get("tokens_per_month"), "tokens_per_month", 1, MAX_TOKENS
        ),
        cost_per_day=_checked_cost(values.get("cost_per_day"), "cost_per_day"),
        cost_per_month=_checked_cost(values.get("cost_per_month"), "cost_per_month"),
    )


def _checked_cost(value: object, field: str) -> float | None:
    return None if value is None else check_number(value, field, MIN_COST, MAX_COST)


@dataclass(frozen=True)
class GatewayKeyRecord:
    """A gateway key as stored: never its text or hash, only the hint (its last four characters)."""

    id: int
    name: str
    hint: str
    collections: tuple[str, ...] | None
    """The collections the key may use; None means every collection."""
    rpm: int | None
    """Requests per minute the key may make; None means no limit."""
    ad_hoc: bool
    """Whether the key may seat ad hoc models by naming them in `with`."""
    created_at: datetime
    last_used_at: datetime | None
    """Recorded at most once a minute per process, so up to a minute behind."""
    revoked_at: datetime | None
    budgets: Budgets = Budgets()

    @property
    def revoked(self) -> bool:
        return self.revoked_at is not None

    def scope(self) -> CallerScope:
        collections = None if self.collections is None else frozenset(self.collections)
        return CallerScope(name=self.name, collections=collections, ad_hoc=self.ad_hoc, key_id=self.id)


def _record(row: Mapping[str, Any]) -> GatewayKeyRecord:
    scope = row["collections"]
    return GatewayKeyRecord(
        id=row["id"],
        name=row["name"],
        hint=row["hint"],
        collections=None if scope is None else tuple(scope),
        rpm=row["rpm"],
        ad_hoc=bool(row["ad_hoc"]),
        created_at=row["created_at"],
        last_used_at=row["last_used_at"],
        revoked_at=row["revoked_at"],
        budgets=Budgets(
            row["tokens_per_day"], row["tokens_per_month"], row["cost_per_day"], row["cost_per_month"]
        ),
    )


def _audited(record: GatewayKeyRecord) -> dict[str, Any]:
    """What an audit row shows of a key: never its text or hash."""
    return {
        "name": record.name,
        "hint": record.hint,
        "collections": None if record.collections is None else list(record.collections),
        "rpm": record.rpm,
        "ad_hoc": record.ad_hoc,
        **record.budgets.as_dict(),
    }


def _checked_scope(value: object, existing: set[str]) -> tuple[str, ...] | None:
    """None (every collection) or a non-empty list of collection names that exist."""
    if value is None:
        return None
    if isinstance(value, str) or not isinstance(value, Sequence) or not value:
        raise Invalid(
            "collections must be a non-empty list of collection names, or null for every collection",
            field="collections",
        )
    names = tuple(check_name(name, "collection", field="collections") for name in value)
    if len(set(names)) != len(names):
        raise Invalid("collections must not repeat a name", field="collections")
    missing = [name for name in names if name not in existing]
    if missing:
        raise Invalid(
            f"no collection named {', '.join(f'`{name}`' for name in missing)}; "
            "create it first, or check the name",
            field="collections",
        )
    return names


async def _collection_names(connection: AsyncConnection) -> set[str]:
    return set((await connection.execute(select(collections_table.c.name))).scalars())


async def _checked_new_name(connection: AsyncConnection, name: str) -> str:
    """A new key's name: not one the gateway uses itself, nor one an active key has (case aside).

    The name is what logs, the ledger and the dashboard show of a caller, so two
    keys named alike, or a key named `local`, would be told apart by nobody.
    Keys made before this rule keep their names; their records follow their ids.
    """
    folded = name.casefold()
    if folded in RESERVED_NAMES:
        reserved = ", ".join(f"`{word}`" for word in sorted(RESERVED_NAMES))
        raise Invalid(
            f"`{name}` is a name the gateway uses itself ({reserved}); choose another", field="name"
        )
    active = select(gateway_keys.c.name).where(gateway_keys.c.revoked_at.is_(None))
    if any(other.casefold() == folded for other in (await connection.execute(active)).scalars()):
        raise Conflict(
            f"an active gateway key is already named `{name}`; choose another name, or revoke that key first",
            field="name",
        )
    return name


async def _find_by_id(connection: AsyncConnection, key_id: int) -> GatewayKeyRecord | None:
    if not 1 <= key_id <= _LARGEST_ID:
        return None
    row = (await connection.execute(select(gateway_keys).where(gateway_keys.c.id == key_id))).first()
    return None if row is None else _record(dict(row._mapping))


class GatewayKeys:
    """Make, list, revoke and look up gateway keys; remember when each was last used."""

    def __init__(self, connections: Connections) -> None:
        self._connections = connections
        self._last_written: dict[int, datetime] = {}
        """When this process last wrote each key's `last_used_at`, so `touch` writes once a minute."""

    async def create(
        self,
        name: str,
        *,
        collections: Sequence[str] | None = None,
        rpm: int | None = None,
        ad_hoc: bool = False,
        budgets: Mapping[str, object] | None = None,
        actor: str,
    ) -> tuple[GatewayKeyRecord, str]:
        """A new key and its text: the only time the text exists outside the caller's hands."""
        clean_name = check_required_text(name, "name", MAX_NAME)
        clean_rpm = check_optional_int(rpm, "rpm", 1, MAX_RPM)
        clean_budgets = checked_budgets(budgets or {})
        plaintext = KEY_PREFIX + secrets.token_urlsafe(32)
        async with self._connections.write() as connection:
            scope = _checked_scope(collections, await _collection_names(connection))
            values = {
                "name": await _checked_new_name(connection, clean_name),
                "hash": key_hash(plaintext),
                "hint": plaintext[-4:],
                "collections": None if scope is None else list(scope),
                "rpm": clean_rpm,
                "ad_hoc": check_bool(ad_hoc, "ad_hoc"),
                "created_at": utcnow(),
                "last_used_at": None,
                "revoked_at": None,
                **clean_budgets.as_dict(),
            }
            key_id = (
                await connection.execute(insert(gateway_keys).values(**values).returning(gateway_keys.c.id))
            ).scalar_one()
            record = _record({"id": key_id, **values})
            await write_audit(
                connection,
                actor=actor,
                entity="gateway_key",
                key=str(key_id),
                action="add",
                after=_audited(record),
            )
        return record, plaintext

    async def list(self) -> list[GatewayKeyRecord]:
        """Every key, revoked ones included, oldest first."""
        async with self._connections.read() as connection:
            rows = (await connection.execute(select(gateway_keys).order_by(gateway_keys.c.id))).all()
        return [_record(dict(row._mapping)) for row in rows]

    async def get(self, key_id: int) -> GatewayKeyRecord | None:
        async with self._connections.read() as connection:
            return await _find_by_id(connection, key_id)

    async def revoke(self, key_id: int, *, actor: str) -> GatewayKeyRecord:
        """Stop the key working for good; the row stays for the record. Revoking again changes nothing."""
        async with self._connections.write() as connection:
            current = await _find_by_id(connection, key_id)
            if current is None:
                raise NotFound(f"no gateway key with id {key_id}", field="id")
            if current.revoked:
                return current
            now = utcnow()
            await connection.execute(
                update(gateway_keys).where(gateway_keys.c.id == key_id).values(revoked_at=now)
            )
            await write_audit(
                connection,
                actor=actor,
                entity="gateway_key",
                key=str(key_id),
                action="revoke",
                before={"name": current.name, "revoked_at": None},
                after={"name": current.name, "revoked_at": now},
            )
        return replace(current, revoked_at=now)

    async def set_limits(self, key_id: int, changes: Mapping[str, object], *, actor: str) -> GatewayKeyRecord:
        """Change a key's rpm and budgets: each one named in `changes` (null lifts it), the rest kept."""
        unknown = sorted(set(changes) - set(LIMIT_FIELDS))
        if unknown:
            raise Invalid(
                f"a key's limits are {', '.join(LIMIT_FIELDS)}; not {', '.join(unknown)}", field=unknown[0]
            )
        async with self._connections.write() as connection:
            current = await _find_by_id(connection, key_id)
            if current is None:
                raise NotFound(f"no gateway key with id {key_id}", field="id")
            if current.revoked:
                raise Conflict(f"gateway key {key_id} was revoked; its limits no longer matter", field="id")
            before = {"rpm": current.rpm, **current.budgets.as_dict()}
            merged = {**before, **changes}
            rpm = check_optional_int(merged["rpm"], "rpm", 1, MAX_RPM)
            budgets = checked_budgets(merged)
            after = {"rpm": rpm, **budgets.as_dict()}
            await connection.execute(update(gateway_keys).where(gateway_keys.c.id == key_id).values(**after))
            await write_audit(
                connection,
                actor=actor,
                entity="gateway_key",
                key=str(key_id),
                action="limits",
                before={"name": current.name, **before},
                after={"name": current.name, **after},
            )
        return replace(current, rpm=rpm, budgets=budgets)

    async def find(self, plaintext: str) -> GatewayKeyRecord | None:
        """The key with this text, revoked or not; None when no key has it (or it is malformed).

        The caller decides what a revoked key may do (nothing): check `revoked`.
        """
        if not looks_like_key(plaintext):
            return None
        where = [("hash", "=", key_hash(plaintext))]

        def read(connection: Connection) -> GatewayKeyRecord | None:
            rows = select_rows(connection, gateway_keys, where)
            return _record(rows[0]) if rows else None

        return await self._connections.read_all_at_once(read)

    async def touch(self, key_id: int, at: datetime) -> None:
        """Record that the key was used at `at`, unless this process wrote it within the last minute.

        A later time is never replaced by an earlier one, so processes that
        write in any order leave the latest use.
        """
        last = self._last_written.get(key_id)
        if last is not None and at - last < TOUCH_EVERY:
            return
        self._last_written[key_id] = at  # before the write, so requests arriving meanwhile skip it
        statement = (
            update(gateway_keys)
            .where(gateway_keys.c.id == key_id)
            .where(or_(gateway_keys.c.last_used_at.is_(None), gateway_keys.c.last_used_at < at))
            .values(last_used_at=at)
        )

        def write(connection: Connection) -> None:
            connection.execute(statement)

        try:
            await self._connections.write_all_at_once(write)
        except BaseException:
            if self._last_written.get(key_id) == at:
                del self._last_written[key_id]
            raise
