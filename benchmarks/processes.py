"""Starting, watching and stopping the benchmark's server processes.

Each server (the fake upstream, panelgate, the reference) runs in a session of
its own, so stopping it signals exactly the processes this benchmark started
and nothing else. `TreeSampler` follows a server's whole process tree (a
launcher and its child, or a server and its workers) so peak memory and CPU
are the server's, not one process's.
"""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from pathlib import Path

import psutil


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


class Service:
    """One server process started by the benchmark, with its output in a log file."""

    def __init__(self, name: str, argv: list[str], env: dict[str, str], log_path: Path) -> None:
        self.name = name
        self.log_path = log_path
        self._log = log_path.open("wb")
        self.process = subprocess.Popen(
            argv,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=self._log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )

    @property
    def pid(self) -> int:
        return self.process.pid

    def log_tail(self, lines: int = 30) -> str:
        self._log.flush()
        text = self.log_path.read_text(encoding="utf-8", errors="replace")
        return "\n".join(text.splitlines()[-lines:])

    def wait_until_http_ok(self, url: str, timeout_s: float = 60.0) -> None:
        """Poll `url` until it answers 2xx; fail with the log's tail if the process dies or time runs out."""
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(
                    f"{self.name} exited with code {self.process.returncode}:\n{self.log_tail()}"
                )
            try:
                with urllib.request.urlopen(url, timeout=2) as response:
                    if 200 <= response.status < 300:
                        return
            except (urllib.error.URLError, OSError):
                pass
            time.sleep(0.2)
        raise RuntimeError(f"{self.name} did not answer {url} within {timeout_s:.0f}s:\n{self.log_tail()}")

    def stop(self, grace_s: float = 10.0) -> None:
        """SIGTERM the service's own process group, then SIGKILL it if it lingers."""
        if self.process.poll() is None:
            self._signal_group(signal.SIGTERM)
            try:
                self.process.wait(grace_s)
            except subprocess.TimeoutExpired:
                self._signal_group(signal.SIGKILL)
                self.process.wait(5)
        self._log.close()

    def _signal_group(self, signum: int) -> None:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.process.pid, signum)


def start_upstream(
    script: Path, python: str, latency_ms: float, models: list[str], log_path: Path, pacing: str = "provider"
) -> tuple[Service, int]:
    """The fake upstream on a free loopback port (streams paced as `pacing` says); returns it and its port."""
    port = free_port()
    argv = [
        python,
        str(script),
        "--port",
        str(port),
        "--latency-ms",
        str(latency_ms),
        "--models",
        ",".join(models),
        "--pacing",
        pacing,
    ]
    service = Service("upstream", argv, dict(os.environ), log_path)
    service.wait_until_http_ok(f"http://127.0.0.1:{port}/v1/models", timeout_s=20)
    return service, port


class TreeSampler:
    """Samples RSS, PSS and CPU time of a process and all its descendants in a background thread.

    RSS summed over a tree counts a page every process shares once per process;
    PSS (proportional set size) splits each shared page among its sharers, so the
    tree's PSS is what it costs the machine: the figure for a server whose
    workers are forked from one parent and share its pages.
    """

    def __init__(self, pid: int, interval_s: float = 0.1) -> None:
        self.root = psutil.Process(pid)
        self.interval_s = interval_s
        self._peak = 0
        self._peak_pss = 0
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="rss-sampler", daemon=True)
        self._known: dict[int, psutil.Process] = {}

    def __enter__(self) -> TreeSampler:
        self._sample()
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()

    def _tree(self) -> list[psutil.Process]:
        try:
            found = [self.root, *self.root.children(recursive=True)]
        except psutil.Error:
            return []
        # Keep one Process object per pid so cpu_times are read from the same handle each time.
        for proc in found:
            self._known.setdefault(proc.pid, proc)
        return [self._known[p.pid] for p in found]

    def rss_now(self) -> int:
        return self._summed(lambda proc: int(proc.memory_info().rss))

    def pss_now(self) -> int:
        return self._summed(lambda proc: int(proc.memory_full_info().pss))

    def _summed(self, measure: Callable[[psutil.Process], int]) -> int:
        """`measure` over the tree's live processes (one that exits meanwhile counts nothing)."""
        total = 0
        for proc in self._tree():
            with contextlib.suppress(psutil.Error):
                total += measure(proc)
        return total

    def peak_pss(self) -> int:
        """The highest PSS of the tree since sampling began (bytes)."""
        self._sample()
        with self._lock:
            return self._peak_pss

    def cpu_seconds(self) -> float:
        """User + system CPU of the tree's live processes (exited children are not counted)."""
        total = 0.0
        for proc in self._tree():
            try:
                times = proc.cpu_times()
                total += times.user + times.system
            except psutil.Error:
                pass
        return total

    def _sample(self) -> None:
        rss, pss = self.rss_now(), self.pss_now()
        with self._lock:
            self._peak = max(self._peak, rss)
            self._peak_pss = max(self._peak_pss, pss)

    def _run(self) -> None:
        while not self._stop.wait(self.interval_s):
            self._sample()

    def take_peak(self) -> int:
        """The peak RSS since the last call (bytes), and start a new peak from now."""
        self._sample()
        with self._lock:
            peak, self._peak = self._peak, 0
        return peak

    def settle(self, idle_share: float = 0.05, window_s: float = 0.5, limit_s: float = 20.0) -> float:
        """Wait until the tree uses under `idle_share` of a core over `window_s`; returns seconds waited."""
        started = time.monotonic()
        while time.monotonic() - started < limit_s:
            before = self.cpu_seconds()
            time.sleep(window_s)
            if self.cpu_seconds() - before < idle_share * window_s:
                break
        return time.monotonic() - started
