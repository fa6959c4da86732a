"""`panelgate serve`'s log: a panel's and a route turn's ids on the access line, as JSON or as text.

Each gateway here is `panelgate serve` as a child process with its output in a
file, as a log collector would read it; requests go over loopback HTTP to the
fake upstream. The ids the log must carry are read from the replies
themselves (the panel id, its seats' calls, the route turn's conversation).
"""

from __future__ import annotations

import re
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import orjson
import pytest

from tests.conftest import arrange_bench
from tests.http.helpers import ask, hello
from tests.support.gateway import Gateway, wait_for_health
from tests.support.upstream import FakeUpstream

ISO_UTC = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z")
CHAT = "/v1/chat/completions"
TWO_JSON_WORKERS = ("--workers", "2", "--log-format", "json", "--log-level", "info")


def serve(tmp_path: Path, upstream: FakeUpstream, **env: str) -> Gateway:
    gateway = Gateway(tmp_path / "home", env=env, in_process=False, log_level="info").start()
    arrange_bench(gateway, upstream)
    gateway.save_collection("agents", ["m1"], reply="route")
    return gateway


@pytest.fixture
def json_served(tmp_path: Path, upstream: FakeUpstream) -> Iterator[Gateway]:
    gateway = serve(tmp_path, upstream, PANELGATE_LOG_FORMAT="json")
    try:
        yield gateway
    finally:
        gateway.close()


@pytest.fixture
def text_served(tmp_path: Path, upstream: FakeUpstream) -> Iterator[Gateway]:
    gateway = serve(tmp_path, upstream)
    try:
        yield gateway
    finally:
        gateway.close()


def test_every_json_line_parses_and_a_panels_access_line_carries_its_ids(json_served: Gateway):
    key = json_served.api("POST", "/api/keys", {"name": "laptop"}, expect=201)["key"]
    reply = ask(json_served, hello(), Authorization=f"Bearer {key}")
    assert reply.status_code == 200, reply.text
    bench = reply.json()["bench"]

    line = wait_for(json_served, lambda lines: _access_of(lines, panel=bench["panel"]))
    assert line["message"].startswith(f"POST {CHAT} 200 ")
    assert (line["key"], line["route"], line["status"]) == ("laptop", CHAT, 200)
    assert line["calls"] == [seat["call"] for seat in bench["seats"]]
    assert isinstance(line["ms"], float) and line["ms"] > 0
    assert ISO_UTC.fullmatch(line["time"]) and line["level"] == "INFO"
    assert key not in json_served.log()


def test_a_route_turns_json_access_line_carries_its_conversation(json_served: Gateway):
    reply = ask(json_served, hello("bench/agents"))
    assert reply.status_code == 200, reply.text
    conversation = reply.json()["bench"]["conversation"]

    line = wait_for(json_served, lambda lines: _access_of(lines, conversation=conversation))
    assert (line["key"], line["route"], line["status"]) == ("-", CHAT, 200)
    [call] = line["calls"]
    assert call.startswith(f"{conversation}.turn1-")
    assert "panel" not in line


def test_an_admin_api_request_names_its_route_template_not_the_path_asked(json_served: Gateway):
    panel = ask(json_served, hello()).json()["bench"]["panel"]
    json_served.api("GET", f"/api/panels/{panel}", expect=200)

    line = wait_for(json_served, lambda lines: _access_of(lines, message=f"GET /api/panels/{panel} 200"))
    assert line["route"] == "/api/panels/{panel_id}"
    assert "panel" not in line, "a page about a panel is not that panel's request"


def test_the_text_access_line_carries_the_same_ids(text_served: Gateway):
    key = text_served.api("POST", "/api/keys", {"name": "laptop"}, expect=201)["key"]
    bench = ask(text_served, hello(), Authorization=f"Bearer {key}").json()["bench"]
    conversation = ask(text_served, hello("bench/agents")).json()["bench"]["conversation"]

    calls = ",".join(seat["call"] for seat in bench["seats"])
    panel_line = wait_for_text(text_served, f"panel={bench['panel']}")
    assert re.search(
        rf"panelgate\.access: POST {CHAT} 200 \d+ms key=laptop route={CHAT} panel={bench['panel']} "
        rf"calls={re.escape(calls)}$",
        panel_line,
    ), panel_line
    turn_line = wait_for_text(text_served, f"conv={conversation}")
    assert re.search(rf"POST {CHAT} 200 \d+ms key=- route={CHAT} calls=\S+ conv={conversation}$", turn_line)


def test_both_workers_write_json_when_serve_is_asked_for_it(tmp_path: Path, upstream: FakeUpstream):
    gateway = Gateway(tmp_path / "home", in_process=False)
    gateway.home.mkdir(parents=True)
    env = gateway.environment()
    with gateway.log_path.open("wb") as output:  # the child keeps its own copy of the handle
        gateway.process = subprocess.Popen(
            [sys.executable, "-m", "panelgate", "serve", "--port", str(gateway.port), *TWO_JSON_WORKERS],
            env=env,
            stdout=output,
            stderr=subprocess.STDOUT,
        )
    try:
        wait_for_health(gateway.url, gateway.process, gateway.log_path, 60)
        arrange_bench(gateway, upstream)
        panels = [ask(gateway, hello()).json()["bench"]["panel"] for _ in range(6)]

        for panel in panels:
            wait_for(gateway, lambda lines, panel=panel: _access_of(lines, panel=panel))
        started = {
            line["message"] for line in json_lines(gateway) if line["message"].startswith("Started server")
        }
        assert len(started) == 2, f"each worker says it started, as JSON: {started}"
    finally:
        gateway.close()


def json_lines(gateway: Gateway) -> list[dict[str, Any]]:
    """Every line of the gateway's output, each of which must be one JSON object."""
    return [orjson.loads(line) for line in gateway.log().splitlines()]


def wait_for(
    gateway: Gateway, find: Callable[[list[dict[str, Any]]], dict[str, Any] | None]
) -> dict[str, Any]:
    """The JSON line `find` picks (the access line is written just after the reply is sent)."""
    deadline = time.monotonic() + 10
    while (found := find(json_lines(gateway))) is None:
        assert time.monotonic() < deadline, f"no such line in:\n{gateway.log()}"
        time.sleep(0.05)
    return found


def wait_for_text(gateway: Gateway, needle: str) -> str:
    deadline = time.monotonic() + 10
    while not (lines := [line for line in gateway.log().splitlines() if needle in line]):
        assert time.monotonic() < deadline, f"no line with {needle!r} in:\n{gateway.log()}"
        time.sleep(0.05)
    [line] = lines
    return line


def _access_of(lines: list[dict[str, Any]], message: str = "", **fields: str) -> dict[str, Any] | None:
    """The one access line whose message starts with `message` and whose fields have these values."""
    found = [
        line
        for line in lines
        if line["logger"] == "panelgate.access"
        and line["message"].startswith(message)
        and all(line.get(name) == value for name, value in fields.items())
    ]
    assert len(found) <= 1, found
    return found[0] if found else None
