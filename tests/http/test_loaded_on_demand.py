"""An idle gateway keeps out what only some requests need, and loads each part when it is first needed.

Each probe is a fresh Python process (this one has imported everything long ago) serving the gateway
from a thread, as `tests/support/thread_gateway.py` says.
"""

from __future__ import annotations

from pathlib import Path

from tests.support.probe import run_probe

PROBE = """
import json, sys, urllib.request
from tests.support.thread_gateway import serve_in_thread

LATER = (
    "prometheus_client.exposition",
    "panelgate.observe.exposition",
    "panelgate.suite.desk",
    "panelgate.hubs.lookup",
    "panelgate.hubs.litellm",
    "ctypes",
)

server, base = serve_in_thread(sys.argv[1])
with urllib.request.urlopen(f"{base}/health", timeout=30) as reply:
    assert reply.status == 200
idle = [name for name in LATER if name in sys.modules]
with urllib.request.urlopen(f"{base}/metrics", timeout=30) as reply:
    scraped = reply.read().decode()
from panelgate.hubs import ADAPTERS
server.should_exit = True
print(json.dumps({
    "idle": idle,
    "scrape_counts_requests": "panelgate_http_requests_total" in scraped,
    "scrape_loaded": "prometheus_client.exposition" in sys.modules,
    "adapters": sorted(ADAPTERS),
}))
"""


def test_an_idle_gateway_keeps_out_the_scrape_the_suite_the_hub_adapters_and_ctypes(tmp_path: Path) -> None:
    said = run_probe(PROBE, str(tmp_path / "home"), env={"PANELGATE_METRICS_PUBLIC": "1"})
    assert said["idle"] == [], "loaded before anything asked for them"
    assert said["scrape_loaded"] is True and said["scrape_counts_requests"] is True, (
        "the first scrape loads it"
    )
    assert said["adapters"] == ["cliproxy", "litellm", "openwebui"], "the hubs' names still import"
