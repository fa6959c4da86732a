"""docs/hosting.md's server setup, as written: the gateway started the way deploy/panelgate.service
starts it, with deploy/panelgate.env.example as its environment file, behind the real Caddy running
deploy/Caddyfile; every request goes through Caddy, as the Internet's would.

Only what a test machine must change is changed: the data folder and the port (free ones), the
admin token the file leaves blank for you to fill, the site (plain HTTP on loopback, since no
certificate can be fetched offline) and Caddy's own admin address.
"""

from __future__ import annotations

import configparser
import os
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest

from tests.support.gateway import free_port, wait_for_health
from tests.support.upstream import FakeUpstream

DEPLOY = Path(__file__).resolve().parents[2] / "deploy"
TOKEN = "a-long-admin-token-for-the-server"


def unit_service(unit: Path) -> configparser.SectionProxy:
    """The `[Service]` section of a systemd unit, read as systemd reads its keys."""
    parser = configparser.ConfigParser(interpolation=None, strict=False)
    parser.optionxform = str  # type: ignore[assignment,method-assign]  # systemd's keys are case-sensitive
    parser.read_string(unit.read_text())
    return parser["Service"]


def environment_file(path: Path) -> dict[str, str]:
    """`KEY=VALUE` lines as systemd's `EnvironmentFile=` reads them: `#` lines and blank ones skipped."""
    found: dict[str, str] = {}
    for line in path.read_text().splitlines():
        if line.strip() and not line.lstrip().startswith("#"):
            name, _, value = line.partition("=")
            found[name.strip()] = value.strip()
    return found


@dataclass
class Server:
    """The gateway as the unit runs it, and Caddy in front of it."""

    gateway: subprocess.Popen[bytes]
    caddy: subprocess.Popen[bytes]
    url: str
    """Caddy's address: where every request of a test goes."""
    log: Path


def _start_gateway(tmp_path: Path, env_file: dict[str, str]) -> tuple[subprocess.Popen[bytes], Path]:
    service = unit_service(DEPLOY / "panelgate.service")
    command = service["ExecStart"].split()
    assert command[0] == "/opt/panelgate/bin/panelgate", "docs/hosting.md installs into /opt/panelgate"
    command[0] = str(Path(sys.executable).with_name("panelgate"))
    log = tmp_path / "gateway.log"
    env = {"PATH": os.environ["PATH"], "HOME": str(tmp_path), **env_file}
    with log.open("wb") as out:
        process = subprocess.Popen(command, env=env, stdout=out, stderr=subprocess.STDOUT)
    return process, log


def _server_env(tmp_path: Path) -> dict[str, str]:
    """The environment file as written, but for what a test machine must choose itself."""
    written = environment_file(DEPLOY / "panelgate.env.example")
    assert written["PANELGATE_BIND"] == "127.0.0.1" and written["PANELGATE_TRUSTED_PROXIES"] == "127.0.0.1"
    assert written["PANELGATE_ADMIN_TOKEN"] == "", "the file leaves the token for the reader to fill"
    return {**written, "PANELGATE_HOME": str(tmp_path / "data"), "PANELGATE_PORT": str(free_port())}


def test_the_environment_file_as_written_will_not_start_without_its_admin_token(tmp_path: Path):
    process, log = _start_gateway(tmp_path, _server_env(tmp_path))
    assert process.wait(timeout=60) != 0
    assert "behind a proxy" in log.read_text() and "PANELGATE_ADMIN_TOKEN" in log.read_text()


@pytest.fixture
def server(tmp_path: Path) -> Iterator[Server]:
    caddy_program = shutil.which("caddy")
    assert caddy_program, "the hosting test needs Debian's caddy (scripts/debian installs it)"
    env_file = {**_server_env(tmp_path), "PANELGATE_ADMIN_TOKEN": TOKEN}
    gateway, log = _start_gateway(tmp_path, env_file)
    caddy = None
    try:
        wait_for_health(f"http://127.0.0.1:{env_file['PANELGATE_PORT']}", gateway, log, timeout=60)
        site_port = free_port()
        config = tmp_path / "Caddyfile"
        config.write_text(
            "{\n"
            f"\tadmin 127.0.0.1:{free_port()}\n"
            f"\tstorage file_system {tmp_path / 'caddy'}\n"
            "}\n"
            f"import {DEPLOY / 'Caddyfile'}\n"
        )
        caddy_env = {
            "PATH": os.environ["PATH"],
            "HOME": str(tmp_path),
            "PANELGATE_SITE": f"http://127.0.0.1:{site_port}",
            "PANELGATE_UPSTREAM": f"127.0.0.1:{env_file['PANELGATE_PORT']}",
        }
        with (tmp_path / "caddy.log").open("wb") as out:
            caddy = subprocess.Popen(
                [caddy_program, "run", "--config", str(config), "--adapter", "caddyfile"],
                env=caddy_env,
                stdout=out,
                stderr=subprocess.STDOUT,
            )
        url = f"http://127.0.0.1:{site_port}"
        _wait_for_caddy(url, caddy, tmp_path / "caddy.log")
        yield Server(gateway, caddy, url, log)
    finally:
        for process in (caddy, gateway):
            if process is not None:
                process.terminate()
                try:
                    process.wait(timeout=15)
                except subprocess.TimeoutExpired:
                    process.kill()


def _wait_for_caddy(url: str, caddy: subprocess.Popen[bytes], log: Path) -> None:
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        assert caddy.poll() is None, f"caddy exited:\n{log.read_text(errors='replace')}"
        try:
            if httpx.get(f"{url}/health", timeout=1).status_code == 200:
                return
        except httpx.TransportError:
            pass
        time.sleep(0.1)
    raise AssertionError(f"caddy never passed /health through:\n{log.read_text(errors='replace')}")


def _admin(server: Server, method: str, path: str, body: object = None) -> httpx.Response:
    headers = {"Authorization": f"Bearer {TOKEN}"}
    return httpx.request(method, f"{server.url}{path}", json=body, headers=headers, timeout=30)


def _bench_with_a_key(server: Server, upstream: FakeUpstream) -> str:
    """Endpoint, two models and collection `core`, set up through Caddy; a gateway key for the API."""
    upstream.serve("m1", "m2")
    steps = [
        ("POST", "/api/endpoints", {"name": "up", "base_url": upstream.url}),
        ("POST", "/api/models", {"alias": "m1", "served_id": "m1", "endpoint": "up"}),
        ("POST", "/api/models", {"alias": "m2", "served_id": "m2", "endpoint": "up"}),
        ("PATCH", "/api/settings/gateway", {"max_calls": 2, "max_explorers": 0}),
        ("PUT", "/api/collections/core", {"members": ["m1", "m2"]}),
    ]
    for method, path, body in steps:
        response = _admin(server, method, path, body)
        assert response.status_code < 300, f"{method} {path}: {response.text}"
    made = _admin(server, "POST", "/api/keys", {"name": "laptop"})
    assert made.status_code == 201, made.text
    key: str = made.json()["key"]
    return key


def test_the_dashboard_asks_for_a_login_and_the_api_for_a_key(server: Server, upstream: FakeUpstream):
    page = httpx.get(f"{server.url}/", headers={"Accept": "text/html"})
    assert page.status_code == 303 and page.headers["location"].startswith("/login")
    assert httpx.get(f"{server.url}/v1/models").status_code == 401
    key = _bench_with_a_key(server, upstream)
    listed = httpx.get(f"{server.url}/v1/models", headers={"Authorization": f"Bearer {key}"})
    assert listed.status_code == 200 and "bench/core" in {m["id"] for m in listed.json()["data"]}


@pytest.mark.parametrize(("path", "last"), [("/v1/chat/completions", "[DONE]"), ("/api/chat", '"done":true')])
def test_a_streamed_panel_comes_through_caddy_before_its_slow_seat_answers(
    server: Server, upstream: FakeUpstream, path: str, last: str
):
    """SSE and Ollama's NDJSON alike: what the gateway has written reaches the client at once."""
    key = _bench_with_a_key(server, upstream)
    upstream.behave("m2", delay=1.5)
    body = {"model": "bench/core", "stream": True, "messages": [{"role": "user", "content": "hi"}]}
    began = time.monotonic()
    first_piece_at = None
    text = ""
    with httpx.stream(
        "POST", f"{server.url}{path}", json=body, headers={"Authorization": f"Bearer {key}"}, timeout=30
    ) as response:
        assert response.status_code == 200
        for piece in response.iter_text():
            first_piece_at = first_piece_at or time.monotonic() - began
            text += piece
    assert first_piece_at is not None and first_piece_at < 1.0, "Caddy held the stream back"
    assert last in text.replace(" ", "") and time.monotonic() - began >= 1.5


def test_logins_are_counted_per_client_however_the_forwarded_header_is_forged(server: Server):
    """Caddy replaces a client's own `X-Forwarded-For`, and the gateway trusts only Caddy's."""
    statuses = [
        httpx.post(
            f"{server.url}/login",
            json={"token": f"guess {n}"},
            headers={"X-Forwarded-For": f"203.0.113.{n}"},
        ).status_code
        for n in range(6)
    ]
    assert statuses == [401] * 5 + [429]
