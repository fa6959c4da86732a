"""A loopback sign-in provider for tests: OAuth code + PKCE, refresh, device code, key flow, model API.

A real HTTP server (Starlette under uvicorn, on its own thread) that does
what the providers the gateway signs in to do, strictly enough to fail a
client that gets them wrong:

- `GET /authorize`: approves at once and sends the browser back to
  `redirect_uri` with `code` and `state` (or `error=access_denied` when
  `deny` is set); refuses an unknown client id or a challenge that is not
  S256;
- `POST /token`: `authorization_code` (the PKCE verifier must hash to the
  challenge, the redirect URI and client id must match), `refresh_token`
  (rotating: the old refresh token dies; `fail_refresh` refuses it), and
  the device code grant (`authorization_pending` until the code is
  approved, `slow_down` the first `slow_downs` polls);
- `POST /device/code` and `POST /device` (where the person types the user
  code: `approve(user_code)` does the same);
- OpenRouter's key flow: `GET /auth` sends the browser back to
  `callback_url` with only `?code=`, and `POST /api/v1/auth/keys` trades
  the code and verifier for a key;
- `GET /v1/models` and `POST /v1/chat/completions`, which answer only the
  access tokens (and keys) current now: a renewed-away token is refused,
  so a panel that works proves the gateway sends the token it holds now.

Every token it ever issued is in `issued`, for the secret scan.
"""

from __future__ import annotations

import base64
import hashlib
import secrets
import threading
import time
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlencode

import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, RedirectResponse, Response
from starlette.routing import Route

from tests.support.gateway import free_port
from tests.support.prompt_server import PromptServer

CLIENT_ID = "test-client-id"
MODEL = "signed-model"


def s256(verifier: str) -> str:
    return base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).rstrip(b"=").decode()


@dataclass
class _Pending:
    client_id: str
    redirect_uri: str
    challenge: str


@dataclass
class _Device:
    client_id: str
    user_code: str
    approved: bool = False


@dataclass
class ProviderState:
    expires_in: int = 3600
    """The lifetime of tokens won by a code or a device code."""
    refreshed_expires_in: int = 3600
    """The lifetime of tokens won by a refresh."""
    fail_refresh: bool = False
    deny: bool = False
    slow_downs: int = 0
    interval: int = 1
    client_id: str = CLIENT_ID
    codes: dict[str, _Pending] = field(default_factory=dict)
    key_codes: dict[str, str] = field(default_factory=dict)
    devices: dict[str, _Device] = field(default_factory=dict)
    refresh_tokens: dict[str, str] = field(default_factory=dict)
    """Live refresh token → the client id it was issued to."""
    access_for: dict[str, str] = field(default_factory=dict)
    """Refresh token → the access token issued with it (which dies when it is spent)."""
    live: set[str] = field(default_factory=set)
    issued: list[str] = field(default_factory=list)
    secrets_seen: list[str] = field(default_factory=list)
    """Codes, verifiers and device codes that passed between the gateway and this provider."""
    grants: list[str] = field(default_factory=list)
    """The grant type of every token request, in order."""
    chats: list[str] = field(default_factory=list)
    """The token each answered chat call carried."""


class OAuthProvider:
    def __init__(self) -> None:
        self.state = ProviderState()
        self.lock = threading.Lock()
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        app = Starlette(
            routes=[
                Route("/authorize", self._authorize),
                Route("/token", self._token, methods=["POST"]),
                Route("/device/code", self._device_code, methods=["POST"]),
                Route("/device", self._device_approve, methods=["POST"]),
                Route("/auth", self._key_page),
                Route("/api/v1/auth/keys", self._key_exchange, methods=["POST"]),
                Route("/v1/models", self._models),
                Route("/v1/chat/completions", self._chat, methods=["POST"]),
            ]
        )
        config = uvicorn.Config(app, host="127.0.0.1", port=self.port, log_level="warning", lifespan="off")
        self._server = PromptServer(config)
        self._thread = threading.Thread(target=self._server.run, name="oauth-provider", daemon=True)

    def __enter__(self) -> OAuthProvider:
        self._thread.start()
        deadline = time.monotonic() + 10
        while not self._server.started:
            assert time.monotonic() < deadline, "the loopback provider did not start"
            time.sleep(0.01)
        return self

    def __exit__(self, *_: object) -> None:
        self._server.stop_soon()
        self._thread.join(10)

    def reset(self) -> None:
        with self.lock:
            self.state = ProviderState()

    def overrides(self, name: str, **fields: Any) -> dict[str, Any]:
        """The providers-file entry pointing provider `name` at this server."""
        return {
            name: {
                "api_base": f"{self.url}/v1",
                "authorize_url": f"{self.url}/auth" if name == "openrouter" else f"{self.url}/authorize",
                "token_url": f"{self.url}/api/v1/auth/keys" if name == "openrouter" else f"{self.url}/token",
                **fields,
            }
        }

    def approve(self, user_code: str) -> None:
        with self.lock:
            for device in self.state.devices.values():
                if device.user_code == user_code:
                    device.approved = True

    def grants(self, kind: str) -> int:
        with self.lock:
            return sum(1 for grant in self.state.grants if grant == kind)

    # ---- the routes ------------------------------------------------------------------

    async def _authorize(self, request: Request) -> Response:
        q = request.query_params
        if q.get("client_id") != self.state.client_id or q.get("code_challenge_method") != "S256":
            return JSONResponse({"error": "invalid_request"}, 400)
        back = q["redirect_uri"]
        if self.state.deny:
            return RedirectResponse(
                f"{back}?{urlencode({'error': 'access_denied', 'state': q['state']})}", 302
            )
        code = secrets.token_urlsafe(16)
        with self.lock:
            self.state.codes[code] = _Pending(q["client_id"], back, q["code_challenge"])
            self.state.secrets_seen.append(code)
        return RedirectResponse(f"{back}?{urlencode({'code': code, 'state': q['state']})}", 302)

    async def _token(self, request: Request) -> Response:
        form = dict(await request.form())
        grant = str(form.get("grant_type"))
        with self.lock:
            self.state.grants.append(grant)
            self.state.secrets_seen += [str(form[k]) for k in ("code_verifier", "device_code") if k in form]
            if grant == "authorization_code":
                return self._code_grant(form)
            if grant == "refresh_token":
                return self._refresh_grant(form)
            if grant == "urn:ietf:params:oauth:grant-type:device_code":
                return self._device_grant(form)
        return _oauth_error("unsupported_grant_type")

    def _code_grant(self, form: dict[str, Any]) -> Response:
        pending = self.state.codes.pop(str(form.get("code")), None)
        if pending is None or form.get("client_id") != pending.client_id:
            return _oauth_error("invalid_grant")
        if form.get("redirect_uri") != pending.redirect_uri:
            return _oauth_error("invalid_grant", "redirect_uri does not match")
        if s256(str(form.get("code_verifier", ""))) != pending.challenge:
            return _oauth_error("invalid_grant", "PKCE verification failed")
        return self._tokens(pending.client_id, self.state.expires_in)

    def _refresh_grant(self, form: dict[str, Any]) -> Response:
        if self.state.fail_refresh:
            return _oauth_error("invalid_grant", "the refresh token is revoked")
        spent = str(form.get("refresh_token"))
        client = self.state.refresh_tokens.pop(spent, None)
        if client is None or client != form.get("client_id"):
            return _oauth_error("invalid_grant", "the refresh token is revoked")
        self.state.live.discard(self.state.access_for.pop(spent, ""))
        return self._tokens(client, self.state.refreshed_expires_in)

    def _device_grant(self, form: dict[str, Any]) -> Response:
        device = self.state.devices.get(str(form.get("device_code")))
        if device is None or device.client_id != form.get("client_id"):
            return _oauth_error("invalid_grant")
        if self.state.slow_downs > 0:
            self.state.slow_downs -= 1
            return _oauth_error("slow_down")
        if not device.approved:
            return _oauth_error("authorization_pending")
        del self.state.devices[str(form.get("device_code"))]
        return self._tokens(device.client_id, self.state.expires_in)

    def _tokens(self, client_id: str, expires_in: int) -> Response:
        access, refresh = "at-" + secrets.token_hex(16), "rt-" + secrets.token_hex(16)
        self.state.live.add(access)
        self.state.refresh_tokens[refresh] = client_id
        self.state.access_for[refresh] = access
        self.state.issued += [access, refresh]
        body = {
            "access_token": access,
            "token_type": "bearer",
            "expires_in": expires_in,
            "refresh_token": refresh,
        }
        return JSONResponse(body, headers={"Cache-Control": "no-store"})

    async def _device_code(self, request: Request) -> Response:
        form = await request.form()
        if form.get("client_id") != self.state.client_id:
            return _oauth_error("invalid_client")
        device_code, user_code = secrets.token_urlsafe(16), secrets.token_hex(4).upper()
        with self.lock:
            self.state.devices[device_code] = _Device(str(form["client_id"]), user_code)
        return JSONResponse(
            {
                "device_code": device_code,
                "user_code": user_code,
                "verification_uri": f"{self.url}/device",
                "expires_in": 900,
                "interval": self.state.interval,
            }
        )

    async def _device_approve(self, request: Request) -> Response:
        self.approve(str((await request.form()).get("user_code")))
        return Response("approved", media_type="text/plain")

    async def _key_page(self, request: Request) -> Response:
        q = request.query_params
        if q.get("code_challenge_method") != "S256":
            return JSONResponse({"error": "S256 only"}, 400)
        code = secrets.token_urlsafe(16)
        with self.lock:
            self.state.key_codes[code] = q["code_challenge"]
            self.state.secrets_seen.append(code)
        return RedirectResponse(f"{q['callback_url']}?{urlencode({'code': code})}", 302)

    async def _key_exchange(self, request: Request) -> Response:
        body = await request.json()
        with self.lock:
            self.state.secrets_seen.append(str(body.get("code_verifier")))
            challenge = self.state.key_codes.pop(str(body.get("code")), None)
            if challenge is None or s256(str(body.get("code_verifier", ""))) != challenge:
                return JSONResponse({"error": {"message": "invalid code"}}, 403)
            key = "sk-or-" + secrets.token_hex(16)
            self.state.live.add(key)
            self.state.issued.append(key)
        return JSONResponse({"key": key, "user_id": "user-1"})

    def _bearer(self, request: Request) -> str | None:
        token = request.headers.get("authorization", "").removeprefix("Bearer ")
        with self.lock:
            return token if token in self.state.live else None

    async def _models(self, request: Request) -> Response:
        if self._bearer(request) is None:
            return JSONResponse({"error": {"message": "invalid token"}}, 401)
        return JSONResponse({"object": "list", "data": [{"id": MODEL, "object": "model"}]})

    async def _chat(self, request: Request) -> Response:
        token = self._bearer(request)
        if token is None:
            return JSONResponse({"error": {"message": "invalid or expired token", "type": "auth"}}, 401)
        with self.lock:
            self.state.chats.append(token)
        body = await request.json()
        return JSONResponse(
            {
                "id": "chatcmpl-1",
                "object": "chat.completion",
                "model": body.get("model"),
                "choices": [
                    {
                        "index": 0,
                        "message": {"role": "assistant", "content": "answer through a sign-in"},
                        "finish_reason": "stop",
                    }
                ],
                "usage": {"prompt_tokens": 5, "completion_tokens": 4, "total_tokens": 9},
            }
        )


def _oauth_error(error: str, description: str | None = None) -> Response:
    body = {"error": error, **({"error_description": description} if description else {})}
    return JSONResponse(body, 400)
