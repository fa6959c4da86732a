"""Loopback stand-ins for the catalogs' sources: a public catalog server, and an upstream whose
`/models` listing states facts (OpenRouter-style `context_length`, `pricing`, ...).

Both are real servers on 127.0.0.1, so a refresh fetches over real sockets
exactly as it would from models.dev, OpenRouter or a provider.
"""

from __future__ import annotations

import copy
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import orjson

from tests.support.gateway import Gateway
from tests.support.upstream import FakeUpstream

FIXTURES = Path(__file__).parent / "fixtures"
MODELS_DEV_PATH = "/api.json"
OPENROUTER_PATH = "/api/v1/models"


def fixture(name: str) -> Any:
    """A fresh copy of a fixture document (a test may change it)."""
    return copy.deepcopy(orjson.loads((FIXTURES / name).read_bytes()))


def models_dev() -> Any:
    return fixture("models_dev_api.json")


def openrouter() -> Any:
    return fixture("openrouter_models.json")


class CatalogServer:
    """Serves JSON documents by path; `publish` replaces one, `fail` makes a path answer an error."""

    def __init__(self) -> None:
        self._documents: dict[str, bytes] = {}
        self._failing: dict[str, int] = {}
        self.requests: list[str] = []
        self._lock = threading.Lock()
        server = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                with server._lock:
                    server.requests.append(self.path)
                    status = server._failing.get(self.path)
                    body = server._documents.get(self.path)
                if status is None and body is None:
                    status = 404
                payload = body if status is None else b'{"error": "unavailable"}'
                self.send_response(status or 200)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(payload or b"")))
                self.end_headers()
                self.wfile.write(payload or b"")

            def log_message(self, *args: Any) -> None:
                pass

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self._server.server_address[1]}"
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    def publish(self, path: str, document: Any) -> None:
        with self._lock:
            self._documents[path] = orjson.dumps(document)
            self._failing.pop(path, None)

    def fail(self, path: str, status: int = 503) -> None:
        with self._lock:
            self._failing[path] = status

    def start(self) -> CatalogServer:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(10)


@contextmanager
def catalog_server() -> Iterator[CatalogServer]:
    """The public catalogs on loopback, serving the fixtures."""
    server = CatalogServer().start()
    server.publish(MODELS_DEV_PATH, models_dev())
    server.publish(OPENROUTER_PATH, openrouter())
    try:
        yield server
    finally:
        server.stop()


def point_catalogs_at(gateway: Gateway, server: CatalogServer) -> None:
    """Have the gateway fetch models.dev and OpenRouter's list from `server`."""
    gateway.api("PUT", "/api/catalog/sources/models.dev", {"url": server.url + MODELS_DEV_PATH}, expect=200)
    gateway.api("PUT", "/api/catalog/sources/openrouter", {"url": server.url + OPENROUTER_PATH}, expect=200)


def refresh(gateway: Gateway) -> Any:
    return gateway.api("POST", "/api/catalog/refresh", expect=200)


def facts(gateway: Gateway, alias: str) -> dict[str, Any]:
    """`GET /api/models/{alias}/facts`, with its facts by name."""
    shown = gateway.api("GET", f"/api/models/{alias}/facts", expect=200)
    return {**shown, "facts": {fact["name"]: fact for fact in shown["facts"]}}


class ListingUpstream(FakeUpstream):
    """A fake upstream whose `GET /v1/models` entries carry more than an id: `details[model]`."""

    def __init__(self, models: tuple[str, ...] = ()) -> None:
        super().__init__(models)
        self.details: dict[str, dict[str, Any]] = {}

    def _listing(self) -> object:
        listing: Any = super()._listing()
        entries = listing["data"] if isinstance(listing, dict) and "data" in listing else listing
        for entry in entries if isinstance(entries, list) else entries["models"]:
            entry.update(self.details.get(entry["id"], {}))
        return listing
