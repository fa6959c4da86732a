"""A gateway behind an egress proxy: a panel reaches an https upstream through it, or around it.

The gateway runs as `panelgate serve` in a child process with the proxy in
its environment (`HTTPS_PROXY`, `NO_PROXY`) and the test authority trusted
through `SSL_CERT_FILE`, as a person would run it behind a corporate proxy.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from tests.conftest import arrange_bench
from tests.support.gateway import Gateway
from tests.support.http_proxy import LoopbackProxy
from tests.support.upstream import FakeUpstream
from tests.upstream.local_tls import LocalTls, local_tls

PROXY_VARIABLES = ("HTTPS_PROXY", "https_proxy", "HTTP_PROXY", "http_proxy", "NO_PROXY", "no_proxy")


@pytest.fixture
def tls(tmp_path: Path) -> LocalTls:
    return local_tls(tmp_path)


@pytest.fixture
def secure(tls: LocalTls) -> Iterator[FakeUpstream]:
    with FakeUpstream(tls=tls.server, host="localhost") as upstream:
        yield upstream


@pytest.fixture
def proxy() -> Iterator[LoopbackProxy]:
    with LoopbackProxy() as loopback:
        yield loopback


def port_of(upstream: FakeUpstream) -> str:
    return upstream.url.split(":")[2].split("/")[0]


def ask_panel(home: Path, environment: dict[str, str], upstream: FakeUpstream) -> httpx.Response:
    """A gateway in a child process with `environment`, a bench on `upstream`, and one panel asked."""
    env = dict.fromkeys(PROXY_VARIABLES, "") | environment  # the test machine's own proxy settings out
    gateway = Gateway(home, env=env, in_process=False).start()
    try:
        arrange_bench(gateway, upstream)
        body = {"model": "bench/core", "messages": [{"role": "user", "content": "which way?"}]}
        return httpx.post(f"{gateway.url}/v1/chat/completions", json=body, timeout=30)
    finally:
        gateway.close()


def test_panel_reaches_an_https_upstream_through_the_proxy(
    tmp_path: Path, tls: LocalTls, secure: FakeUpstream, proxy: LoopbackProxy
):
    reply = ask_panel(
        tmp_path / "home", {"HTTPS_PROXY": proxy.url, "SSL_CERT_FILE": str(tls.ca_file)}, secure
    )
    assert reply.status_code == 200, reply.text
    assert {r.model for r in secure.requests} == {"m1", "m2", "m3"}
    assert all(r.path == "/v1/chat/completions" for r in secure.requests)
    carried = proxy.targets()
    assert f"CONNECT localhost:{port_of(secure)}" in carried
    assert all(target.startswith("CONNECT ") for target in carried)  # tunnels only: the proxy saw no prompt
    assert set(tls.server_names) == {"localhost"}


def test_no_proxy_sends_the_panel_around_the_proxy(
    tmp_path: Path, tls: LocalTls, secure: FakeUpstream, proxy: LoopbackProxy
):
    environment = {"HTTPS_PROXY": proxy.url, "NO_PROXY": "localhost", "SSL_CERT_FILE": str(tls.ca_file)}
    reply = ask_panel(tmp_path / "home", environment, secure)
    assert reply.status_code == 200, reply.text
    assert {r.model for r in secure.requests} == {"m1", "m2", "m3"}
    assert [target for target in proxy.targets() if f":{port_of(secure)}" in target] == []


@pytest.mark.parametrize(("refusal", "asked_per_seat"), [(407, 1), (403, 1), (502, 3)])
def test_a_proxy_refusal_that_would_come_again_is_not_asked_again(
    tmp_path: Path,
    tls: LocalTls,
    secure: FakeUpstream,
    proxy: LoopbackProxy,
    refusal: int,
    asked_per_seat: int,
):
    """Wrong credentials or the proxy's rules refuse every try alike, so a seat fails at once; a 502
    (the proxy could not reach the host this time) is tried again, as a failed connection is."""
    env = dict.fromkeys(PROXY_VARIABLES, "") | {"HTTPS_PROXY": proxy.url, "SSL_CERT_FILE": str(tls.ca_file)}
    gateway = Gateway(tmp_path / "home", env=env, in_process=False).start()
    try:
        arrange_bench(gateway, secure)
        proxy.refuse_from_now(refusal)
        body = {"model": "bench/core", "messages": [{"role": "user", "content": "which way?"}]}
        reply = httpx.post(f"{gateway.url}/v1/chat/completions", json=body, timeout=30)
    finally:
        gateway.close()
    tunnel = f"CONNECT localhost:{port_of(secure)}"
    assert proxy.targets() == [tunnel] * (3 * asked_per_seat)
    assert {r.path for r in secure.requests} <= {"/v1/models"}, "no call got through"
    assert f"refused a tunnel to localhost:{port_of(secure)}: {refusal}" in reply.text
