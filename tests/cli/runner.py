"""Running the real `panelgate` command in its own process, as a person's shell would."""

from __future__ import annotations

import os
import select
import subprocess
import sys
import termios
import time
from collections.abc import Mapping


def panelgate(
    *args: str,
    url: str | None,
    stdin: str | None = None,
    env: Mapping[str, str] | None = None,
    timeout: float = 60,
) -> subprocess.CompletedProcess[str]:
    """`python -m panelgate ARGS` with `PANELGATE_URL=url` (unset when None) and no terminal.

    stdin is the given text, or empty (not a terminal) when None; the test's own
    `PANELGATE_*` variables never leak in."""
    environment = {k: v for k, v in os.environ.items() if not k.startswith("PANELGATE_")}
    environment.pop("COLUMNS", None)
    if url is not None:
        environment["PANELGATE_URL"] = url
    environment.update(env or {})
    return subprocess.run(
        [sys.executable, "-m", "panelgate", *args],
        input=stdin if stdin is not None else "",
        capture_output=True,
        text=True,
        timeout=timeout,
        env=environment,
    )


def panelgate_typing_secret(
    *args: str, url: str, prompt: str, secret: str, timeout: float = 60
) -> tuple[int, str]:
    """Run the command on a pseudo-terminal; when it shows `prompt` and has turned echo off, type `secret`.

    Returns the exit code and everything the terminal showed (stdout, stderr and
    whatever the terminal echoed of the typing)."""
    environment = {k: v for k, v in os.environ.items() if not k.startswith("PANELGATE_")}
    environment["PANELGATE_URL"] = url
    master, slave = os.openpty()
    try:
        process = subprocess.Popen(
            [sys.executable, "-m", "panelgate", *args],
            stdin=slave,
            stdout=slave,
            stderr=slave,
            env=environment,
            start_new_session=True,
        )
    finally:
        os.close(slave)
    deadline = time.monotonic() + timeout
    shown = b""
    try:
        while prompt.encode() not in shown:
            chunk = _read_some(master, deadline, prompt)
            if not chunk:
                raise AssertionError(f"the command ended before asking {prompt!r}:\n{shown.decode()}")
            shown += chunk
        while termios.tcgetattr(master)[3] & termios.ECHO:
            if time.monotonic() > deadline:
                raise AssertionError(f"the terminal still echoes after {prompt!r}")
            time.sleep(0.01)
        os.write(master, secret.encode() + b"\n")
        while chunk := _read_some(master, deadline, "the end"):
            shown += chunk
        return process.wait(max(0.1, deadline - time.monotonic())), shown.decode(errors="replace")
    finally:
        os.close(master)
        if process.poll() is None:
            process.kill()
            process.wait()


def _read_some(fd: int, deadline: float, waiting_for: str) -> bytes:
    """What the terminal shows next; empty once the command has ended."""
    ready, _, _ = select.select([fd], [], [], max(0.0, deadline - time.monotonic()))
    if not ready:
        raise AssertionError(f"the terminal showed no {waiting_for!r} in time")
    try:
        return os.read(fd, 65536)
    except OSError:  # EIO: every process holding the terminal has ended
        return b""
