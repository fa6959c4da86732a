"""Which destinations go through a proxy: the variables read, and every form `NO_PROXY` takes."""

from __future__ import annotations

import pytest

from panelgate.upstream.proxy_route import NoProxy, ProxyRoutes
from panelgate.upstream.transport import BadRequest


@pytest.mark.parametrize(
    ("no_proxy", "host", "port", "bypassed"),
    [
        ("*", "api.example.com", 443, True),
        ("example.com", "example.com", 443, True),
        ("example.com", "api.example.com", 443, True),
        ("example.com", "notexample.com", 443, False),
        (".example.com", "example.com", 443, True),
        (".example.com", "api.example.com", 443, True),
        ("*.example.com", "api.example.com", 443, True),
        ("EXAMPLE.com", "Api.Example.COM", 443, True),
        ("example.com:8443", "example.com", 8443, True),
        ("example.com:8443", "example.com", 443, False),
        ("10.1.2.3", "10.1.2.3", 443, True),
        ("10.1.2.3", "10.1.2.4", 443, False),
        ("10.0.0.0/8", "10.200.1.1", 80, True),
        ("10.0.0.0/8", "11.0.0.1", 80, False),
        ("::1", "::1", 443, True),
        ("[::1]:8080", "::1", 8080, True),
        ("fd00::/8", "fd00::5", 443, True),
        (" localhost , 127.0.0.1 ", "localhost", 80, True),
        ("localhost", "127.0.0.1", 80, False),
        ("", "example.com", 443, False),
    ],
)
def test_no_proxy_forms(no_proxy: str, host: str, port: int, bypassed: bool):
    assert NoProxy(no_proxy).covers(host, port) is bypassed


def test_each_scheme_takes_its_own_variable_and_lower_case_wins():
    routes = ProxyRoutes.from_environment(
        {"https_proxy": "http://low:3128", "HTTPS_PROXY": "http://up:3128", "HTTP_PROXY": "plain:8080"}
    )
    https, http = routes.proxy_for("https", "api.example.com", 443), routes.proxy_for("http", "h", 80)
    assert https is not None and https.label == "low:3128"
    assert http is not None and http.label == "plain:8080" and http.authorization is None


def test_no_variable_means_no_proxy():
    assert ProxyRoutes.from_environment({"NO_PROXY": "x"}).proxy_for("https", "api.example.com", 443) is None


def test_credentials_become_a_basic_header_and_stay_out_of_the_label():
    routes = ProxyRoutes.from_environment({"HTTPS_PROXY": "http://ann:p%40ss@proxy.corp:8080"})
    proxy = routes.proxy_for("https", "api.example.com", 443)
    assert proxy is not None
    assert proxy.authorization == "Basic YW5uOnBAc3M="  # ann:p@ss
    assert proxy.label == "proxy.corp:8080"


@pytest.mark.parametrize("url", ["socks5://ann:secret@proxy:1080", "https://ann:secret@proxy:443"])
def test_proxy_of_another_kind_is_refused_by_name_without_its_credentials(url: str):
    routes = ProxyRoutes.from_environment({"HTTPS_PROXY": url, "NO_PROXY": "internal"})
    with pytest.raises(BadRequest) as caught:
        routes.proxy_for("https", "api.example.com", 443)
    assert "http:// proxies only" in str(caught.value) and "secret" not in str(caught.value)
    assert routes.proxy_for("https", "internal", 443) is None
