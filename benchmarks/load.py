"""One load level: a warm-up, then a measured window, by wrk or by the asyncio driver.

Non-streamed runs use wrk (C, event loop per thread) with `post_json.lua`;
streamed runs use `load_driver.py`, which also times the first body byte.
Both run as their own processes and report through one `LoadResult`, whose
`rate` counts only 2xx replies.
"""

from __future__ import annotations

import json
import math
import os
import secrets
import shutil
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent
WRK_SCRIPT = HERE / "post_json.lua"
DRIVER = HERE / "load_driver.py"


@dataclass
class LoadResult:
    tool: str
    concurrency: int
    ok: int
    seconds: float
    p50_ms: float | None
    p95_ms: float | None
    p99_ms: float | None
    ttfb_p50_ms: float | None = None
    ttfb_p95_ms: float | None = None
    ttfb_p99_ms: float | None = None
    socket_errors: dict[str, int] = field(default_factory=dict)
    non_2xx: int = 0

    @property
    def rate(self) -> float:
        return self.ok / self.seconds if self.seconds else 0.0

    @property
    def socket_error_count(self) -> int:
        return sum(self.socket_errors.values())


@dataclass(frozen=True)
class Level:
    url: str
    body_file: Path
    concurrency: int
    seconds: float
    warmup: float
    timeout_s: float
    headers: tuple[str, ...] = ()
    """Extra request headers, each `Name: value`."""
    vary: str | None = None
    """A marker in the body replaced by a fresh token on every request (none: one body for all)."""


def have_wrk() -> bool:
    return shutil.which("wrk") is not None


def run_wrk(level: Level) -> LoadResult:
    env = {**os.environ, "BENCH_BODY_FILE": str(level.body_file)}
    if level.headers:
        env["BENCH_HEADERS"] = "\n".join(level.headers)
    threads = str(min(2, level.concurrency))

    def wrk(seconds: float) -> str:
        if level.vary:
            # A new prefix per wrk process: the warm-up's tokens are never sent again.
            env.update(BENCH_VARY=level.vary, BENCH_NONCE=secrets.token_hex(4))
        # wrk takes whole seconds only.
        duration, timeout = max(1, math.ceil(seconds)), max(1, math.ceil(level.timeout_s))
        argv = ["wrk", "-t", threads, "-c", str(level.concurrency), "-d", f"{duration}s"]
        argv += ["--timeout", f"{timeout}s", "-s", str(WRK_SCRIPT), level.url]
        done = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=duration + timeout + 30)
        if done.returncode != 0:
            said = (done.stderr.strip() or done.stdout.strip()).splitlines()
            raise RuntimeError(f"wrk failed ({done.returncode}): {said[0] if said else 'no output'}")
        return done.stdout

    if level.warmup > 0:
        wrk(level.warmup)
    out = wrk(level.seconds)
    line = next((ln for ln in out.splitlines() if ln.startswith("BENCH_JSON ")), None)
    if line is None:
        raise RuntimeError(f"wrk printed no BENCH_JSON line:\n{out}")
    data = json.loads(line.removeprefix("BENCH_JSON "))

    def ms(key: str) -> float | None:
        return round(data[key] / 1000, 2) if data["requests"] else None

    errors = {k: int(data[k]) for k in ("connect", "read", "write", "timeout")}
    return LoadResult(
        tool="wrk",
        concurrency=level.concurrency,
        ok=int(data["requests"]) - int(data["status"]),
        seconds=data["duration_us"] / 1e6,
        p50_ms=ms("p50_us"),
        p95_ms=ms("p95_us"),
        p99_ms=ms("p99_us"),
        socket_errors=errors,
        non_2xx=int(data["status"]),
    )


def run_driver(level: Level, python: str) -> LoadResult:
    argv = [
        python,
        str(DRIVER),
        "--url",
        level.url,
        "--body-file",
        str(level.body_file),
        "--concurrency",
        str(level.concurrency),
        "--seconds",
        f"{level.seconds:g}",
        "--warmup",
        f"{level.warmup:g}",
        "--timeout",
        f"{level.timeout_s:g}",
    ]
    for header in level.headers:
        argv += ["--header", header]
    if level.vary:
        argv += ["--vary", level.vary]
    limit = level.warmup + level.seconds + level.timeout_s + 30
    done = subprocess.run(argv, capture_output=True, text=True, timeout=limit)
    if done.returncode != 0:
        said = done.stderr.strip().splitlines()
        raise RuntimeError(f"load driver failed ({done.returncode}): {said[-1] if said else 'no output'}")
    data = json.loads(done.stdout.strip().splitlines()[-1])
    errors = dict(data["errors"])
    non_2xx = int(errors.pop("status"))
    return LoadResult(
        tool="asyncio driver",
        concurrency=level.concurrency,
        ok=int(data["requests"]),
        seconds=float(data["seconds"]),
        p50_ms=data["p50_ms"],
        p95_ms=data["p95_ms"],
        p99_ms=data["p99_ms"],
        ttfb_p50_ms=data["ttfb_p50_ms"],
        ttfb_p95_ms=data["ttfb_p95_ms"],
        ttfb_p99_ms=data["ttfb_p99_ms"],
        socket_errors=errors,
        non_2xx=non_2xx,
    )
