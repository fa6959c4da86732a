"""Alerts: synced by the job that finds them, cleared when their cause is gone, dismissed by a person."""

from __future__ import annotations

import pytest

from panelgate.store import Database, NotFound
from panelgate.store.alerts import RaisedAlert

from .conftest import later

DOWN = RaisedAlert("connection:up", "connection", "up", "every model on `up` is down")
KEY = RaisedAlert("signin:up", "signin", "up", "`up` refuses its key")
KINDS = ("connection", "signin")


async def test_a_raised_alert_is_open_until_its_cause_is_gone(db: Database) -> None:
    await db.alerts.sync([DOWN, KEY], KINDS, later(0))
    assert sorted(a.key for a in await db.alerts.open()) == ["connection:up", "signin:up"]
    await db.alerts.sync([KEY], KINDS, later(5))
    assert [a.key for a in await db.alerts.open()] == ["signin:up"]


async def test_an_alert_still_holding_keeps_its_row_and_when_it_was_raised(db: Database) -> None:
    await db.alerts.sync([DOWN], KINDS, later(0))
    await db.alerts.sync([RaisedAlert("connection:up", "connection", "up", "still down")], KINDS, later(5))
    (alert,) = await db.alerts.open()
    assert (alert.raised_at, alert.updated_at, alert.message) == (later(0), later(5), "still down")


async def test_a_dismissed_alert_stays_dismissed_while_its_cause_lasts(db: Database) -> None:
    await db.alerts.sync([DOWN], KINDS, later(0))
    (alert,) = await db.alerts.open()
    dismissed = await db.alerts.dismiss(alert.id, "ops", later(1))
    assert (dismissed.dismissed_by, dismissed.dismissed_at) == ("ops", later(1))
    await db.alerts.sync([DOWN], KINDS, later(5))
    assert await db.alerts.open() == []
    await db.alerts.sync([], KINDS, later(6))
    await db.alerts.sync([DOWN], KINDS, later(7))
    assert [a.raised_at for a in await db.alerts.open()] == [later(7)], "a cause that came back is new"


async def test_sync_leaves_other_kinds_alone(db: Database) -> None:
    await db.alerts.sync([DOWN], KINDS, later(0))
    await db.alerts.sync([], ("retired",), later(1))
    assert len(await db.alerts.open()) == 1


async def test_dismissing_an_unknown_alert_is_refused(db: Database) -> None:
    for alert_id in (7, 0, 2**40):
        with pytest.raises(NotFound, match="no alert"):
            await db.alerts.dismiss(alert_id, "ops", later(0))
