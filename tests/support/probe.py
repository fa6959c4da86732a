"""A probe: a few lines of Python run in a fresh interpreter, for tests that ask what a new process loads
or sets up (the test's own process imported everything long ago).

The probe runs from the repository's root, so it imports `tests.support`, with no `PANELGATE_*`
variable of the test run's but those given, and prints one JSON object as its last line.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]


def run_probe(code: str, *args: str, env: dict[str, str] | None = None) -> dict[str, Any]:
    """What the probe printed last, read as JSON; the probe must exit 0 (its stderr is the message)."""
    environment = {k: v for k, v in os.environ.items() if not k.startswith("PANELGATE_")}
    done = subprocess.run(
        [sys.executable, "-c", code, *args],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=ROOT,
        env=environment | (env or {}),
    )
    assert done.returncode == 0, done.stderr[-3000:]
    said: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return said
