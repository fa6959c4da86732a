"""The pool through an HTTP proxy on loopback: CONNECT tunnels for https, whole URLs for http."""

from __future__ import annotations

import asyncio
import base64
from collections.abc import AsyncIterator, Iterator, Mapping
from pathlib import Path

import orjson
import pytest

from panelgate.upstream.proxy_route import ProxyRoutes
from panelgate.upstream.transport import HttpPool, TransportError
from tests.support.http_proxy import LoopbackProxy
from tests.support.upstream import FakeUpstream
from tests.upstream.local_tls import LocalTls, local_tls

CHAT = orjson.dumps({"model": "m1", "messages": [{"role": "user", "content": "hi"}]})


@pytest.fixture
def tls(tmp_path: Path) -> LocalTls:
    return local_tls(tmp_path)


@pytest.fixture
def secure(tls: LocalTls) -> Iterator[FakeUpstream]:
    """An https upstream at `localhost`, whose certificate names `localhost` only (not 127.0.0.1)."""
    with FakeUpstream(["m1"], tls=tls.server, host="localhost") as upstream:
        yield upstream


@pytest.fixture
def proxy() -> Iterator[LoopbackProxy]:
    with LoopbackProxy() as loopback:
        yield loopback


@pytest.fixture
async def pools() -> AsyncIterator[list[HttpPool]]:
    made: list[HttpPool] = []
    yield made
    for pool in made:
        await pool.aclose()


def pool_with(pools: list[HttpPool], tls: LocalTls, environ: Mapping[str, str]) -> HttpPool:
    pool = HttpPool(
        connect_timeout=3, keepalive_s=30, proxies=ProxyRoutes.from_environment(environ), tls=tls.client
    )
    pools.append(pool)
    return pool


async def ask(pool: HttpPool, base_url: str) -> tuple[int, bytes]:
    parts = []
    async with pool.request(
        "POST", f"{base_url}/chat/completions", {"content-type": "application/json"}, CHAT
    ) as reply:
        while data := await reply.read():
            parts.append(data)
    return reply.status, b"".join(parts)


async def test_https_call_goes_through_one_tunnel_checked_for_the_destination(
    pools: list[HttpPool], tls: LocalTls, secure: FakeUpstream, proxy: LoopbackProxy
):
    pool = pool_with(pools, tls, {"HTTPS_PROXY": proxy.url})
    first, second = await ask(pool, secure.url), await ask(pool, secure.url)
    port = secure.url.split(":")[2].split("/")[0]
    assert first[0] == second[0] == 200 and b"answer from m1" in second[1]
    assert proxy.targets() == [f"CONNECT localhost:{port}"]  # the tunnel stays open for the next call
    assert tls.server_names == ["localhost"]  # SNI names the destination, not the proxy at 127.0.0.1
    assert [r.model for r in secure.requests] == ["m1", "m1"]


async def test_http_call_asks_the_proxy_for_the_whole_url(
    pools: list[HttpPool], tls: LocalTls, upstream: FakeUpstream, proxy: LoopbackProxy
):
    upstream.serve("m1")
    pool = pool_with(pools, tls, {"HTTP_PROXY": proxy.url})
    assert (await ask(pool, upstream.url))[0] == 200
    assert (await ask(pool, upstream.url))[0] == 200
    assert proxy.targets() == [f"POST {upstream.url}/chat/completions"] * 2
    assert [r.path for r in upstream.requests] == ["/v1/chat/completions"] * 2


async def test_proxy_credentials_are_sent_to_the_proxy_only(
    pools: list[HttpPool], tls: LocalTls, secure: FakeUpstream
):
    with LoopbackProxy(credentials=("ann", "s3cret pw")) as proxy:
        pool = pool_with(pools, tls, {"https_proxy": f"http://ann:s3cret%20pw@127.0.0.1:{proxy.port}"})
        assert (await ask(pool, secure.url))[0] == 200
    expected = "Basic " + base64.b64encode(b"ann:s3cret pw").decode()
    assert [c.authorization for c in proxy.carried] == [expected]
    assert "proxy-authorization" not in secure.requests[0].headers


@pytest.mark.parametrize("refusal", [403, 502])
async def test_proxy_refusing_the_tunnel_is_an_error_naming_its_status(
    pools: list[HttpPool], tls: LocalTls, secure: FakeUpstream, refusal: int
):
    with LoopbackProxy(refuse=refusal) as proxy:
        pool = pool_with(pools, tls, {"HTTPS_PROXY": proxy.url})
        with pytest.raises(TransportError) as caught:
            await ask(pool, secure.url)
    assert f"the proxy 127.0.0.1:{proxy.port} refused a tunnel to localhost:" in str(caught.value)
    assert f": {refusal} " in str(caught.value)
    assert secure.requests == []


@pytest.mark.parametrize("variable", ["HTTPS_PROXY", "HTTP_PROXY"])
async def test_proxy_asking_for_credentials_is_an_error_naming_it_that_does_not_repeat_them(
    pools: list[HttpPool], tls: LocalTls, secure: FakeUpstream, upstream: FakeUpstream, variable: str
):
    destination = secure if variable == "HTTPS_PROXY" else upstream  # a tunnel, or a whole URL asked for
    with LoopbackProxy(credentials=("ann", "right-secret")) as proxy:
        pool = pool_with(pools, tls, {variable: f"http://ann:wrong-secret@127.0.0.1:{proxy.port}"})
        with pytest.raises(TransportError) as caught:
            await ask(pool, destination.url)
    said = str(caught.value)
    assert f"the proxy 127.0.0.1:{proxy.port} refused" in said and "407 Proxy Authentication Required" in said
    assert "wrong-secret" not in said and "ann" not in said and destination.requests == []


async def test_unreachable_proxy_is_named_without_its_credentials(
    pools: list[HttpPool], tls: LocalTls, secure: FakeUpstream
):
    with LoopbackProxy() as gone:
        port = gone.port
    pool = pool_with(pools, tls, {"HTTPS_PROXY": f"http://ann:hunter22@127.0.0.1:{port}"})
    with pytest.raises(TransportError) as caught:
        await ask(pool, secure.url)
    assert f"could not reach the proxy 127.0.0.1:{port}" in str(caught.value)
    assert "hunter22" not in str(caught.value) and "ann" not in str(caught.value)


async def test_no_proxy_sends_the_call_straight_to_the_host(
    pools: list[HttpPool], tls: LocalTls, secure: FakeUpstream, proxy: LoopbackProxy
):
    pool = pool_with(pools, tls, {"HTTPS_PROXY": proxy.url, "NO_PROXY": "example.org,localhost"})
    assert (await ask(pool, secure.url))[0] == 200
    assert proxy.carried == [] and len(secure.requests) == 1


async def test_certificate_for_another_name_is_refused_through_the_tunnel(
    pools: list[HttpPool], tmp_path: Path, proxy: LoopbackProxy
):
    elsewhere = local_tls(tmp_path, name="elsewhere.test")
    served: list[bool] = []

    async def answer(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        served.append(True)  # reached only past a handshake the client accepted
        writer.close()

    server = await asyncio.start_server(answer, "127.0.0.1", 0, ssl=elsewhere.server)
    async with server:
        port = server.sockets[0].getsockname()[1]
        pool = pool_with(pools, elsewhere, {"HTTPS_PROXY": proxy.url})
        with pytest.raises(TransportError) as caught:
            await ask(pool, f"https://localhost:{port}/v1")
    assert "certificate" in str(caught.value).lower() and served == []
    assert proxy.targets() == [f"CONNECT localhost:{port}"]
