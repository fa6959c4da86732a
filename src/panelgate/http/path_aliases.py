"""Other spellings of the gateway's paths, rewritten to the route table's before anything reads them.

Two kinds of client miss the table as written. OpenAI clients configured
with a base URL without `/v1` post to `/chat/completions`, `/completions`,
`/responses` and list `/models`. google-genai speaks Gemini under `/v1/` (its
default API version) rather than `/v1beta/`, and `/v1/models[/{id}]` is also
OpenAI's model list and get: a Gemini request there is told apart by what
only Gemini clients send — a POST (OpenAI has none under `/v1/models`), the
`x-goog-api-key` or `x-goog-api-client` header, or a `key=` query. The
dashboard's Models page is `/models` too, so a request that asks for HTML
keeps it.

Rewriting the path here, in front of the access guard, means the guard
(credential, `?key=`, CORS), the error shapes and the router each see the
canonical path and decide exactly as they do for it: nothing is registered
twice. The access log, outside this, writes the path as sent. A hot path
pays two string prefix checks.
"""

from __future__ import annotations

from starlette.types import ASGIApp, Receive, Scope, Send

OPENAI_BARE = {
    "/chat/completions": "/v1/chat/completions",
    "/completions": "/v1/completions",
    "/responses": "/v1/responses",
}
OPENAI_BARE_PREFIXES = ("/models/", "/responses/")
BARE_MODELS = "/models"
"""OpenAI's model list without `/v1`, and the dashboard's Models page."""
V1_MODELS = "/v1/models"
GEMINI_HEADERS = frozenset({b"x-goog-api-key", b"x-goog-api-client"})


class PathAliases:
    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        canonical = canonical_path(scope) if scope["type"] == "http" else None
        if canonical is None:
            await self.app(scope, receive, send)
            return
        scope.setdefault("state", {})  # shared with the rewritten copy: the access log reads the caller there
        await self.app({**scope, "path": canonical}, receive, send)


def canonical_path(scope: Scope) -> str | None:
    """The route table's path for this request, or None when its own path is the one to use."""
    path: str = scope["path"]
    if path.startswith("/v1/"):
        on_models = path == V1_MODELS or path.startswith(V1_MODELS + "/")
        return "/v1beta" + path.removeprefix("/v1") if on_models and _speaks_gemini(scope) else None
    bare = OPENAI_BARE.get(path)
    if bare is not None:
        return bare
    if path == BARE_MODELS:
        return None if _wants_page(scope) else "/v1" + path
    return "/v1" + path if path.startswith(OPENAI_BARE_PREFIXES) else None


def _speaks_gemini(scope: Scope) -> bool:
    if scope.get("method") == "POST" or any(name in GEMINI_HEADERS for name, _ in scope.get("headers", ())):
        return True
    query: bytes = scope.get("query_string", b"")
    return any(pair.startswith(b"key=") for pair in query.split(b"&"))


def _wants_page(scope: Scope) -> bool:
    """A browser's navigation (it asks for HTML); API clients ask for JSON or anything."""
    return any(name == b"accept" and b"text/html" in value for name, value in scope.get("headers", ()))
