"""Renewing signed-in endpoints' tokens before they expire, once across a cluster.

Every gateway process looks (`renew_due`); each token due within 5 minutes
is claimed in the database first (`SigninGrants.claim_renewal`), so only
the process that wins the claim spends the refresh token: providers that
rotate refresh tokens would otherwise see the old one used twice and revoke
the sign-in. The new refresh token is saved before the new access token,
so a crash in between leaves one that still renews. A key typed over the
sign-in (or set in the environment) is never overwritten: the sign-in
record is forgotten instead. A failure is kept on
the record and raised as a `signin` alert; it never retires a model (a
refused key is never counted against one), and the next success clears it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta

from panelgate.connect.landing import key_digest, refresh_key
from panelgate.connect.provider_calls import ProviderCalls, SigninRefused, Tokens
from panelgate.connect.providers import Provider
from panelgate.store import Database
from panelgate.store.signin_grants import GrantRecord
from panelgate.upstream import KeyFileError, KeyStore

RENEWAL = "signin-renewal"
"""The actor of what renewal writes in the audit log."""
RENEW_BEFORE = timedelta(minutes=5)
HOLD_FOR = timedelta(minutes=2)
"""How long a claim keeps other processes off a renewal (a stalled process loses it after that)."""


def utcnow() -> datetime:
    return datetime.now(UTC)


@dataclass
class RenewalReport:
    renewed: list[str] = field(default_factory=list)
    failed: list[str] = field(default_factory=list)
    dropped: list[str] = field(default_factory=list)
    """Endpoints whose key was replaced by hand: their sign-in record is forgotten, nothing renewed."""

    def summary(self) -> str:
        if not (self.renewed or self.failed or self.dropped):
            return "no sign-in due for renewal"
        parts = [f"renewed {', '.join(self.renewed) or 'none'}"]
        if self.failed:
            parts.append(f"could not renew {', '.join(self.failed)}")
        if self.dropped:
            parts.append(f"left {', '.join(self.dropped)} alone: a key was set over the sign-in")
        return "; ".join(parts)


class Renewer:
    def __init__(
        self,
        db: Database,
        keys: KeyStore,
        providers: Mapping[str, Provider],
        calls: ProviderCalls,
        *,
        holder: str,
        retry_after: timedelta,
        now: Callable[[], datetime] = utcnow,
    ) -> None:
        """`retry_after`: how long after a failed renewal it is tried again (the failure stays shown)."""
        self._db = db
        self._keys = keys
        self._providers = providers
        self._calls = calls
        self._holder = holder
        self._retry_after = retry_after
        self._now = now

    async def renew_due(self) -> RenewalReport:
        """Renew every token due now that no other process is renewing."""
        report = RenewalReport()
        for endpoint in await self._db.grants.due(self._now() + RENEW_BEFORE):
            now = self._now()
            grant = await self._db.grants.claim_renewal(
                endpoint, self._holder, due_before=now + RENEW_BEFORE, now=now, hold_for=HOLD_FOR
            )
            if grant is None:
                continue
            if not self._still_signed_in(grant):
                await self._db.grants.forget(endpoint, self._now(), actor=RENEWAL)
                self._keys.remove(refresh_key(endpoint))
                report.dropped.append(endpoint)
                continue
            why = await self._renew(grant)
            if why is None:
                report.renewed.append(endpoint)
            else:
                await self._db.grants.renewal_failed(
                    endpoint, self._holder, why, self._now(), self._retry_after
                )
                report.failed.append(endpoint)
        return report

    async def _renew(self, grant: GrantRecord) -> str | None:
        """Renew one claimed token; None when it worked, else why not (words safe to show)."""
        provider = self._providers.get(grant.provider)
        if provider is None:
            return f"provider `{grant.provider}` is no longer configured"
        refresh = self._keys.get(refresh_key(grant.endpoint))
        if refresh is None:
            return f"no refresh token is kept for `{grant.endpoint}`"
        try:
            tokens = await self._calls.refresh(provider, grant.client_id, refresh, self._now())
        except SigninRefused as refused:
            return refused.message
        try:
            self._keep(grant.endpoint, refresh, tokens)
        except (KeyFileError, OSError, ValueError) as exc:
            return f"the renewed token could not be kept ({type(exc).__name__})"
        await self._db.grants.renewed(
            grant.endpoint,
            self._holder,
            expires_at=tokens.expires_at,
            refreshes=tokens.refresh is not None,
            key_digest=key_digest(tokens.access),
            now=self._now(),
        )
        return None

    def _still_signed_in(self, grant: GrantRecord) -> bool:
        """Whether the endpoint's key is still the sign-in's; a key typed (or set in the environment)
        over it is the person's word, never overwritten: the renewal stops there."""
        current = self._keys.get(grant.endpoint)
        return grant.key_digest is None or (current is not None and key_digest(current) == grant.key_digest)

    def _keep(self, endpoint: str, old_refresh: str, tokens: Tokens) -> None:
        if tokens.refresh and tokens.refresh != old_refresh:
            self._keys.set(refresh_key(endpoint), tokens.refresh)
        self._keys.set(endpoint, tokens.access)
