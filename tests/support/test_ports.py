"""The test servers' ports: drawn side by side by two processes, as CI's suites draw them, no port is
handed to both."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from tests.support.ports import free_port

DRAWS = 300
ROOT = Path(__file__).resolve().parents[2]


def test_two_processes_drawing_at_once_never_share_a_port():
    other = subprocess.Popen(
        [
            sys.executable,
            "-c",
            f"from tests.support.ports import free_port\nfor _ in range({DRAWS}): print(free_port())",
        ],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        text=True,
    )
    ours = [free_port() for _ in range(DRAWS)]
    theirs, _ = other.communicate(timeout=60)
    assert other.returncode == 0
    drawn = ours + [int(line) for line in theirs.split()]
    assert len(drawn) == 2 * DRAWS
    assert len(set(drawn)) == len(drawn), "a port was handed out twice within its claim"
