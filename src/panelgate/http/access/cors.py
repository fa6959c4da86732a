"""CORS for the gateway routes: only listed origins, echoed one at a time, never `*` or credentials.

A browser app on an allowed origin (set in `PANELGATE_ALLOWED_ORIGINS`, or
the public URL's) may call the model APIs with a gateway key. Its preflight
may ask for any plain header names (the OpenAI JS SDK sends a dozen
`X-Stainless-*`); the reply exposes the `X-Bench-*` headers it can read.
"""

from __future__ import annotations

import re

from panelgate.http.access.policy import AccessPolicy
from panelgate.http.access.request_view import RequestView

ALLOWED_METHODS = "GET, POST, OPTIONS"
EXPOSED = "X-Bench-Call, X-Bench-Conversation, X-Bench-Model, X-Bench-Panel, X-Bench-Seats, Retry-After"
MAX_AGE_S = "600"
_HEADER_NAME = re.compile(r"^[A-Za-z0-9!#$%&'*+.^_`|~-]+$")


def is_preflight(view: RequestView) -> bool:
    return (
        view.method == "OPTIONS"
        and "origin" in view.headers
        and "access-control-request-method" in view.headers
    )


def allowed_origin(view: RequestView, policy: AccessPolicy) -> str | None:
    origin = view.headers.get("origin", "").strip()
    return origin if origin and origin.lower() in policy.origins else None


def preflight_headers(view: RequestView, origin: str) -> dict[str, str] | None:
    """What to answer a preflight from an allowed origin; None when it asks for more than plain headers."""
    if view.headers["access-control-request-method"].strip().upper() not in ("GET", "POST"):
        return None
    asked = [
        h.strip() for h in view.headers.get("access-control-request-headers", "").split(",") if h.strip()
    ]
    if not all(_HEADER_NAME.match(name) for name in asked):
        return None
    headers = {
        "Access-Control-Allow-Origin": origin,
        "Access-Control-Allow-Methods": ALLOWED_METHODS,
        "Access-Control-Max-Age": MAX_AGE_S,
        "Vary": "Origin",
    }
    if asked:
        headers["Access-Control-Allow-Headers"] = ", ".join(asked)
    return headers


def reply_headers(origin: str) -> list[tuple[bytes, bytes]]:
    return [
        (b"access-control-allow-origin", origin.encode("latin-1")),
        (b"access-control-expose-headers", EXPOSED.encode()),
        (b"vary", b"Origin"),
    ]
