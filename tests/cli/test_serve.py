"""`panelgate serve` refuses any address but loopback while nothing guards the gateway."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path


def test_serve_refuses_a_non_loopback_address(tmp_path: Path):
    done = subprocess.run(
        [sys.executable, "-m", "panelgate", "serve", "--host", "0.0.0.0", "--port", "1"],
        env={"PANELGATE_HOME": str(tmp_path / "home"), "PATH": "/usr/bin:/bin"},
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert done.returncode == 2
    assert "loopback" in done.stderr and "0.0.0.0" in done.stderr
    assert not (tmp_path / "home").exists(), "nothing is made for a server that does not start"
