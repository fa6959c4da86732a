"""Action needed: alerts about what will not fix itself, raised by auto-retire, dismissed by a person.

The job that looks at the bench says, each run, every alert that holds now
(`sync`): a new one is opened, one still holding keeps its row (and stays
dismissed if a person dismissed it), and one whose cause is gone is cleared.
Only one alert per key is open at a time (a partial unique index), so two
processes syncing at once cannot open the same alert twice.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Literal

from sqlalchemy import Row, insert, select, update

from panelgate.store.connections import Connections
from panelgate.store.errors import NotFound
from panelgate.store.tables import alerts

AlertKind = Literal["connection", "signin", "paywalled", "retired", "paid", "swapped"]
KEPT_APART = ("renewal:",)
"""Keys of alerts their own job raises and clears one by one (a sign-in's failed renewal:
`store/signin_grants.py`): no `sync` of their kind clears them. A model answering as another
(`swapped:`) is held one alert at a time too (`hold`), and no `sync` names its kind."""
LARGEST_ID = 2**31 - 1


@dataclass(frozen=True)
class RaisedAlert:
    """An alert that holds now, as the job that checks for it states it."""

    key: str
    kind: AlertKind
    subject: str
    """The endpoint or the model alias it is about."""
    message: str
    restore: str | None = None
    """The alias a Restore puts back (alerts about a retired model)."""


@dataclass(frozen=True)
class AlertRecord:
    id: int
    key: str
    kind: str
    subject: str
    message: str
    restore: str | None
    raised_at: datetime
    updated_at: datetime
    dismissed_at: datetime | None
    dismissed_by: str | None
    cleared_at: datetime | None


class Alerts:
    def __init__(self, connections: Connections) -> None:
        self._connections = connections

    async def sync(self, raised: Sequence[RaisedAlert], kinds: Collection[str], now: datetime) -> None:
        """Open or refresh each of `raised`; clear the open alerts of `kinds` that are not among them."""
        keys = {alert.key for alert in raised}
        async with self._connections.write(edits_config=False) as connection:
            rows = (await connection.execute(select(alerts).where(alerts.c.cleared_at.is_(None)))).all()
            open_by_key = {row.key: row for row in rows}
            for alert in raised:
                fields = {"kind": alert.kind, "subject": alert.subject, "message": alert.message,
                          "restore": alert.restore, "updated_at": now}  # fmt: skip
                if alert.key in open_by_key:
                    await connection.execute(
                        update(alerts).where(alerts.c.id == open_by_key[alert.key].id).values(**fields)
                    )
                else:
                    await connection.execute(insert(alerts).values(key=alert.key, raised_at=now, **fields))
            gone = [
                row.id
                for row in rows
                if row.kind in kinds and row.key not in keys and not row.key.startswith(KEPT_APART)
            ]
            if gone:
                await connection.execute(update(alerts).where(alerts.c.id.in_(gone)).values(cleared_at=now))

    async def hold(self, key: str, alert: RaisedAlert | None, now: datetime) -> None:
        """The one alert `key` holds now (`alert`: opened, or refreshed) or not (None: cleared), leaving
        every other alert as it is; for alerts decided one at a time as evidence comes in."""
        async with self._connections.write(edits_config=False) as connection:
            found = (
                await connection.execute(
                    select(alerts.c.id).where(alerts.c.key == key, alerts.c.cleared_at.is_(None))
                )
            ).first()
            if alert is None:
                if found is not None:
                    await connection.execute(
                        update(alerts).where(alerts.c.id == found.id).values(cleared_at=now)
                    )
                return
            fields = {"kind": alert.kind, "subject": alert.subject, "message": alert.message,
                      "restore": alert.restore, "updated_at": now}  # fmt: skip
            if found is not None:
                await connection.execute(update(alerts).where(alerts.c.id == found.id).values(**fields))
            else:
                await connection.execute(insert(alerts).values(key=key, raised_at=now, **fields))

    async def open_keys(self, prefix: str) -> set[str]:
        """Keys of the open alerts (dismissed ones too) that start with `prefix`."""
        query = select(alerts.c.key).where(alerts.c.cleared_at.is_(None), alerts.c.key.startswith(prefix))
        async with self._connections.read() as connection:
            return {row.key for row in (await connection.execute(query)).all()}

    async def open(self) -> list[AlertRecord]:
        """Open alerts nobody dismissed, the newest first."""
        query = (
            select(alerts)
            .where(alerts.c.cleared_at.is_(None), alerts.c.dismissed_at.is_(None))
            .order_by(alerts.c.raised_at.desc(), alerts.c.id.desc())
        )
        async with self._connections.read() as connection:
            return [_record(row) for row in (await connection.execute(query)).all()]

    async def dismiss(self, alert_id: int, actor: str, now: datetime) -> AlertRecord:
        async with self._connections.write(edits_config=False) as connection:
            found = (
                (await connection.execute(select(alerts).where(alerts.c.id == alert_id))).first()
                if 1 <= alert_id <= LARGEST_ID
                else None
            )
            if found is None:
                raise NotFound(f"no alert {alert_id}", field="alert_id")
            if found.dismissed_at is None:
                await connection.execute(
                    update(alerts).where(alerts.c.id == alert_id).values(dismissed_at=now, dismissed_by=actor)
                )
            row = (await connection.execute(select(alerts).where(alerts.c.id == alert_id))).one()
        return _record(row)


def _record(row: Row[Any]) -> AlertRecord:
    fields = row._mapping
    return AlertRecord(**{name: fields[name] for name in AlertRecord.__dataclass_fields__})
