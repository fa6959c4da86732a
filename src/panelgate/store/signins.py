"""Sign-ins under way: started by one request, finished by a callback or a device poll, each once.

A sign-in is started by the admin API and finished by the browser coming
back from the provider (or by a poll of the provider's device endpoint),
and that second request may reach another gateway process. So the whole
pending sign-in lives in this table, and it is finished by an atomic claim
(an `UPDATE ... WHERE status = 'pending'` that one process wins): a state
works once, even when two replicas receive the same callback.

The PKCE verifier and the device code are kept in the row until the
sign-in ends, then emptied. Why the database and not the key store: the
callback must be able to land on any process of a cluster, which share the
database but not always a data folder; and neither value is a credential
on its own (the verifier is useless without the code the provider hands
only to the browser, the device code without the person approving it), and
both die within 15 minutes. They are never shown: `SigninRecord` does not
carry them; only the claim that finishes the sign-in returns them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any, Literal

from sqlalchemy import Row, insert, select, update

from panelgate.store.connections import Connections
from panelgate.store.tables import signins

Status = Literal["pending", "connected", "failed", "expired"]
PENDING_FOR = timedelta(minutes=15)
FINISHING = "finishing"
"""Claimed by a callback or a device poll and being exchanged for a token; shown as pending."""
MAX_ERROR = 500


@dataclass(frozen=True)
class NewSignin:
    id: str
    state: str
    provider: str
    flow: str
    endpoint: str
    client_id: str | None = None
    redirect_uri: str | None = None
    verifier: str | None = field(default=None, repr=False)
    device_code: str | None = field(default=None, repr=False)
    user_code: str | None = None
    verification_uri: str | None = None
    interval_s: float | None = None
    next_poll_at: datetime | None = None


@dataclass(frozen=True)
class SigninRecord:
    """A sign-in as the API shows it (no verifier, no device code)."""

    id: str
    provider: str
    flow: str
    endpoint: str
    client_id: str | None
    redirect_uri: str | None
    user_code: str | None
    verification_uri: str | None
    interval_s: float | None
    status: Status
    error: str | None
    created_at: datetime
    expires_at: datetime

    @property
    def device_flow(self) -> bool:
        return self.flow == "device"


@dataclass(frozen=True)
class ClaimedSignin:
    """A sign-in this process won the right to finish, with what the token exchange needs."""

    signin: SigninRecord
    verifier: str | None = field(repr=False)
    device_code: str | None = field(repr=False)


class Signins:
    def __init__(self, connections: Connections) -> None:
        self._connections = connections

    async def start(self, new: NewSignin, now: datetime) -> SigninRecord:
        """Keep a new pending sign-in for 15 minutes (and let the ones past theirs expire)."""
        async with self._connections.write(edits_config=False) as connection:
            await connection.execute(_expire_stale(now))
            await connection.execute(
                insert(signins).values(
                    **vars(new), status="pending", created_at=now, expires_at=now + PENDING_FOR
                )
            )
            row = (await connection.execute(select(signins).where(signins.c.id == new.id))).one()
        return _record(row)

    async def get(self, signin_id: str, now: datetime) -> SigninRecord | None:
        """The sign-in as it stands now (a pending one past its 15 minutes reads as expired)."""
        async with self._connections.write(edits_config=False) as connection:
            await connection.execute(_expire_stale(now))
            row = (await connection.execute(select(signins).where(signins.c.id == signin_id))).first()
        return None if row is None else _record(row)

    async def claim(
        self, now: datetime, *, state: str | None = None, signin_id: str | None = None
    ) -> ClaimedSignin | None:
        """Take a pending, unexpired sign-in by its id (the key flow) or else its state, to finish it;
        None when there is none or another request took it first."""
        where = signins.c.id == signin_id if signin_id is not None else signins.c.state == state
        statement = (
            update(signins)
            .where(where, signins.c.status == "pending", signins.c.expires_at > now)
            .values(status=FINISHING)
            .returning(*signins.c)
        )
        async with self._connections.write(edits_config=False) as connection:
            row = (await connection.execute(statement)).first()
        return None if row is None else ClaimedSignin(_record(row), row.verifier, row.device_code)

    async def take_device_turn(self, signin_id: str, now: datetime) -> ClaimedSignin | None:
        """Claim the next poll of the provider's device endpoint, no sooner than its interval allows;
        None when it is not time yet, or the sign-in is no longer pending."""
        statement = (
            update(signins)
            .where(
                signins.c.id == signin_id,
                signins.c.status == "pending",
                signins.c.expires_at > now,
                (signins.c.next_poll_at.is_(None)) | (signins.c.next_poll_at <= now),
            )
            .values(status=FINISHING)
            .returning(*signins.c)
        )
        async with self._connections.write(edits_config=False) as connection:
            row = (await connection.execute(statement)).first()
        return None if row is None else ClaimedSignin(_record(row), row.verifier, row.device_code)

    async def wait_again(self, signin_id: str, interval_s: float, now: datetime) -> None:
        """The provider said `authorization_pending` (or `slow_down`, with a longer interval): the
        sign-in is pending again, its next poll `interval_s` from now."""
        async with self._connections.write(edits_config=False) as connection:
            await connection.execute(
                update(signins)
                .where(signins.c.id == signin_id, signins.c.status == FINISHING)
                .values(
                    status="pending",
                    interval_s=interval_s,
                    next_poll_at=now + timedelta(seconds=interval_s),
                )
            )

    async def finish(
        self,
        signin_id: str,
        status: Status,
        now: datetime,
        *,
        error: str | None = None,
        endpoint: str | None = None,
    ) -> None:
        """End a claimed sign-in: connected (to `endpoint`, when it had to take another name) or failed
        (with why); its verifier and device code go."""
        renamed = {} if endpoint is None else {"endpoint": endpoint}
        async with self._connections.write(edits_config=False) as connection:
            await connection.execute(
                update(signins)
                .where(signins.c.id == signin_id)
                .values(
                    **renamed,
                    status=status,
                    error=None if error is None else error[:MAX_ERROR],
                    finished_at=now,
                    verifier=None,
                    device_code=None,
                )
            )


def _expire_stale(now: datetime) -> Any:
    return (
        update(signins)
        .where(signins.c.status.in_(("pending", FINISHING)), signins.c.expires_at <= now)
        .values(status="expired", finished_at=now, verifier=None, device_code=None)
    )


def _record(row: Row[Any]) -> SigninRecord:
    status: Status = "pending" if row.status == FINISHING else row.status
    return SigninRecord(
        id=row.id,
        provider=row.provider,
        flow=row.flow,
        endpoint=row.endpoint,
        client_id=row.client_id,
        redirect_uri=row.redirect_uri,
        user_code=row.user_code,
        verification_uri=row.verification_uri,
        interval_s=row.interval_s,
        status=status,
        error=row.error,
        created_at=row.created_at,
        expires_at=row.expires_at,
    )
