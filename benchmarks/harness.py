"""The measuring loop both benchmark runs share: levels, warm-up, sampling, notes, and the saved report.

`run.py` (the 3-seat panel) and `route.py` (route mode's pass-through) differ
in what they start and how they check one request before measuring; the
loop that then drives every level, samples the server's process tree and
keeps the rows is the same, and lives here so the two reports stay
comparable. A subclass says how one request is checked (`check`).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import asdict
from datetime import datetime
from pathlib import Path

from gateways import Gateway, chat_body
from load import Level, LoadResult, have_wrk, run_driver, run_wrk
from processes import TreeSampler
from report import Row

HERE = Path(__file__).resolve().parent
RESULTS = HERE / "results"


class Bench:
    """One benchmark run: its settings, its temp folder and the rows measured so far."""

    content = "hi"
    """The user message of every request; `route.py` makes each one unique."""
    vary: str | None = None
    """A marker in `content` that the load tools replace with a fresh token on every request."""

    def __init__(self, args: argparse.Namespace, workdir: Path) -> None:
        self.args = args
        self.workdir = workdir
        self.levels = [int(x) for x in args.levels.split(",") if x.strip()]
        self.modes = [False, True] if args.stream is None else [bool(args.stream)]
        self.use_wrk = args.driver == "wrk" and have_wrk()
        self.rows: list[Row] = []
        self.notes: list[str] = []
        self.started = time.monotonic()
        self.deadline = self.started + args.budget

    def say(self, message: str) -> None:
        print(f"[t+{time.monotonic() - self.started:5.0f}s] {message}", file=sys.stderr, flush=True)

    def body_file(self, model: str, stream: bool) -> Path:
        path = self.workdir / f"body-{model.replace('/', '_')}-{'stream' if stream else 'whole'}.json"
        path.write_bytes(chat_body(model, stream, self.content))
        return path

    def load(
        self, url: str, body: Path, stream: bool, concurrency: int, headers: dict[str, str]
    ) -> LoadResult:
        level = Level(
            url,
            body,
            concurrency,
            self.args.seconds,
            self.args.warmup,
            self.args.timeout,
            headers=tuple(f"{name}: {value}" for name, value in headers.items()),
            vary=self.vary,
        )
        if not stream and self.use_wrk:
            return run_wrk(level)
        return run_driver(level, sys.executable)

    def measure_all(
        self,
        target: str,
        url: str,
        model: str,
        sampler: TreeSampler,
        modes: list[bool],
        headers: dict[str, str] | None = None,
    ) -> None:
        for stream in modes:
            body = self.body_file(model, stream)
            for concurrency in self.levels:
                if time.monotonic() + self.args.warmup + self.args.seconds > self.deadline:
                    self.notes.append(
                        f"{target}, {mode_name(stream)}, concurrency {concurrency}: skipped, "
                        f"the run's {self.args.budget:g} s budget would run out"
                    )
                    continue
                sampler.settle(limit_s=5)
                sampler.take_peak()
                cpu_before, wall_before = sampler.cpu_seconds(), time.monotonic()
                try:
                    result = self.load(url, body, stream, concurrency, headers or {})
                except (RuntimeError, subprocess.TimeoutExpired) as exc:
                    self.notes.append(
                        f"{target}, {mode_name(stream)}, concurrency {concurrency}: not measured: {exc}"
                    )
                    self.say(self.notes[-1])
                    continue
                cores = (sampler.cpu_seconds() - cpu_before) / (time.monotonic() - wall_before)
                self.rows.append(Row(target, stream, result, sampler.take_peak(), cores))
                self.say(f"{target}, {mode_name(stream)}, c={concurrency}: {summary_line(result)}")

    def measure_gateway(self, start: Callable[[], Gateway]) -> str | None:
        """Start, check, measure and stop one gateway; its label, or None when it could not be measured."""
        try:
            gateway = start()
        except Exception as exc:  # a gateway that will not start is reported, not fatal to the run
            self.notes.append(f"could not start: {exc}")
            self.say(self.notes[-1])
            return None
        try:
            modes = [stream for stream in self.modes if self.answers(gateway, stream)]
            with TreeSampler(gateway.service.pid) as sampler:
                idle, idle_pss = sampler.rss_now(), sampler.pss_now()
                self.notes.append(
                    f"{gateway.label}: RSS {idle / 2**20:.0f} MiB idle after setup (process tree), "
                    f"PSS {idle_pss / 2**20:.0f} MiB (shared pages counted once)"
                )
                self.say(f"{gateway.label} ready on {gateway.base_url}; {self.notes[-1]}")
                self.measure_all(
                    gateway.label, gateway.chat_url, gateway.model, sampler, modes, gateway.headers
                )
                peak = sampler_peak(self.rows, gateway.label)
                peak_pss = sampler.peak_pss() / 2**20
                self.notes.append(
                    f"{gateway.label}: peak over the whole run: RSS {peak} MiB, PSS {peak_pss:.0f} MiB"
                )
            return gateway.label if modes else None
        finally:
            gateway.service.stop()

    def answers(self, gateway: Gateway, stream: bool) -> bool:
        """Whether one request in this mode comes back as it should; noted when not."""
        try:
            self.check(gateway, stream)
        except (RuntimeError, OSError) as exc:
            self.notes.append(f"{mode_name(stream)} not measured: {exc}")
            self.say(self.notes[-1])
            return False
        return True

    def check(self, gateway: Gateway, stream: bool) -> None:
        """Raise RuntimeError when one request in this mode does not come back as the run expects."""
        raise NotImplementedError


def run_arguments(
    description: str, *, others: list[str], levels: str, budget_s: float
) -> argparse.ArgumentParser:
    """The flags every benchmark run takes; a run adds its own before parsing."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument(
        "--only", choices=["panelgate", *others], help="benchmark one gateway (the floor always runs)"
    )
    parser.add_argument("--levels", default=levels, help="comma-separated concurrency levels")
    parser.add_argument("--seconds", type=float, default=10.0, help="measured seconds per level")
    parser.add_argument("--warmup", type=float, default=2.0, help="warm-up seconds before each level")
    parser.add_argument(
        "--timeout", type=float, default=10.0, help="seconds before a request counts as timed out"
    )
    parser.add_argument(
        "--stream",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="--stream: streamed only; --no-stream: non-streamed only; neither: both",
    )
    parser.add_argument("--latency-ms", type=float, default=50.0, help="the upstream's answer time")
    parser.add_argument(
        "--pacing",
        choices=("provider", "whole"),
        default="provider",
        help="a streamed answer in four writes spread over the latency, as providers send (default), or "
        "in one write at its end",
    )
    parser.add_argument(
        "--driver",
        choices=["wrk", "python"],
        default="wrk",
        help="load generator for non-streamed runs (streamed runs always use the asyncio driver)",
    )
    parser.add_argument(
        "--database-url", help="PANELGATE_DATABASE_URL for panelgate (default: SQLite in a temp folder)"
    )
    parser.add_argument(
        "--budget", type=float, default=budget_s, help="seconds after which levels not yet run are skipped"
    )
    parser.add_argument("--keep", action="store_true", help="keep the temp folder with every server's log")
    parser.add_argument(
        "--workers", type=int, default=1, help="panelgate's processes on the port (`serve --workers`)"
    )
    parser.add_argument(
        "--no-restart",
        dest="restart",
        action="store_false",
        help="measure panelgate in the process its setup went through (default: restarted after it, so it "
        "starts from its stored setup as the reference starts from its file)",
    )
    return parser


def setup_line(restart: bool) -> str:
    """How panelgate was set up before it was measured (a line of a report's header)."""
    if restart:
        return (
            "- panelgate set up through its admin API, then restarted: measured as started on a stored setup"
        )
    return "- panelgate set up through its admin API and measured in that same process (`--no-restart`)"


def mode_name(stream: bool) -> str:
    return "streamed" if stream else "non-streamed"


def summary_line(result: LoadResult) -> str:
    ttfb = f", TTFB p50 {result.ttfb_p50_ms} ms" if result.ttfb_p50_ms is not None else ""
    return (
        f"{result.rate:.1f}/s, p50 {result.p50_ms} ms, p99 {result.p99_ms} ms{ttfb}, "
        f"socket errors {result.socket_error_count}, non-2xx {result.non_2xx}"
    )


def sampler_peak(rows: list[Row], target: str) -> str:
    peaks = [r.peak_rss_bytes for r in rows if r.target == target and r.peak_rss_bytes]
    return f"{max(peaks) / 2**20:.0f}" if peaks else "–"


def git_describe() -> str:
    done = subprocess.run(
        ["git", "-C", str(HERE), "describe", "--always", "--dirty"],
        capture_output=True,
        text=True,
        check=False,
    )
    return done.stdout.strip() or "unknown"


def save_report(text: str, rows: list[Row], prefix: str = "") -> Path:
    """Write the markdown to `results/<prefix><timestamp>.md` and the raw rows beside it as `.json`."""
    RESULTS.mkdir(exist_ok=True)
    out = RESULTS / f"{prefix}{datetime.now():%Y%m%d-%H%M%S}.md"
    out.write_text(text + "\n", encoding="utf-8")
    raw = [{**asdict(row), "rate": row.result.rate} for row in rows]
    out.with_suffix(".json").write_text(json.dumps(raw, indent=1) + "\n", encoding="utf-8")
    return out
