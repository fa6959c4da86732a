"""The CLI honours `HTTP_PROXY` and `NO_PROXY`, as people behind a company proxy set them.

A small forwarding proxy on loopback records each request line it is sent
and passes the request on to the gateway; the command's answer must come
through it, and must not when `NO_PROXY` names the gateway's host.
"""

from __future__ import annotations

import threading
import urllib.request
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from tests.cli.runner import panelgate
from tests.support.gateway import Gateway
from tests.support.upstream import FakeUpstream

DIRECT = urllib.request.build_opener(urllib.request.ProxyHandler({}))


class _Forwarding(BaseHTTPRequestHandler):
    seen: list[str]

    def do_GET(self) -> None:
        self.seen.append(self.requestline)
        forwarded = urllib.request.Request(self.path, headers=dict(self.headers.items()))
        with DIRECT.open(forwarded, timeout=30) as answer:
            body = answer.read()
            self.send_response(answer.status)
            self.send_header("Content-Type", answer.headers.get("Content-Type", "application/json"))
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

    def log_message(self, format: str, *args: object) -> None:
        return


@pytest.fixture
def proxy() -> Iterator[tuple[str, list[str]]]:
    seen: list[str] = []
    handler = type("Recording", (_Forwarding,), {"seen": seen})
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", seen
    finally:
        server.shutdown()
        server.server_close()


def test_a_command_goes_through_the_proxy_the_environment_names(
    bench: Gateway, upstream: FakeUpstream, proxy: tuple[str, list[str]]
):
    address, seen = proxy
    result = panelgate("collections", url=bench.url, env={"HTTP_PROXY": address, "NO_PROXY": ""})
    assert result.returncode == 0, result.stderr
    assert "core" in result.stdout
    assert any(line.startswith(f"GET {bench.url}/api/collections") for line in seen), seen


def test_no_proxy_sends_the_command_straight_to_the_server(
    bench: Gateway, upstream: FakeUpstream, proxy: tuple[str, list[str]]
):
    address, seen = proxy
    result = panelgate("collections", url=bench.url, env={"HTTP_PROXY": address, "NO_PROXY": "127.0.0.1"})
    assert result.returncode == 0, result.stderr
    assert "core" in result.stdout
    assert seen == []
