"""The model APIs' one route table, as a client meets it: documented, guarded and served alike.

Each API module declares its routes once (`http/gateway_table.py`). What a
client sees must follow from that row alone: the OpenAPI document lists the
route, a gateway key is asked for on it when keys are required (in the API's
own error shape), and the route answers — none of which may need a second
registration somewhere else.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

import httpx
import pytest

from panelgate.http.app import GATEWAY
from tests.conftest import arrange_bench
from tests.http.key_helpers import ADMIN_TOKEN, keyed_bench
from tests.support.gateway import Gateway
from tests.support.upstream import FakeUpstream

ROUTES = [(route.method, route.path) for route in GATEWAY.routes()]
SAMPLE_PARAMETER = {"model_id": "bench/core", "target": "bench/core", "response_id": "resp_1"}


def _concrete(path: str) -> str:
    return re.sub(r"\{(\w+)(?::\w+)?\}", lambda m: SAMPLE_PARAMETER[m.group(1)], path)


# One gateway of each kind for the module: every test here only reads (or is refused).
@pytest.fixture(scope="module")
def keyed(tmp_path_factory: pytest.TempPathFactory, upstream_server: FakeUpstream) -> Iterator[Gateway]:
    with keyed_bench(tmp_path_factory.mktemp("keyed") / "home", upstream_server) as server:
        yield server


@pytest.fixture(scope="module")
def open_bench(tmp_path_factory: pytest.TempPathFactory, upstream_server: FakeUpstream) -> Iterator[Gateway]:
    server = Gateway(tmp_path_factory.mktemp("open") / "home").start()
    try:
        yield arrange_bench(server, upstream_server)
    finally:
        server.close()


def test_every_route_of_the_table_is_in_the_openapi_document(open_bench: Gateway):
    document = httpx.get(f"{open_bench.url}/openapi.json", timeout=30).json()
    documented = {
        (method.upper(), path) for path, operations in document["paths"].items() for method in operations
    }
    for method, path in ROUTES:
        assert (method, re.sub(r"\{(\w+):\w+\}", r"{\1}", path)) in documented, f"{method} {path}"
    assert ("POST", "/api/keys") in documented, "the admin API is still documented"


@pytest.mark.parametrize(("method", "path"), ROUTES, ids=[f"{m} {p}" for m, p in ROUTES])
def test_every_route_of_the_table_asks_for_a_gateway_key_not_the_admin_token(
    keyed: Gateway, upstream: FakeUpstream, method: str, path: str
):
    headers = {"Authorization": f"Bearer {ADMIN_TOKEN}", "Accept": "application/json, text/event-stream"}
    response = httpx.request(method, f"{keyed.url}{_concrete(path)}", headers=headers, json={}, timeout=30)
    assert response.status_code == 401, response.text
    assert "gateway key" in response.text
    assert upstream.requests == []


@pytest.mark.parametrize(
    ("method", "path"),
    [(m, p) for m, p in ROUTES if m == "GET" and "mcp" not in p],
    ids=[f"{m} {p}" for m, p in ROUTES if m == "GET" and "mcp" not in p],
)
def test_every_listing_route_of_the_table_answers(open_bench: Gateway, method: str, path: str):
    response = httpx.request(method, f"{open_bench.url}{_concrete(path)}", timeout=30)
    expected = 404 if path.startswith("/v1/responses/") else 200  # nothing is stored to fetch
    assert response.status_code == expected, response.text
