"""Login tries are limited per client address and overall, in the state every gateway process shares.

Five tries a minute from one address, then 429 with Retry-After, the right
token included, until the next minute; a slower overall limit stops an
attacker who rotates addresses, while one address over its own limit takes
nothing from the others. The client address is the socket's peer unless
that peer is a proxy listed in `PANELGATE_TRUSTED_PROXIES`, so a rotating
`X-Forwarded-For` buys nothing; the counts hold across gateway processes, on
the database and on Redis.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from panelgate.http.access import throttle
from tests.support.gateway import Gateway
from tests.support.shared_state import fresh_prefix

TOKEN = "a-token-of-twenty-chars"


def _early_in_a_window(window_s: float = 60.0) -> None:
    """Wait out the end of a clock window, so a test's tries fall in one."""
    into = time.time() % window_s
    if into > window_s - 10 * window_s / 60:
        time.sleep(window_s - into + 0.05)


def _login(gateway: Gateway, token: str, source: str = "127.0.0.1", **headers: str) -> httpx.Response:
    """`POST /login` from the loopback address `source` (a real peer address, not a header)."""
    with httpx.Client(transport=httpx.HTTPTransport(local_address=source)) as client:
        return client.post(f"{gateway.url}/login", json={"token": token}, headers=headers)


def _statuses(gateway: Gateway, tries: int, **headers: str) -> list[int]:
    return [_login(gateway, f"guess {n}", **headers).status_code for n in range(tries)]


def _guarded(home: Path, *, in_process: bool = True, **env: str) -> Gateway:
    return Gateway(home, env={"PANELGATE_ADMIN_TOKEN": TOKEN, **env}, in_process=in_process).start()


@pytest.fixture
def guarded(tmp_path: Path) -> Iterator[Gateway]:
    server = _guarded(tmp_path / "home")
    try:
        _early_in_a_window()
        yield server
    finally:
        server.close()


# ---- one address -----------------------------------------------------------------------------


def test_the_sixth_try_in_a_minute_is_429_with_retry_after(guarded: Gateway):
    assert _statuses(guarded, 5) == [401] * 5
    throttled = _login(guarded, "guess 6")
    assert throttled.status_code == 429
    assert 1 <= int(throttled.headers["retry-after"]) <= 60
    assert "try again in" in throttled.json()["error"]["message"]
    assert _login(guarded, TOKEN).status_code == 429, "not even the right token gets through meanwhile"


def test_the_throttle_holds_one_address_only(guarded: Gateway):
    assert _statuses(guarded, 8) == [401] * 5 + [429] * 3
    assert _login(guarded, TOKEN, source="127.0.0.2").status_code == 204


def test_the_right_token_works_once_the_window_has_passed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setattr(throttle, "WINDOW_S", 2.0)
    server = _guarded(tmp_path / "home", PANELGATE_LOGIN_ATTEMPTS_PER_MINUTE="2")
    try:
        _early_in_a_window(2.0)
        assert _statuses(server, 3) == [401, 401, 429]
        time.sleep(int(_login(server, TOKEN).headers["retry-after"]))
        assert _login(server, TOKEN).status_code == 204
    finally:
        server.close()


# ---- every address ---------------------------------------------------------------------------


@pytest.fixture
def strict(tmp_path: Path) -> Iterator[Gateway]:
    """Two tries a minute per address, three from all of them together."""
    env = {"PANELGATE_LOGIN_ATTEMPTS_PER_MINUTE": "2", "PANELGATE_LOGIN_ATTEMPTS_OVERALL_PER_MINUTE": "3"}
    server = _guarded(tmp_path / "home", **env)
    try:
        _early_in_a_window()
        yield server
    finally:
        server.close()


def test_rotating_addresses_meet_the_overall_limit(strict: Gateway):
    assert _statuses(strict, 2, source="127.0.0.2") == [401, 401]
    assert _login(strict, "guess", source="127.0.0.3").status_code == 401
    assert _login(strict, "guess", source="127.0.0.3").status_code == 429, "the fourth try of the minute"
    assert _login(strict, "guess", source="127.0.0.4").status_code == 429


def test_one_address_over_its_limit_takes_no_tries_from_the_others(strict: Gateway):
    assert [_login(strict, "guess", source="127.0.0.2").status_code for _ in range(10)] == [401] * 2 + [
        429
    ] * 8
    assert _login(strict, TOKEN, source="127.0.0.3").status_code == 204


# ---- proxies ---------------------------------------------------------------------------------


def test_a_rotating_x_forwarded_for_is_ignored_without_a_trusted_proxy(tmp_path: Path):
    server = _guarded(tmp_path / "home", in_process=False)  # `panelgate serve`, as deployed
    try:
        _early_in_a_window()
        statuses = [
            _login(server, f"guess {n}", **{"X-Forwarded-For": f"198.51.100.{n}"}).status_code
            for n in range(12)
        ]
        assert statuses == [401] * 5 + [429] * 7
    finally:
        server.close()


def test_behind_a_trusted_proxy_the_forwarded_address_is_counted(tmp_path: Path):
    server = _guarded(tmp_path / "home", in_process=False, PANELGATE_TRUSTED_PROXIES="10.9.9.9, 127.0.0.1/32")
    try:
        _early_in_a_window()
        assert _statuses(server, 6, **{"X-Forwarded-For": "203.0.113.7"}) == [401] * 5 + [429]
        neighbour = _login(server, TOKEN, **{"X-Forwarded-For": "203.0.113.8"})
        assert neighbour.status_code == 204, "the proxy's other clients are not held"
        rotating = [
            _login(server, "guess", source="127.0.0.2", **{"X-Forwarded-For": f"198.51.100.{n}"}).status_code
            for n in range(6)
        ]
        assert rotating == [401] * 5 + [429], "a peer that is not a listed proxy is counted itself"
    finally:
        server.close()


def test_a_trusted_proxy_that_is_not_an_address_stops_serve_from_starting(tmp_path: Path):
    server = Gateway(tmp_path / "home", env={"PANELGATE_TRUSTED_PROXIES": "proxy.lan"}, in_process=False)
    try:
        with pytest.raises(RuntimeError, match="exited at start"):
            server.start(timeout=20)
    finally:  # a server that did start is stopped even when the test fails
        server.close()
    assert "PANELGATE_TRUSTED_PROXIES: `proxy.lan` is not an IP address or network" in server.log()


# ---- processes -------------------------------------------------------------------------------


@pytest.mark.parametrize("store", ["database", "redis"])
def test_the_throttle_holds_across_two_gateway_processes(
    tmp_path: Path, request: pytest.FixtureRequest, store: str
):
    env = {}
    if store == "redis":
        env = {
            "PANELGATE_REDIS_URL": request.getfixturevalue("redis_url"),
            "PANELGATE_REDIS_PREFIX": fresh_prefix(),
        }
    first = _guarded(tmp_path / "home", **env)
    second = Gateway(first.home, env=first.extra_env, in_process=False)  # `panelgate serve` on the same data
    try:
        second.start()
        _early_in_a_window()
        assert _statuses(first, 3) + _statuses(second, 2) == [401] * 5
        assert _login(first, TOKEN).status_code == 429
        assert _login(second, TOKEN).status_code == 429
    finally:
        second.close()
        first.close()
