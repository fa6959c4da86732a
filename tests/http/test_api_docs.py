"""The API documentation page works offline: `/docs` loads everything from the gateway.

The page's HTML is read for every address it loads (script, style, the
icon, the OpenAPI document); none may point at another host, and each must
answer 200 from the gateway itself. With an admin token set, the page and
its files take the same credential as `/openapi.json`.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from tests.support.gateway import Gateway

TOKEN = "a-token-of-twenty-chars"
LOADED = re.compile(r"""(?:src|href)="([^"]+)"|\burl: '([^']+)'""")


def loaded_addresses(page: str) -> list[str]:
    return [attribute or script_url for attribute, script_url in LOADED.findall(page)]


def test_docs_page_loads_every_file_from_this_gateway(gateway: Gateway) -> None:
    with httpx.Client(base_url=gateway.url, timeout=30) as client:
        html = client.get("/docs")
        assert html.status_code == 200
        assert "text/html" in html.headers["content-type"]
        assert "//" not in html.text  # no http://, https:// or protocol-relative address
        addresses = loaded_addresses(html.text)
        assert "/openapi.json" in addresses
        assert any(address.endswith(".js") for address in addresses)
        for address in addresses:
            assert address.startswith("/"), address
            reply = client.get(address)
            assert reply.status_code == 200, address
            assert reply.content, address


def test_swagger_ui_script_is_served_with_a_javascript_type(gateway: Gateway) -> None:
    reply = httpx.get(f"{gateway.url}/docs/assets/swagger-ui-bundle.js", timeout=30)
    assert reply.status_code == 200
    assert "javascript" in reply.headers["content-type"]
    assert "SwaggerUIBundle" in reply.text


@pytest.fixture
def guarded(tmp_path: Path) -> Iterator[Gateway]:
    server = Gateway(tmp_path / "home", env={"PANELGATE_ADMIN_TOKEN": TOKEN}).start()
    try:
        yield server
    finally:
        server.close()


@pytest.mark.parametrize("path", ["/openapi.json", "/docs", "/docs/assets/swagger-ui.css"])
def test_docs_take_the_admin_credential_like_the_openapi_document(guarded: Gateway, path: str) -> None:
    with httpx.Client(base_url=guarded.url, timeout=30) as client:
        assert client.get(path).status_code == 401
        assert client.get(path, headers={"Authorization": f"Bearer {TOKEN}"}).status_code == 200
