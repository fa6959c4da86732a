"""The admin API and the pages load with their first request, not with the gateway (nor sign-ins' client).

Each probe is a fresh Python process (this one has imported everything long
ago): it serves the app over loopback, asks what a client would, and reports
which of the admin API's and the pages' modules are loaded at each step.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

PROBE = """
import json, sys, urllib.request
from tests.support.thread_gateway import serve_in_thread

server, base = serve_in_thread(sys.argv[1])


def loaded():
    return sorted(m for m in ("panelgate.http.admin", "panelgate.web.pages") if m in sys.modules)


def get(path):
    with urllib.request.urlopen(base + path, timeout=30) as reply:
        return reply.status, reply.read()


steps = {"start": loaded(), "others": sorted(
    m for m in ("httpx2", "authlib", "mcp", "yaml", "pydantic_settings", "sqlalchemy.orm") if m in sys.modules
)}
get("/health")
steps["health"] = loaded()
status, body = get("/api/settings/gateway")
steps["admin"] = loaded()
steps["admin_reply"] = [status, "max_calls" in json.loads(body)["gateway"]]
status, body = get("/openapi.json")
steps["document_has_admin"] = "/api/settings/gateway" in json.loads(body)["paths"]
status, body = get("/")
steps["page"] = [status, b"<html" in body.lower()]
server.should_exit = True
print(json.dumps(steps))
"""

ROOT = Path(__file__).resolve().parents[2]


def _probe(home: Path) -> dict[str, object]:
    done = subprocess.run(
        [sys.executable, "-c", PROBE, str(home)], capture_output=True, text=True, timeout=120, cwd=ROOT
    )
    assert done.returncode == 0, done.stderr
    steps: dict[str, object] = json.loads(done.stdout.strip().splitlines()[-1])
    return steps


def test_a_gateway_loads_the_admin_api_and_pages_with_the_first_request_for_them(tmp_path: Path) -> None:
    steps = _probe(tmp_path / "home")
    assert steps["start"] == [], "nothing of the admin API or the pages at start"
    assert steps["others"] == [], "nor sign-ins' HTTP client, the MCP SDK, PyYAML or SQLAlchemy's ORM"
    assert steps["health"] == [], "a health probe does not load them"
    assert steps["admin"] == ["panelgate.http.admin", "panelgate.web.pages"]
    assert steps["admin_reply"] == [200, True], "the gateway settings, read through the admin API"
    assert steps["document_has_admin"] is True
    assert steps["page"] == [200, True]
