"""A server process keeps Python's garbage collector off what its start built and collects seldom
(`http/collector.py` says why); tests' own gateways keep Python's defaults.

The probe is a fresh Python process running `serve_process.run` up to the moment it would serve.
"""

from __future__ import annotations

from pathlib import Path

from panelgate.http.collector import YOUNG_OBJECTS
from tests.support.probe import run_probe

PROBE = """
import gc, json, sys
from panelgate.http import serve_process

before = gc.get_threshold()[0]
seen = {}

def instead_of_serving(config):
    seen.update(young=gc.get_threshold()[0], frozen=gc.get_freeze_count())
    return 0

serve_process._serve = instead_of_serving
status = serve_process.run("warning")
print(json.dumps({"status": status, "default_young": before, **seen}))
"""


def test_the_server_process_freezes_what_its_start_built_and_collects_young_objects_seldom(
    tmp_path: Path,
) -> None:
    said = run_probe(PROBE, env={"PANELGATE_HOME": str(tmp_path / "home")})
    assert said["status"] == 0
    assert said["default_young"] == 700, "Python's default, until the server process sets its own"
    assert said["young"] == YOUNG_OBJECTS
    assert said["frozen"] > 50_000, "the modules, the app and its routes are out of the collector's sight"
