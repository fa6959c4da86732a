"""The real LiteLLM proxy (from PyPI), started from a config file on loopback for the hub tests.

The one `scripts/clients` installs in `.clients/litellm` (with
`benchmarks/install_litellm.sh`), or the `litellm` command
`PANELGATE_TEST_LITELLM` names; a test that
needs it fails, naming the install command, when it is not there. It runs in config mode without a
database (its database mode needs Prisma, which downloads engines), with
the local model-cost map and no proxy variables, so it sends nothing
beyond loopback: `outbound()` lists any connection it holds elsewhere.
"""

from __future__ import annotations

import os
import signal
import subprocess
import time
from pathlib import Path
from typing import Any

import httpx
import psutil
import pytest
import yaml

from tests.support.gateway import free_port

INSTALL = "scripts/clients"
INSTALLED = Path(__file__).resolve().parents[2] / ".clients" / "litellm" / "bin" / "litellm"
LOOPBACK = ("127.0.0.1", "::1", "::ffff:127.0.0.1")


def litellm_command() -> str:
    found = os.environ.get("PANELGATE_TEST_LITELLM") or str(INSTALLED)
    if not Path(found).exists():
        pytest.fail(f"the real LiteLLM proxy is needed and {found} is not there: install it with {INSTALL}")
    return found


class LiteLLMProxy:
    def __init__(self, folder: Path, master_key: str, config: dict[str, Any]) -> None:
        self.folder = folder
        self.master_key = master_key
        self.config = {**config, "general_settings": {"master_key": master_key}}
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.process: subprocess.Popen[bytes] | None = None

    def start(self, timeout: float = 90.0) -> LiteLLMProxy:
        command = litellm_command()
        self.folder.mkdir(parents=True, exist_ok=True)
        config_file = self.folder / "config.yaml"
        config_file.write_text(yaml.safe_dump(self.config))
        quiet = ("PROXY", "DATABASE_URL", "STORE_MODEL_IN_DB", "LITELLM")
        env = {k: v for k, v in os.environ.items() if not any(w in k.upper() for w in quiet)}
        env.update(LITELLM_LOCAL_MODEL_COST_MAP="True", LITELLM_LOG="ERROR", NO_PROXY="*")
        with (self.folder / "litellm.log").open("wb") as log:  # the child keeps its own copy
            self.process = subprocess.Popen(
                [command, "--config", str(config_file), "--host", "127.0.0.1", "--port", str(self.port)],
                env=env,
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"litellm exited:\n{self.log()}")
            try:
                if httpx.get(f"{self.url}/health/liveliness", timeout=1).status_code == 200:
                    return self
            except httpx.TransportError:
                pass
            time.sleep(0.2)
        raise RuntimeError(f"litellm did not start within {timeout} s:\n{self.log()}")

    def log(self) -> str:
        path = self.folder / "litellm.log"
        return path.read_text(errors="replace")[-4000:] if path.exists() else ""

    def outbound(self) -> list[str]:
        """Every TCP connection the proxy (or a child of it) holds to anything but loopback."""
        assert self.process is not None
        parent = psutil.Process(self.process.pid)
        found = []
        for process in [parent, *parent.children(recursive=True)]:
            for connection in process.net_connections(kind="inet"):
                if connection.raddr and connection.raddr.ip not in LOOPBACK:
                    found.append(f"{connection.raddr.ip}:{connection.raddr.port}")
        return found

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGTERM)
            try:
                self.process.wait(15)
            except subprocess.TimeoutExpired:
                os.killpg(self.process.pid, signal.SIGKILL)
                self.process.wait(5)
