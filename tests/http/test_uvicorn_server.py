"""The server process runs uvicorn without uvicorn's command line (Click), and still says when it failed.

Each probe is a fresh Python process: this one imported uvicorn whole long ago.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from pathlib import Path

from tests.support.probe import run_probe

PROBE = """
import json, sys, urllib.request
from panelgate.http.uvicorn_server import without_its_command_line

without_its_command_line()
import uvicorn
from tests.support.thread_gateway import serve_in_thread

server, base = serve_in_thread(sys.argv[1])
with urllib.request.urlopen(f"{base}/health", timeout=30) as reply:
    health = reply.status
serving = {"health": health, "click": "click" in sys.modules, "main": "uvicorn.main" in sys.modules}
server.should_exit = True
run = uvicorn.run
print(json.dumps({**serving, "run_from": run.__module__, "click_after_asking": "click" in sys.modules}))
"""


def test_a_gateway_serves_through_uvicorn_without_click_and_uvicorn_run_still_loads(tmp_path: Path) -> None:
    said = run_probe(PROBE, str(tmp_path / "home"))
    assert said["health"] == 200, "served, lifespan and all"
    assert said["click"] is False and said["main"] is False, "uvicorn's command line stayed out"
    assert said["run_from"] == "uvicorn.main", "asked for, the rest of the package loads"
    assert said["click_after_asking"] is True


def test_a_server_that_cannot_listen_exits_with_uvicorns_startup_failure_status(tmp_path: Path) -> None:
    taken = socket.socket()
    taken.bind(("127.0.0.1", 0))
    taken.listen()
    port = taken.getsockname()[1]
    environment = {k: v for k, v in os.environ.items() if not k.startswith("PANELGATE_")}
    environment |= {"PANELGATE_HOME": str(tmp_path / "home"), "PANELGATE_PORT": str(port)}
    try:
        done = subprocess.run(
            [sys.executable, "-m", "panelgate.http.serve_process", "info"],
            env=environment,
            capture_output=True,
            text=True,
            timeout=120,
        )
    finally:
        taken.close()
    assert done.returncode == 3, done.stderr[-2000:]
    assert "address already in use" in done.stderr.lower()
