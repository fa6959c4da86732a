"""The dashboard's login cookie: signed with a key made from the admin token.

The cookie holds only its expiry and a random nonce, signed with HMAC-SHA256
under a key derived from the admin token, so it needs no server-side
session store, works on every gateway process, and stops working the moment
the token changes. Tokens and signatures are compared in constant time.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import secrets
import time

COOKIE = "panelgate_session"
LIFETIME_S = 7 * 24 * 3600
_CONTEXT = b"panelgate login cookie v1\x00"


def token_matches(offered: str | bytes, token: bytes) -> bool:
    offered_bytes = offered.encode() if isinstance(offered, str) else offered
    return hmac.compare_digest(hashlib.sha256(offered_bytes).digest(), hashlib.sha256(token).digest())


def new_cookie(token: bytes, now: float | None = None) -> str:
    expires = int((now if now is not None else time.time()) + LIFETIME_S)
    payload = f"{expires}.{secrets.token_urlsafe(12)}"
    return f"{payload}.{_signature(token, payload)}"


def cookie_valid(value: str, token: bytes, now: float | None = None) -> bool:
    payload, dot, signature = value.rpartition(".")
    expires = payload.split(".", 1)[0]
    if not dot or not expires.isdigit():
        return False
    if not hmac.compare_digest(signature.encode(), _signature(token, payload).encode()):
        return False
    return int(expires) > (now if now is not None else time.time())


def set_cookie_header(value: str, *, secure: bool, max_age: int = LIFETIME_S) -> str:
    attributes = f"{COOKIE}={value}; Path=/; Max-Age={max_age}; HttpOnly; SameSite=Strict"
    return attributes + ("; Secure" if secure else "")


def _signature(token: bytes, payload: str) -> str:
    key = hashlib.sha256(_CONTEXT + token).digest()
    digest = hmac.new(key, payload.encode(), hashlib.sha256).digest()
    return base64.urlsafe_b64encode(digest).decode().rstrip("=")
