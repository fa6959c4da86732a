"""docs/hosting.md's container host, Fly.io: deploy/fly.toml agrees with the image the repository's
Dockerfile builds, and the image's own command, given fly.toml's environment and the secret the
docs set, serves what Fly's proxy and health check ask for. (No test can reach Fly itself.)"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import tomllib
from pathlib import Path
from typing import Any

import httpx

from tests.support.gateway import free_port, wait_for_health

ROOT = Path(__file__).resolve().parents[2]
TOKEN = "a-long-admin-token-set-as-a-fly-secret"


def fly_config() -> dict[str, Any]:
    return tomllib.loads((ROOT / "deploy" / "fly.toml").read_text())


def dockerfile_final_stage() -> str:
    """The Dockerfile's last stage: what the image runs."""
    return (ROOT / "Dockerfile").read_text().rsplit("\nFROM ", 1)[1]


def image_environment() -> dict[str, str]:
    stage = dockerfile_final_stage()
    block = re.search(r"^ENV (.+?)(?=^\S)", stage, flags=re.MULTILINE | re.DOTALL)
    assert block is not None
    pairs = re.findall(r"(\w+)=(\S+)", block.group(1))
    return dict(pairs)


def image_command() -> list[str]:
    stage = dockerfile_final_stage()
    entrypoint = json.loads(re.search(r"^ENTRYPOINT (.+)$", stage, flags=re.MULTILINE).group(1))  # type: ignore[union-attr]
    command = json.loads(re.search(r"^CMD (.+)$", stage, flags=re.MULTILINE).group(1))  # type: ignore[union-attr]
    return [*entrypoint, *command]


def test_fly_serves_the_port_the_image_listens_on_and_mounts_its_data_folder():
    config = fly_config()
    exposed = re.search(r"^EXPOSE (\d+)$", dockerfile_final_stage(), flags=re.MULTILINE)
    assert exposed is not None and config["http_service"]["internal_port"] == int(exposed.group(1)) == 8122
    assert "--port" not in image_command(), "the image serves on the default port, 8122"
    assert config["mounts"]["destination"] == image_environment()["PANELGATE_HOME"] == "/data"
    (check,) = config["http_service"]["checks"]
    assert check["method"] == "GET" and check["path"] == "/health"
    assert config["env"]["PANELGATE_PUBLIC_URL"].startswith("https://")


def _serve_as_the_image(tmp_path: Path, secrets: dict[str, str]) -> tuple[subprocess.Popen[bytes], Path, int]:
    command = image_command()
    assert command[:2] == ["panelgate", "serve"]
    command[0] = str(Path(sys.executable).with_name("panelgate"))
    port = free_port()
    env = {
        "PATH": os.environ["PATH"],
        **image_environment(),
        **fly_config()["env"],
        **secrets,
        "PANELGATE_HOME": str(tmp_path / "data"),
        "PANELGATE_PORT": str(port),
    }
    log = tmp_path / "gateway.log"
    with log.open("wb") as out:
        process = subprocess.Popen(command, env=env, stdout=out, stderr=subprocess.STDOUT)
    return process, log, port


def test_without_the_admin_token_secret_the_machine_does_not_start(tmp_path: Path):
    process, log, _ = _serve_as_the_image(tmp_path, {})
    assert process.wait(timeout=60) != 0
    assert "PANELGATE_ADMIN_TOKEN" in log.read_text()


def test_with_the_secret_set_the_health_check_passes_and_the_public_host_asks_for_a_login(tmp_path: Path):
    process, log, port = _serve_as_the_image(tmp_path, {"PANELGATE_ADMIN_TOKEN": TOKEN})
    try:
        url = f"http://127.0.0.1:{port}"
        wait_for_health(url, process, log, timeout=60)
        public_host = fly_config()["env"]["PANELGATE_PUBLIC_URL"].removeprefix("https://")
        page = httpx.get(f"{url}/", headers={"Host": public_host, "Accept": "text/html"})
        assert page.status_code == 303 and page.headers["location"].startswith("/login")
        assert httpx.get(f"{url}/v1/models", headers={"Host": public_host}).status_code == 401
        json_lines = [line for line in log.read_text().splitlines() if line.startswith("{")]
        assert json_lines, "fly.toml asks for JSON logs, which `fly logs` shows line by line"
    finally:
        process.terminate()
        process.wait(timeout=15)
