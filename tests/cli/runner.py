"""Running the real `panelgate` command in its own process, as a person's shell would."""

from __future__ import annotations

import os
import select
import subprocess
import sys
import tempfile
import termios
import time
from collections.abc import Mapping

COMMAND = (sys.executable, "-m", "panelgate")

# The command keeps files (`ask -f`) in its data folder: the tests' go here, never into the
# person's own folder. Removed when the test process ends.
_DATA_FOLDER = tempfile.TemporaryDirectory(prefix="panelgate-cli-tests-")


def environment(url: str | None, env: Mapping[str, str] | None = None) -> dict[str, str]:
    """The test's environment without its own `PANELGATE_*` variables, pointed at `url` (when given)
    and at a throwaway data folder (unless `env` names one)."""
    environment = {k: v for k, v in os.environ.items() if not k.startswith("PANELGATE_")}
    environment.pop("COLUMNS", None)
    environment["PANELGATE_HOME"] = _DATA_FOLDER.name
    if url is not None:
        environment["PANELGATE_URL"] = url
    environment.update(env or {})
    return environment


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
    return subprocess.run(
        [*COMMAND, *args],
        input=stdin if stdin is not None else "",
        capture_output=True,
        text=True,
        timeout=timeout,
        env=environment(url, env),
    )


def panelgate_answering(
    *args: str, url: str, prompt: str, answer: str, hidden: bool, timeout: float = 60
) -> tuple[int, str]:
    """Run the command on a pseudo-terminal; when it shows `prompt`, type `answer`.

    With `hidden` the answer is typed only once the terminal has turned echo off,
    as a secret's prompt must. Returns the exit code and everything the terminal
    showed (stdout, stderr and whatever it echoed of the typing)."""
    master, slave = os.openpty()
    try:
        process = subprocess.Popen(
            [*COMMAND, *args],
            stdin=slave,
            stdout=slave,
            stderr=slave,
            env=environment(url),
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
        while hidden and termios.tcgetattr(master)[3] & termios.ECHO:
            if time.monotonic() > deadline:
                raise AssertionError(f"the terminal still echoes after {prompt!r}")
            time.sleep(0.01)
        os.write(master, answer.encode() + b"\n")
        while chunk := _read_some(master, deadline, "the end"):
            shown += chunk
        return process.wait(max(0.1, deadline - time.monotonic())), shown.decode(errors="replace")
    finally:
        os.close(master)
        _end(process)


def panelgate_watched(*args: str, url: str, timeout: float = 60) -> tuple[int, str, str]:
    """Run the command with stderr on a pseudo-terminal (`TERM` set, as a terminal sets it) and stdout
    piped, as `panelgate ... > file` typed at a terminal does.

    Returns the exit code, stdout, and everything the terminal showed."""
    master, slave = os.openpty()
    try:
        process = subprocess.Popen(
            [*COMMAND, *args],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=slave,
            env=environment(url, {"TERM": "xterm-256color"}),
            start_new_session=True,
        )
    finally:
        os.close(slave)
    assert process.stdout is not None
    deadline = time.monotonic() + timeout
    shown_on = {master: bytearray(), process.stdout.fileno(): bytearray()}
    still_open = set(shown_on)
    try:
        while still_open:
            for fd in _ready(sorted(still_open), deadline):
                chunk = _read_fd(fd)
                if chunk:
                    shown_on[fd] += chunk
                else:
                    still_open.discard(fd)
        code = process.wait(max(0.1, deadline - time.monotonic()))
        out, shown = (shown_on[fd].decode(errors="replace") for fd in (process.stdout.fileno(), master))
        return code, out, shown
    finally:
        os.close(master)
        process.stdout.close()
        _end(process)


def _end(process: subprocess.Popen[bytes]) -> None:
    if process.poll() is None:
        process.kill()
        process.wait()


def _ready(fds: list[int], deadline: float) -> list[int]:
    ready, _, _ = select.select(fds, [], [], max(0.0, deadline - time.monotonic()))
    if not ready:
        raise AssertionError("the command showed nothing more in time, and has not ended")
    return list(ready)


def _read_fd(fd: int) -> bytes:
    """What the terminal or pipe holds next; empty once the command has ended."""
    try:
        return os.read(fd, 65536)
    except OSError:  # EIO: every process holding the terminal has ended
        return b""


def _read_some(fd: int, deadline: float, waiting_for: str) -> bytes:
    """What the terminal shows next; empty once the command has ended."""
    ready, _, _ = select.select([fd], [], [], max(0.0, deadline - time.monotonic()))
    if not ready:
        raise AssertionError(f"the terminal showed no {waiting_for!r} in time")
    return _read_fd(fd)
