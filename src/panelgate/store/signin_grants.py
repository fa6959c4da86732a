"""What keeps a signed-in endpoint signed in: its provider, public client id, expiry and renewal.

One row per endpoint that was signed in to (the endpoint's removal takes
it along). Renewal is claimed per row (`claim_renewal`: an `UPDATE` only
one process wins while the claim lasts), so whichever process of a cluster
looks first renews a token, once. A failed renewal is an open `signin`
alert keyed `renewal:<endpoint>` until a renewal succeeds or the record is
forgotten; those alerts are raised and cleared here, one by one, never by
another job's sweep of its own alerts.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any, Literal

from sqlalchemy import Row, delete, insert, or_, select, update
from sqlalchemy.ext.asyncio import AsyncConnection

from panelgate.store.alerts import KEPT_APART
from panelgate.store.audit import write_audit
from panelgate.store.connections import Connections
from panelgate.store.tables import alerts, signin_grants
from panelgate.store.upsert import insert_for

ClientFrom = Literal["built-in", "yours"]
ALERT_PREFIX = KEPT_APART[0]
MAX_ERROR = 500


@dataclass(frozen=True)
class GrantRecord:
    endpoint: str
    provider: str
    client_id: str | None
    client_from: ClientFrom
    connected_at: datetime
    expires_at: datetime | None
    refreshes: bool
    renewed_at: datetime | None
    renewal_error: str | None
    key_digest: str | None
    """SHA-256 of the token the sign-in last kept (null: it keeps none)."""


class SigninGrants:
    def __init__(self, connections: Connections) -> None:
        self._connections = connections

    async def save(
        self,
        endpoint: str,
        *,
        provider: str,
        client_id: str | None,
        client_from: ClientFrom,
        expires_at: datetime | None,
        refreshes: bool,
        key_digest: str | None,
        now: datetime,
        actor: str,
    ) -> GrantRecord:
        """Record a sign-in that succeeded (a new one, or again over the last): no renewal error."""
        fields = {
            "provider": provider,
            "client_id": client_id,
            "client_from": client_from,
            "connected_at": now,
            "expires_at": expires_at,
            "refreshes": refreshes,
            "renewed_at": None,
            "renewal_error": None,
            "renewing_by": None,
            "renewing_until": None,
            "key_digest": key_digest,
        }
        async with self._connections.write(edits_config=False) as connection:
            upsert = insert_for(connection)(signin_grants).values(endpoint=endpoint, **fields)
            await connection.execute(upsert.on_conflict_do_update(index_elements=["endpoint"], set_=fields))
            await write_audit(
                connection,
                actor=actor,
                entity="endpoint",
                key=endpoint,
                action="signin",
                after={"provider": provider, "client_id": client_from, "refreshes": refreshes},
            )
            await _clear_alert(connection, endpoint, now)
            return _record(await _row(connection, endpoint))

    async def get(self, endpoint: str) -> GrantRecord | None:
        async with self._connections.read() as connection:
            row = (
                await connection.execute(select(signin_grants).where(signin_grants.c.endpoint == endpoint))
            ).first()
        return None if row is None else _record(row)

    async def forget(self, endpoint: str, now: datetime, actor: str) -> bool:
        """Drop the endpoint's sign-in record (the endpoint stays); False when it had none."""
        async with self._connections.write(edits_config=False) as connection:
            gone = await connection.execute(delete(signin_grants).where(signin_grants.c.endpoint == endpoint))
            if not gone.rowcount:
                return False
            await write_audit(connection, actor=actor, entity="endpoint", key=endpoint, action="signout")
            await _clear_alert(connection, endpoint, now)
        return True

    async def due(self, before: datetime) -> list[str]:
        """Endpoints whose token renews and expires before `before`."""
        grant = signin_grants.c
        query = (
            select(grant.endpoint).where(grant.refreshes, grant.expires_at <= before).order_by(grant.endpoint)
        )
        async with self._connections.read() as connection:
            return list((await connection.execute(query)).scalars())

    async def claim_renewal(
        self, endpoint: str, holder: str, *, due_before: datetime, now: datetime, hold_for: timedelta
    ) -> GrantRecord | None:
        """Take the renewal of `endpoint`'s token for `hold_for`: None when it is not due (another
        process renewed it) or another process holds the claim."""
        grant = signin_grants.c
        statement = (
            update(signin_grants)
            .where(
                grant.endpoint == endpoint,
                grant.refreshes,
                grant.expires_at <= due_before,
                or_(grant.renewing_until.is_(None), grant.renewing_until <= now),
            )
            .values(renewing_by=holder, renewing_until=now + hold_for)
            .returning(*signin_grants.c)
        )
        async with self._connections.write(edits_config=False) as connection:
            row = (await connection.execute(statement)).first()
        return None if row is None else _record(row)

    async def renewed(
        self,
        endpoint: str,
        holder: str,
        *,
        expires_at: datetime | None,
        refreshes: bool,
        key_digest: str,
        now: datetime,
    ) -> None:
        """The token was renewed: its new expiry, and the alert of an earlier failure cleared."""
        async with self._connections.write(edits_config=False) as connection:
            await connection.execute(
                _release(endpoint, holder).values(
                    expires_at=expires_at,
                    refreshes=refreshes,
                    renewed_at=now,
                    renewal_error=None,
                    key_digest=key_digest,
                )
            )
            await _clear_alert(connection, endpoint, now)

    async def renewal_failed(
        self, endpoint: str, holder: str, error: str, now: datetime, retry_after: timedelta
    ) -> None:
        """The renewal failed: kept on the record and raised as a `signin` alert (nothing is retired);
        no process tries again for `retry_after`."""
        error = error[:MAX_ERROR]
        async with self._connections.write(edits_config=False) as connection:
            await connection.execute(
                _release(endpoint, holder).values(renewal_error=error, renewing_until=now + retry_after)
            )
            message = (
                f"`{endpoint}`'s sign-in could not be renewed ({error}); its models keep their place: "
                "sign in again (Endpoints → Connect, or `panelgate connect`)"
            )
            await _raise_alert(connection, endpoint, message, now)

    async def list(self) -> list[GrantRecord]:
        async with self._connections.read() as connection:
            rows = (await connection.execute(select(signin_grants).order_by(signin_grants.c.endpoint))).all()
        return [_record(row) for row in rows]


def _release(endpoint: str, holder: str) -> Any:
    grant = signin_grants.c
    return (
        update(signin_grants)
        .where(grant.endpoint == endpoint, grant.renewing_by == holder)
        .values(renewing_by=None, renewing_until=None)
    )


async def _raise_alert(connection: AsyncConnection, endpoint: str, message: str, now: datetime) -> None:
    key = ALERT_PREFIX + endpoint
    opened = (
        await connection.execute(
            select(alerts.c.id).where(alerts.c.key == key, alerts.c.cleared_at.is_(None))
        )
    ).first()
    if opened is not None:
        await connection.execute(
            update(alerts).where(alerts.c.id == opened.id).values(message=message, updated_at=now)
        )
        return
    await connection.execute(
        insert(alerts).values(
            key=key, kind="signin", subject=endpoint, message=message, raised_at=now, updated_at=now
        )
    )


async def _clear_alert(connection: AsyncConnection, endpoint: str, now: datetime) -> None:
    await connection.execute(
        update(alerts)
        .where(alerts.c.key == ALERT_PREFIX + endpoint, alerts.c.cleared_at.is_(None))
        .values(cleared_at=now)
    )


async def _row(connection: AsyncConnection, endpoint: str) -> Row[Any]:
    return (await connection.execute(select(signin_grants).where(signin_grants.c.endpoint == endpoint))).one()


def _record(row: Row[Any]) -> GrantRecord:
    fields = row._mapping
    return GrantRecord(**{name: fields[name] for name in GrantRecord.__dataclass_fields__})
