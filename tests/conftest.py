"""Fixtures shared by every room's tests: the loopback upstream and a real gateway."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.catalog.loopback import CatalogServer, catalog_server
from tests.support.gateway import TEST_REDIS_URL, Gateway
from tests.support.oauth_provider import OAuthProvider
from tests.support.redis_server import RedisServer
from tests.support.shared_tls import share_tls_contexts
from tests.support.upstream import FakeUpstream

# The tests' gateways call loopback servers; a developer's proxy settings would send those calls
# through the proxy. The tests of proxies set their own, on the gateway or the pool they make.
for proxy_variable in ("HTTP_PROXY", "HTTPS_PROXY", "NO_PROXY", "ALL_PROXY"):
    os.environ.pop(proxy_variable, None)
    os.environ.pop(proxy_variable.lower(), None)

share_tls_contexts()


@pytest.fixture(scope="session")
def upstream_server() -> Iterator[FakeUpstream]:
    with FakeUpstream() as server:
        yield server


@pytest.fixture(scope="session")
def redis_url() -> Iterator[str]:
    """A Redis for tests of the shared state: `PANELGATE_TEST_REDIS_URL`'s, else one of this run's own."""
    if TEST_REDIS_URL:
        yield TEST_REDIS_URL
        return
    with RedisServer() as server:
        yield server.url


@pytest.fixture
def upstream(upstream_server: FakeUpstream) -> FakeUpstream:
    """The loopback upstream, forgetting every behaviour and request of earlier tests."""
    upstream_server.reset()
    upstream_server.require_key = None
    return upstream_server


@pytest.fixture
def gateway(tmp_path: Path) -> Iterator[Gateway]:
    server = Gateway(tmp_path / "home").start()
    try:
        yield server
    finally:
        server.close()


@pytest.fixture
def crashable_gateway(tmp_path: Path) -> Iterator[Gateway]:
    """`panelgate serve` as a child process, so a test can SIGKILL it."""
    server = Gateway(tmp_path / "home", in_process=False).start()
    try:
        yield server
    finally:
        server.close()


def arrange_bench(gateway: Gateway, upstream: FakeUpstream) -> Gateway:
    """Endpoint `up` on the loopback upstream, models m1–m3, collection `core`, no explorers."""
    upstream.serve("m1", "m2", "m3")
    gateway.add_endpoint("up", upstream.url)
    for alias in ("m1", "m2", "m3"):
        gateway.add_model(alias)
    gateway.gateway_settings(max_calls=3, max_explorers=0)
    gateway.save_collection("core", ["m1", "m2", "m3"], description="three models")
    return gateway


@pytest.fixture
def bench(gateway: Gateway, upstream: FakeUpstream) -> Gateway:
    return arrange_bench(gateway, upstream)


@pytest.fixture
def crashable_bench(crashable_gateway: Gateway, upstream: FakeUpstream) -> Gateway:
    return arrange_bench(crashable_gateway, upstream)


@pytest.fixture
def catalogs() -> Iterator[CatalogServer]:
    """The public catalogs on loopback, serving the fixtures until a test publishes others."""
    with catalog_server() as server:
        yield server


@pytest.fixture(scope="session")
def provider_server() -> Iterator[OAuthProvider]:
    with OAuthProvider() as server:
        yield server


@pytest.fixture
def provider(provider_server: OAuthProvider) -> OAuthProvider:
    """The loopback provider, forgetting every code, token and setting of earlier tests."""
    provider_server.reset()
    return provider_server
