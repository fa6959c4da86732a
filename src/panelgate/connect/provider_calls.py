"""What the gateway asks a provider during a sign-in or a renewal, over authlib's OAuth client.

authlib does the OAuth parts that are easy to get subtly wrong (the S256
code challenge, the token request's body and client authentication, token
parsing and the `error` replies); the rest (OpenRouter's key exchange, the
device authorization request, Ollama's `/models`) is a plain request on
the same client. Every client is public (PKCE, no secret), so the client id
travels in the body.

Nothing here logs, and a refusal's words are the provider's error code and
description, cut short and scrubbed of anything key-like: they reach pages
and the database.

authlib (with the cryptography it loads, about 12 MB) and httpx2, its HTTP
client, are imported where a sign-in or a renewal first needs them, not when
the gateway starts: most gateways never sign in anywhere.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any
from urllib.parse import urlencode

from panelgate.connect.providers import Provider
from panelgate.upstream import redact

if TYPE_CHECKING:
    import httpx2

TIMEOUT_S = 20.0
DEVICE_GRANT = "urn:ietf:params:oauth:grant-type:device_code"


class SigninRefused(Exception):
    """The provider refused, or could not be reached; the message is safe to show."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class DevicePending(Exception):
    """The person has not approved the device code yet: ask again after `interval_s`."""

    def __init__(self, interval_s: float) -> None:
        super().__init__(f"pending; ask again in {interval_s:g} s")
        self.interval_s = interval_s


@dataclass(frozen=True)
class Tokens:
    access: str = field(repr=False)
    refresh: str | None = field(default=None, repr=False)
    expires_at: datetime | None = None


@dataclass(frozen=True)
class DeviceGrant:
    device_code: str = field(repr=False)
    user_code: str = ""
    verification_uri: str = ""
    interval_s: float = 5.0


def key_page_url(provider: Provider, callback: str, verifier: str) -> str:
    """The key flow's page: the provider sends the browser back to `callback` with `?code=`."""
    from authlib.oauth2.rfc7636 import create_s256_code_challenge  # type: ignore[import-untyped]

    query = {
        "callback_url": callback,
        "code_challenge": create_s256_code_challenge(verifier),
        "code_challenge_method": "S256",
    }
    return f"{_need(provider.authorize_url, provider, 'authorize_url')}?{urlencode(query)}"


class ProviderCalls:
    def __init__(self, timeout_s: float = TIMEOUT_S) -> None:
        self._timeout_s = timeout_s

    def _client(self, provider: Provider, client_id: str | None, redirect_uri: str | None = None) -> Any:
        from authlib.integrations.httpx_client import AsyncOAuth2Client  # type: ignore[import-untyped]

        return AsyncOAuth2Client(
            client_id=client_id,
            scope=provider.scope,
            redirect_uri=redirect_uri,
            token_endpoint_auth_method="none",
            code_challenge_method="S256",
            timeout=self._timeout_s,
        )

    def authorize_url(
        self, provider: Provider, client_id: str, redirect_uri: str, state: str, verifier: str
    ) -> str:
        """Where the browser signs in (authorization code + PKCE S256); builds a URL, sends nothing."""
        from authlib.oauth2 import OAuth2Client  # type: ignore[import-untyped]

        client = OAuth2Client(
            None,
            client_id=client_id,
            scope=provider.scope,
            redirect_uri=redirect_uri,
            code_challenge_method="S256",
        )
        url, _ = client.create_authorization_url(
            _need(provider.authorize_url, provider, "authorize_url"), state=state, code_verifier=verifier
        )
        return str(url)

    async def exchange_code(
        self, provider: Provider, client_id: str, redirect_uri: str, code: str, verifier: str, now: datetime
    ) -> Tokens:
        async with self._client(provider, client_id, redirect_uri) as client:
            token = await _asking(
                provider,
                client.fetch_token(
                    _need(provider.token_url, provider, "token_url"),
                    grant_type="authorization_code",
                    code=code,
                    code_verifier=verifier,
                ),
            )
        return _tokens(token, now)

    async def exchange_key(self, provider: Provider, code: str, verifier: str) -> Tokens:
        """OpenRouter's key flow: the code and verifier for an API key that does not expire."""
        body = {"code": code, "code_verifier": verifier, "code_challenge_method": "S256"}
        async with self._client(provider, None) as client:
            reply = await _asking(
                provider,
                client.request(
                    "POST", _need(provider.token_url, provider, "token_url"), json=body, withhold_token=True
                ),
            )
        key = _json(reply, provider).get("key")
        if not isinstance(key, str) or not key:
            raise SigninRefused(f"{provider.label} answered the key exchange without a key")
        return Tokens(key)

    async def start_device(self, provider: Provider, client_id: str) -> DeviceGrant:
        body = {"client_id": client_id, **({"scope": provider.scope} if provider.scope else {})}
        async with self._client(provider, client_id) as client:
            reply = await _asking(
                provider,
                client.request(
                    "POST",
                    _need(provider.device_url, provider, "device_url"),
                    data=body,
                    headers={"Accept": "application/json"},
                    withhold_token=True,
                ),
            )
        found = _json(reply, provider)
        device_code, user_code = found.get("device_code"), found.get("user_code")
        uri = found.get("verification_uri") or found.get("verification_url")
        if not (isinstance(device_code, str) and isinstance(user_code, str) and isinstance(uri, str)):
            raise SigninRefused(f"{provider.label} answered the device request without a code to show")
        return DeviceGrant(device_code, user_code, uri, float(found.get("interval") or 5))

    async def poll_device(
        self, provider: Provider, client_id: str, device_code: str, interval_s: float, now: datetime
    ) -> Tokens:
        """The tokens, once the person approved; `DevicePending` until then (`slow_down`: 5 s more)."""
        import httpx2
        from authlib.integrations.httpx_client import OAuthError

        async with self._client(provider, client_id) as client:
            try:
                token = await client.fetch_token(
                    _need(provider.token_url, provider, "token_url"),
                    grant_type=DEVICE_GRANT,
                    device_code=device_code,
                )
            except OAuthError as exc:
                if exc.error == "authorization_pending":
                    raise DevicePending(interval_s) from None
                if exc.error == "slow_down":
                    raise DevicePending(interval_s + 5) from None
                raise SigninRefused(_refusal(provider, exc)) from None
            except (httpx2.HTTPError, ValueError) as exc:
                raise SigninRefused(_unreachable(provider, exc)) from None
        return _tokens(token, now)

    async def refresh(
        self, provider: Provider, client_id: str | None, refresh_token: str, now: datetime
    ) -> Tokens:
        async with self._client(provider, client_id) as client:
            token = await _asking(
                provider,
                client.refresh_token(
                    _need(provider.token_url, provider, "token_url"), refresh_token=refresh_token
                ),
            )
        tokens = _tokens(token, now)
        return tokens if tokens.refresh else Tokens(tokens.access, refresh_token, tokens.expires_at)

    async def check_local(self, provider: Provider) -> None:
        """A local server is there when its `/models` answers; `SigninRefused` says what to do if not."""
        import httpx2

        async with self._client(provider, None) as client:
            try:
                reply = await client.request(
                    "GET", f"{provider.api_base.rstrip('/')}/models", withhold_token=True
                )
                reply.raise_for_status()
                reply.json()
            except (httpx2.HTTPError, ValueError):
                raise SigninRefused(
                    f"{provider.label} does not answer at {provider.api_base}/models: start it "
                    "(`ollama serve`), or add the endpoint by hand with its address"
                ) from None


async def _asking(provider: Provider, call: Any) -> Any:
    """Await one call to the provider, its failures turned into a `SigninRefused`."""
    import httpx2
    from authlib.integrations.httpx_client import OAuthError

    try:
        reply = await call
    except OAuthError as exc:
        raise SigninRefused(_refusal(provider, exc)) from None
    except (httpx2.HTTPError, ValueError) as exc:
        raise SigninRefused(_unreachable(provider, exc)) from None
    if isinstance(reply, httpx2.Response) and reply.is_error:
        detail = redact(reply.text[:200])
        raise SigninRefused(f"{provider.label} refused (HTTP {reply.status_code}: {detail})")
    return reply


def _json(reply: httpx2.Response, provider: Provider) -> dict[str, Any]:
    try:
        found = reply.json()
    except ValueError:
        found = None
    if not isinstance(found, dict):
        raise SigninRefused(f"{provider.label} answered with something other than a JSON object")
    return found


def _tokens(token: Any, now: datetime) -> Tokens:
    access = token.get("access_token")
    if not isinstance(access, str) or not access:
        raise SigninRefused("the provider answered without an access token")
    refresh = token.get("refresh_token")
    expires_in = token.get("expires_in")
    expires_at = now + timedelta(seconds=float(expires_in)) if isinstance(expires_in, int | float) else None
    return Tokens(access, refresh if isinstance(refresh, str) and refresh else None, expires_at)


def _refusal(provider: Provider, exc: Any) -> str:
    said = f"{exc.error}: {exc.description}" if exc.description else str(exc.error)
    return f"{provider.label} refused: {redact(said)}"


def _unreachable(provider: Provider, exc: Exception) -> str:
    return f"{provider.label} could not be asked ({type(exc).__name__}: {redact(str(exc))})"


def _need(url: str | None, provider: Provider, what: str) -> str:
    if not url:
        raise SigninRefused(f"provider `{provider.name}` has no {what}; set it in the providers file")
    return url
