"""The sign-in desk: start a sign-in, follow it, finish it from the provider's callback.

The admin API starts a sign-in (`start`) and polls it (`status`); the
browser coming back from the provider finishes it (`callback`), on
whichever gateway process it reaches: everything in between is in the
database (`store.signins`), and finishing claims it there first, so a
state works once. A device sign-in is finished by a poll instead: each
`status` of a pending device sign-in asks the provider's token endpoint,
no sooner than the interval the provider set (`slow_down` lengthens it),
and again only when the claim in the database says it is this request's
turn.
"""

from __future__ import annotations

import secrets
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from panelgate.connect.landing import Landing
from panelgate.connect.provider_calls import (
    DevicePending,
    ProviderCalls,
    SigninRefused,
    Tokens,
    key_page_url,
)
from panelgate.connect.providers import Provider
from panelgate.store import Database, Invalid, NotFound, StoreError
from panelgate.store.signins import ClaimedSignin, NewSignin, SigninRecord
from panelgate.upstream import KeyFileError, KeyStore, redact

CALLBACK_PATH = "/connect/callback"


def utcnow() -> datetime:
    return datetime.now(UTC)


@dataclass(frozen=True)
class Started:
    signin: SigninRecord
    url: str | None = None
    """Where the browser goes (key and OAuth flows)."""


@dataclass(frozen=True)
class Ask:
    """What a person asked for when starting a sign-in."""

    endpoint: str | None = None
    device: bool = False
    client_id: str | None = None


class ConnectDesk:
    def __init__(
        self,
        db: Database,
        keys: KeyStore,
        providers: Mapping[str, Provider],
        calls: ProviderCalls,
        *,
        now: Callable[[], datetime] = utcnow,
    ) -> None:
        self._db = db
        self._providers = dict(providers)
        self._calls = calls
        self._landing = Landing(db, keys)
        self._now = now

    @property
    def providers(self) -> Mapping[str, Provider]:
        return self._providers

    def provider(self, name: str) -> Provider:
        found = self._providers.get(name)
        if found is None:
            raise NotFound(
                f"no provider named `{name}`; providers: {', '.join(self._providers)}", field="provider"
            )
        return found

    async def start(self, name: str, ask: Ask, base_url: str) -> Started:
        """Begin a sign-in; `base_url` is the gateway's address the browser comes back to."""
        provider = self.provider(name)
        endpoint = await self._landing.name_for(provider, ask.endpoint)
        if provider.flow == "local":
            return await self._connect_local(provider, endpoint)
        if ask.device or provider.flow == "device":
            return await self._start_device(provider, endpoint, ask)
        signin_id, state, verifier = _token(), _token(), _token() + _token()
        if provider.flow == "key":
            callback = f"{base_url}{CALLBACK_PATH}/{signin_id}"
            url = key_page_url(provider, callback, verifier)
            client_id = None
        else:
            callback = f"{base_url}{CALLBACK_PATH}"
            client_id = _client_id(provider, ask)
            url = self._calls.authorize_url(provider, client_id, callback, state, verifier)
        new = NewSignin(
            signin_id, state, provider.name, provider.flow, endpoint, client_id, callback, verifier=verifier
        )
        return Started(await self._db.signins.start(new, self._now()), url)

    async def status(self, signin_id: str) -> SigninRecord:
        """The sign-in as it stands; a pending device sign-in asks the provider first, when due."""
        signin = await self._get(signin_id)
        if signin.status == "pending" and signin.device_flow:
            claimed = await self._db.signins.take_device_turn(signin_id, self._now())
            if claimed is not None:
                await self._poll_device(claimed)
                signin = await self._get(signin_id)
        return signin

    async def callback(
        self, *, state: str | None, code: str | None, error: str | None, signin_id: str | None = None
    ) -> SigninRecord:
        """Finish a sign-in the provider sent the browser back from; `SigninRefused` when it cannot."""
        if signin_id is not None:
            known = await self._db.signins.get(signin_id, self._now())
            if known is None or known.flow != "key":
                raise SigninRefused("this sign-in is unknown; start again from the gateway")
        elif not state:
            raise SigninRefused("the provider sent no state; start again from the gateway")
        claimed = await self._db.signins.claim(self._now(), state=state, signin_id=signin_id)
        if claimed is None:
            raise SigninRefused("this sign-in is unknown, already used or expired; start again")
        signin = claimed.signin
        if error or not code:
            why = f"the provider said {redact(error)[:100]}" if error else "the provider sent no code"
            return await self._fail(signin, why)
        provider = self._providers.get(signin.provider)
        if provider is None:
            return await self._fail(signin, f"provider `{signin.provider}` is no longer configured")
        try:
            tokens = await self._exchange(provider, claimed, code)
        except SigninRefused as refused:
            return await self._fail(signin, refused.message)
        return await self._land(signin, provider, tokens)

    async def forget(self, endpoint: str, actor: str) -> None:
        """Drop the endpoint's sign-in record and its refresh token; the endpoint and its key stay."""
        if not await self.key_typed(endpoint, actor):
            raise NotFound(f"endpoint `{endpoint}` has no sign-in record", field="endpoint")

    async def key_typed(self, endpoint: str, actor: str) -> bool:
        """A key a person set for the endpoint ends its sign-in: nothing renews it over their key.
        False when it had no sign-in."""
        if not await self._db.grants.forget(endpoint, self._now(), actor):
            return False
        self._landing.forget_refresh(endpoint)
        return True

    async def _connect_local(self, provider: Provider, endpoint: str) -> Started:
        try:
            await self._calls.check_local(provider)
        except SigninRefused as refused:
            raise Invalid(refused.message, field="provider") from None
        new = NewSignin(_token(), _token(), provider.name, provider.flow, endpoint)
        signin = await self._db.signins.start(new, self._now())
        return Started(await self._land(signin, provider, None))

    async def _start_device(self, provider: Provider, endpoint: str, ask: Ask) -> Started:
        if not provider.has_device_flow:
            raise Invalid(
                f"{provider.label} has no device sign-in; open its sign-in page in a browser on "
                "the machine the gateway answers (or add the endpoint with a key)",
                field="device",
            )
        client_id = _client_id(provider, ask)
        try:
            grant = await self._calls.start_device(provider, client_id)
        except SigninRefused as refused:
            raise Invalid(refused.message, field="provider") from None
        now = self._now()
        new = NewSignin(
            _token(),
            _token(),
            provider.name,
            "device",
            endpoint,
            client_id,
            device_code=grant.device_code,
            user_code=grant.user_code,
            verification_uri=grant.verification_uri,
            interval_s=grant.interval_s,
            next_poll_at=now + timedelta(seconds=grant.interval_s),
        )
        return Started(await self._db.signins.start(new, now))

    async def _poll_device(self, claimed: ClaimedSignin) -> None:
        signin = claimed.signin
        provider = self._providers.get(signin.provider)
        if provider is None or claimed.device_code is None or signin.client_id is None:
            await self._fail(signin, "this device sign-in can no longer be finished; start again")
            return
        try:
            tokens = await self._calls.poll_device(
                provider, signin.client_id, claimed.device_code, signin.interval_s or 5, self._now()
            )
        except DevicePending as pending:
            await self._db.signins.wait_again(signin.id, pending.interval_s, self._now())
            return
        except SigninRefused as refused:
            await self._fail(signin, refused.message)
            return
        await self._land(signin, provider, tokens)

    async def _exchange(self, provider: Provider, claimed: ClaimedSignin, code: str) -> Tokens:
        signin, verifier = claimed.signin, claimed.verifier
        if verifier is None:
            raise SigninRefused("this sign-in lost its verifier; start again")
        if signin.flow == "key":
            return await self._calls.exchange_key(provider, code, verifier)
        if signin.client_id is None or signin.redirect_uri is None:
            raise SigninRefused("this sign-in has no client id; start again")
        return await self._calls.exchange_code(
            provider, signin.client_id, signin.redirect_uri, code, verifier, self._now()
        )

    async def _land(self, signin: SigninRecord, provider: Provider, tokens: Tokens | None) -> SigninRecord:
        now = self._now()
        try:
            endpoint = await self._landing.land(signin, provider, tokens, now)
        except StoreError as refused:  # e.g. another sign-in took the last free name meanwhile
            return await self._fail(signin, refused.message)
        except (KeyFileError, OSError, ValueError) as exc:
            return await self._fail(
                signin, f"the token could not be kept ({type(exc).__name__}: check the key file)"
            )
        await self._db.signins.finish(signin.id, "connected", now, endpoint=endpoint)
        return await self._get(signin.id)

    async def _fail(self, signin: SigninRecord, why: str) -> SigninRecord:
        await self._db.signins.finish(signin.id, "failed", self._now(), error=why)
        return await self._get(signin.id)

    async def _get(self, signin_id: str) -> SigninRecord:
        found = await self._db.signins.get(signin_id, self._now())
        if found is None:
            raise NotFound(
                f"no sign-in `{signin_id}`; start one with POST /api/connect/PROVIDER", field="signin"
            )
        return found


def _client_id(provider: Provider, ask: Ask) -> str:
    found = ask.client_id or provider.client_id
    if not found:
        raise Invalid(
            f"{provider.label} needs a client id: register an app of your own with it and send its "
            f"client id (`client_id`), or set `client_id` for `{provider.name}` in the providers file "
            "(PANELGATE_CONNECT_PROVIDERS)",
            field="client_id",
        )
    return found


def _token() -> str:
    return secrets.token_urlsafe(24)
