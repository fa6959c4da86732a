"""Where a sign-in lands: the endpoint it makes (or signs in again), and its tokens kept as secrets.

Names: a sign-in named by the person goes to that endpoint, which must be
free (no endpoint, no key kept under the name: a key is never overwritten)
or already this provider's (signing in again keeps its name, address and
headers). An unnamed one takes the provider's name, or `<name>-2`, `-3`...
when that is taken, so a second account never disturbs the first. The name
is chosen when the sign-in starts and checked again when it lands, since
another sign-in may have taken it meanwhile.

Tokens go to the key store under the endpoint's name (the refresh token as
`<name>.refresh`, saved first: a crash between the two leaves a refresh
token that renews, never an access token that cannot be renewed), and the
endpoint and its sign-in record are written after them.
"""

from __future__ import annotations

import hashlib
from datetime import datetime

from panelgate.connect.provider_calls import Tokens
from panelgate.connect.providers import ClientFrom, Provider
from panelgate.store import Conflict, Database
from panelgate.store.header_keys import keep_values
from panelgate.store.rules import check_name
from panelgate.store.signins import SigninRecord
from panelgate.upstream import KeyStore

REFRESH_SUFFIX = ".refresh"
MOST_ACCOUNTS = 50
KINDS = {"key": "aggregator", "local": "local"}
"""The endpoint kind a flow makes (`provider` otherwise)."""


def refresh_key(endpoint: str) -> str:
    return endpoint + REFRESH_SUFFIX


def key_digest(token: str) -> str:
    """What the sign-in record keeps of the token it won: enough to notice another key typed over it."""
    return hashlib.sha256(token.encode()).hexdigest()


class Landing:
    def __init__(self, db: Database, keys: KeyStore) -> None:
        self._db = db
        self._keys = keys

    async def name_for(self, provider: Provider, asked: str | None) -> str:
        """The endpoint a sign-in starting now goes to (see the module's docstring)."""
        if asked is None:
            return await self._free_name(provider.name)
        name = check_name(asked, "endpoint", "endpoint")
        if await self._signs_in_again(provider, name) or await self._free(name):
            return name
        taken = "an endpoint" if await self._db.endpoints.get(name) else "a key kept"
        raise Conflict(
            f"`{name}` is the name of {taken} that is not {provider.label}'s; "
            f"pick another name (`{await self._free_name(provider.name)}` is free)",
            field="endpoint",
        )

    async def land(
        self, signin: SigninRecord, provider: Provider, tokens: Tokens | None, now: datetime
    ) -> str:
        """Keep the tokens and make or update the endpoint; the endpoint's name."""
        name = signin.endpoint
        endpoint = await self._db.endpoints.get(name)
        again = endpoint is not None and endpoint.created_at < signin.created_at
        if endpoint is not None and not (again and await self._signs_in_again(provider, name)):
            name = await self._free_name(provider.name)  # another sign-in landed on it meanwhile
            endpoint = None
        if tokens is not None:
            if tokens.refresh:
                self._keys.set(refresh_key(name), tokens.refresh)
            else:
                self._keys.remove(refresh_key(name))
            self._keys.set(name, tokens.access)
        if endpoint is None:
            await self._db.endpoints.add(
                name,
                provider.api_base,
                kind=KINDS.get(provider.flow, "provider"),
                api=provider.api,
                key_name=name if tokens is not None else None,
                header_keys=keep_values(name, provider.headers, self._keys.set),
                actor="connect",
            )
        elif tokens is not None and endpoint.key_name != name:
            await self._db.endpoints.key_changed(name, name, cleared=False, actor="connect")
        await self._db.grants.save(
            name,
            provider=provider.name,
            client_id=signin.client_id,
            client_from=_client_from(provider, signin.client_id),
            expires_at=None if tokens is None else tokens.expires_at,
            refreshes=tokens is not None and tokens.refresh is not None,
            key_digest=None if tokens is None else key_digest(tokens.access),
            now=now,
            actor="connect",
        )
        return name

    def forget_refresh(self, endpoint: str) -> None:
        """Drop the endpoint's refresh token (its sign-in record is gone): nothing renews it now."""
        self._keys.remove(refresh_key(endpoint))

    async def _signs_in_again(self, provider: Provider, name: str) -> bool:
        """Whether `name` is this provider's endpoint: signed in to it, or made with its address."""
        endpoint = await self._db.endpoints.get(name)
        if endpoint is None:
            return False
        grant = await self._db.grants.get(name)
        if grant is not None:
            return grant.provider == provider.name
        return endpoint.base_url.rstrip("/") == provider.api_base.rstrip("/")

    async def _free(self, name: str) -> bool:
        if await self._db.endpoints.get(name) is not None:
            return False
        return self._keys.source(name) is None and self._keys.source(refresh_key(name)) is None

    async def _free_name(self, base: str) -> str:
        for name in (base, *(f"{base}-{n}" for n in range(2, MOST_ACCOUNTS + 1))):
            if await self._free(name):
                return name
        raise Conflict(
            f"{MOST_ACCOUNTS} endpoints are named after `{base}` already; name this one", field="endpoint"
        )


def _client_from(provider: Provider, client_id: str | None) -> ClientFrom:
    if client_id and client_id != provider.client_id:
        return "yours"
    return provider.client_from or "built-in"
