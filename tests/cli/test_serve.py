"""`panelgate serve` binds loopback unless an admin token of 16+ characters guards the gateway."""

from __future__ import annotations

import os
import resource
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from tests.support.gateway import free_port, wait_for_health

GOOD_TOKEN = "a-serve-token-of-24-char"


def _env(home: Path, token: str | None = None) -> dict[str, str]:
    env = {"PANELGATE_HOME": str(home), "PATH": os.environ.get("PATH", "/usr/bin:/bin")}
    if token is not None:
        env["PANELGATE_ADMIN_TOKEN"] = token
    return env


def _refused(home: Path, *args: str, token: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "panelgate", "serve", *args],
        env=_env(home, token),
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip


def test_serve_refuses_a_non_loopback_address_without_a_token(tmp_path: Path):
    done = _refused(tmp_path / "home", "--host", "0.0.0.0", "--port", "1")
    assert done.returncode == 2
    assert "loopback" in done.stderr and "0.0.0.0" in done.stderr
    assert "PANELGATE_ADMIN_TOKEN" in done.stderr, "the refusal says what to set"
    assert not (tmp_path / "home").exists(), "nothing is made for a server that does not start"


@pytest.mark.parametrize("host", ["0.0.0.0", "127.0.0.1"])
def test_serve_refuses_a_token_shorter_than_16_characters(tmp_path: Path, host: str):
    done = _refused(tmp_path / "home", "--host", host, "--port", "1", token="fifteen-chars-x")
    assert done.returncode == 2
    assert "PANELGATE_ADMIN_TOKEN" in done.stderr and "16" in done.stderr


@pytest.mark.parametrize("workers", ["1", "2"])
def test_a_broken_providers_file_stops_the_start_with_one_line_saying_so(tmp_path: Path, workers: str):
    broken = tmp_path / "providers.yaml"
    broken.write_text("github: [\n")
    done = subprocess.run(
        [sys.executable, "-m", "panelgate", "serve", "--port", str(free_port()), "--workers", workers],
        env={**_env(tmp_path / "home"), "PANELGATE_CONNECT_PROVIDERS": str(broken)},
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert done.returncode == 2
    assert f"panelgate cannot start: the providers file {broken} cannot be read" in done.stderr
    assert "Traceback" not in done.stderr and "╭" not in done.stderr, done.stderr


@pytest.fixture
def served_on_every_address(tmp_path: Path) -> Iterator[str]:
    """`panelgate serve --host 0.0.0.0` with a good token; its loopback URL."""
    port = free_port()
    log = tmp_path / "serve.log"
    with log.open("wb") as output:  # the child keeps its own copy of the handle
        process = subprocess.Popen(
            [sys.executable, "-m", "panelgate", "serve", "--host", "0.0.0.0", "--port", str(port)],
            env=_env(tmp_path / "home", GOOD_TOKEN),
            stdout=output,
            stderr=subprocess.STDOUT,
        )
    url = f"http://127.0.0.1:{port}"
    try:
        wait_for_health(url, process, log, 30)
        yield url
    finally:
        process.terminate()
        process.wait(30)


def test_serve_on_every_address_starts_with_a_token_and_asks_for_keys(served_on_every_address: str):
    url = served_on_every_address
    assert httpx.get(f"{url}/health").json()
    assert httpx.get(f"{url}/v1/models").status_code == 401, "keys are required off loopback"
    assert httpx.get(f"{url}/api/keys").status_code == 401
    admin = httpx.get(f"{url}/api/keys", headers={"Authorization": f"Bearer {GOOD_TOKEN}"})
    assert admin.status_code == 200


def _open_files_limit(pid: int) -> tuple[int, int]:
    """The soft and hard limits on open files `/proc` shows for a process."""
    line = next(
        x for x in Path(f"/proc/{pid}/limits").read_text().splitlines() if x.startswith("Max open files")
    )
    soft, hard = (resource.RLIM_INFINITY if x == "unlimited" else int(x) for x in line.split()[3:5])
    return soft, hard


def test_serve_raises_a_low_open_files_limit_to_the_hard_one_and_loads_no_websocket_package(tmp_path: Path):
    _, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard != resource.RLIM_INFINITY and hard <= 256:
        pytest.fail(f"this machine's hard limit on open files ({hard}) leaves nothing to raise")
    port = free_port()
    log = tmp_path / "serve.log"
    with log.open("wb") as output:
        process = subprocess.Popen(
            [sys.executable, "-X", "importtime", "-m", "panelgate", "serve", "--port", str(port)],
            env=_env(tmp_path / "home"),
            stdout=output,
            stderr=subprocess.STDOUT,
            preexec_fn=lambda: resource.setrlimit(resource.RLIMIT_NOFILE, (256, hard)),
        )
    try:
        wait_for_health(f"http://127.0.0.1:{port}", process, log, 30)
        soft_now, hard_now = _open_files_limit(process.pid)
    finally:
        process.terminate()
        process.wait(30)
    assert hard_now == hard, "the hard limit is left as it was"
    assert soft_now == (65536 if hard == resource.RLIM_INFINITY else min(hard, 65536))
    said = log.read_text()
    assert "open files: up to" in said and "(was 256)" in said
    imported = {
        line.rsplit("|", 1)[-1].strip() for line in said.splitlines() if line.startswith("import time:")
    }
    assert "uvloop" in imported and "websockets" not in imported


def test_serve_becomes_the_server_in_its_own_process_and_its_options_win_over_the_environment(tmp_path: Path):
    port, other = free_port(), free_port()
    log = tmp_path / "serve.log"
    env = {**_env(tmp_path / "home"), "panelgate_port": str(other), "PANELGATE_LOG_FORMAT": "text"}
    with log.open("wb") as output:
        process = subprocess.Popen(
            [sys.executable, "-m", "panelgate", "serve", "--port", str(port), "--log-format", "json"],
            env=env, stdout=output, stderr=subprocess.STDOUT,
        )  # fmt: skip
    try:
        wait_for_health(f"http://127.0.0.1:{port}", process, log, 30)
        command = Path(f"/proc/{process.pid}/cmdline").read_bytes().split(b"\0")
    finally:
        process.terminate()
        process.wait(30)
    assert b"panelgate.http.serve_process" in command, "the same process id, now the server alone"
    assert log.read_text().lstrip().startswith("{"), "--log-format json won over PANELGATE_LOG_FORMAT"
