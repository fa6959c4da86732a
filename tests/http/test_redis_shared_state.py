"""A gateway on Redis: it will not start without it, fails the calls that need it at once and in their
API's shape while it is gone (never hangs, never shows its password), works again when it is back,
and benches sharing one Redis keep apart by their key prefix."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import arrange_bench
from tests.http.helpers import ask, hello
from tests.http.key_helpers import get, make_key, refused
from tests.http.route_helpers import FIRST, arrange_agents
from tests.support.gateway import Gateway, free_port
from tests.support.redis_server import RedisServer
from tests.support.shared_state import fresh_prefix
from tests.support.upstream import FakeUpstream

PASSWORD = "s3cret-redis-pass"


@pytest.fixture
def own_redis() -> Iterator[RedisServer]:
    with RedisServer(password=PASSWORD) as server:
        yield server


@pytest.fixture
def on_own_redis(tmp_path: Path, own_redis: RedisServer, upstream: FakeUpstream) -> Iterator[Gateway]:
    """Collections `core` (m1–m3, panel), `solo` (m1, at most 5 requests a minute) and `agents` (route)."""
    env = {"PANELGATE_REDIS_URL": own_redis.url, "PANELGATE_REDIS_PREFIX": fresh_prefix()}
    server = Gateway(tmp_path / "home", env=env).start()
    try:
        arrange_bench(server, upstream)
        server.save_collection("solo", ["m1"])
        rule = {"endpoint": "up", "served_id": "m1", "measure": "requests", "window": "minute", "most": 5}
        server.api("POST", "/api/limits", rule, expect=201)
        server.gateway_settings(max_calls=1, max_explorers=0)
        upstream.serve("t1", "t2")
        for alias in ("t1", "t2"):
            server.add_model(alias, tools=True)
        server.save_collection("agents", ["t1", "t2"], reply="route")
        yield server
    finally:
        server.close()


def test_a_gateway_will_not_start_when_redis_does_not_answer(tmp_path: Path):
    port = free_port()
    env = {"PANELGATE_REDIS_URL": f"redis://:{PASSWORD}@127.0.0.1:{port}/0"}
    refused = Gateway(tmp_path / "home", env=env, in_process=False)
    try:
        with pytest.raises(RuntimeError, match="panelgate exited at start") as failed:
            refused.start(
                timeout=120
            )  # it exits as soon as it finds no Redis; a busy machine is slow to get there
    finally:
        refused.close()
    said = str(failed.value)
    assert f"PANELGATE_REDIS_URL names redis://127.0.0.1:{port}/0, which did not answer" in said
    assert PASSWORD not in said


def test_while_redis_is_gone_calls_that_need_it_fail_at_once_and_work_again_when_it_is_back(
    on_own_redis: Gateway, own_redis: RedisServer, upstream: FakeUpstream
):
    gateway = on_own_redis
    key = make_key(gateway, rpm=10)
    assert get(gateway, "/v1/models", key).status_code == 200
    own_redis.stop()
    gone = f"the gateway's shared state (Redis at redis://127.0.0.1:{own_redis.port}/0) is unreachable"

    keyed = get(gateway, "/v1/models", key)
    assert gone in refused(keyed, 503) and PASSWORD not in keyed.text
    turn = ask(gateway, {"model": "bench/agents", "messages": FIRST})
    assert gone in refused(turn, 503) and turn.json()["error"]["type"] == "overloaded_error"
    (seat,) = ask(gateway, hello("bench/solo")).json()["bench"]["seats"]
    assert seat["status"] == "error" and seat["error"].startswith(f"capacity: not sent: {gone}")
    limits = gateway.api("GET", "/api/limits")
    assert gone in limits["error"]["message"]
    assert upstream.requests == [], "nothing is sent that could not be counted"
    assert ask(gateway, hello("bench/core")).status_code == 200, "what needs no shared state still works"

    own_redis.start()  # the same port, and empty: Redis kept nothing on disk
    assert get(gateway, "/v1/models", key).status_code == 200
    assert ask(gateway, hello("bench/solo")).json()["bench"]["seats"][0]["status"] == "ok"
    assert ask(gateway, {"model": "bench/agents", "messages": FIRST}).status_code == 200


def test_calls_fail_after_the_timeout_when_redis_hangs(
    tmp_path: Path, own_redis: RedisServer, upstream: FakeUpstream
):
    env = {"PANELGATE_REDIS_URL": own_redis.url, "PANELGATE_REDIS_TIMEOUT_S": "0.5"}
    gateway = arrange_agents(Gateway(tmp_path / "home", env=env).start(), upstream)
    try:
        own_redis.freeze()
        turn = ask(gateway, {"model": "bench/agents", "messages": FIRST})
        assert "is unreachable (Timeout" in refused(turn, 503)
    finally:
        own_redis.thaw()
        gateway.close()


def test_benches_on_one_redis_share_counts_only_under_the_same_prefix(
    tmp_path: Path, redis_url: str, upstream: FakeUpstream
):
    shared, apart = fresh_prefix(), fresh_prefix()
    gateways = [
        Gateway(tmp_path / name, env={"PANELGATE_REDIS_URL": redis_url, "PANELGATE_REDIS_PREFIX": prefix})
        for name, prefix in (("one", shared), ("two", shared), ("three", apart))
    ]
    try:
        keys = [make_key(gateway.start(), rpm=1) for gateway in gateways]  # key 1 on each one's database
        if time.time() % 60 > 50:  # the three requests must fall in one clock minute
            time.sleep(60.5 - time.time() % 60)
        one, two, three = (
            get(gateway, "/v1/models", key) for gateway, key in zip(gateways, keys, strict=True)
        )
        assert (one.status_code, two.status_code, three.status_code) == (200, 429, 200)
    finally:
        for gateway in gateways:
            gateway.close()
