"""Persistence: what people edit (endpoints, models, collections, limits), what
panels did (seats, evidence) and what people judged (verdicts), with an audit
of every edit. SQLite by default, PostgreSQL when configured."""

# ruff: noqa: E402  (the ORM is kept out before any module of the store imports SQLAlchemy's engine)
from panelgate.store.async_engine import without_the_orm

without_the_orm()

from panelgate.store.database import Database
from panelgate.store.errors import Conflict, Invalid, NotFound, StoreError
from panelgate.store.gateway_keys import GatewayKeyRecord
from panelgate.store.records import (
    AuditRecord,
    EndpointRecord,
    ModelRecord,
    OwedSeat,
    PanelRecord,
    SeatRecord,
    VerdictRecord,
)

__all__ = [
    "AuditRecord",
    "Conflict",
    "Database",
    "EndpointRecord",
    "GatewayKeyRecord",
    "Invalid",
    "ModelRecord",
    "NotFound",
    "OwedSeat",
    "PanelRecord",
    "SeatRecord",
    "StoreError",
    "VerdictRecord",
]
