"""Benchmark panelgate against the reference and the upstream's own floor, side by side in one run.

    .venv/bin/python benchmarks/run.py                      # everything (about 6 minutes)
    .venv/bin/python benchmarks/run.py --only panelgate --levels 1,64 --seconds 5 --no-stream

It starts the fixed-latency upstream, measures the floor (the upstream asked
directly at each concurrency), then starts each gateway in turn with the same
3-seat collection and measures it at the same levels, streamed and not,
sampling the gateway's process tree for peak RSS and CPU. The markdown
report goes to stdout and to `benchmarks/results/<timestamp>.md` (the raw rows
beside it as `.json`). Only loopback addresses are used; every level is
bounded in time, so the whole run stops by itself.
"""

from __future__ import annotations

import argparse
import json
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import asdict
from datetime import datetime
from pathlib import Path

from gateways import MEMBERS, MODEL_ID, Gateway, chat_body, check_panel, start_panelgate, start_reference
from load import Level, LoadResult, have_wrk, run_driver, run_wrk
from processes import TreeSampler, start_upstream
from report import FLOOR, Row, render

HERE = Path(__file__).resolve().parent
RESULTS = HERE / "results"
REFERENCE_VENV = HERE / ".ref-venv"


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--only", choices=["panelgate", "reference"], help="benchmark one gateway (the floor always runs)"
    )
    parser.add_argument("--levels", default="1,16,64,256", help="comma-separated concurrency levels")
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
        "--driver",
        choices=["wrk", "python"],
        default="wrk",
        help="load generator for non-streamed runs (streamed runs always use the asyncio driver)",
    )
    parser.add_argument(
        "--database-url", help="PANELGATE_DATABASE_URL for panelgate (default: SQLite in a temp folder)"
    )
    parser.add_argument(
        "--reference-version", default="0.3.3", help="the benchwarmers release to compare with"
    )
    parser.add_argument(
        "--budget", type=float, default=570.0, help="seconds after which levels not yet run are skipped"
    )
    parser.add_argument("--keep", action="store_true", help="keep the temp folder with every server's log")
    return parser.parse_args()


class Bench:
    """One benchmark run: its settings, its temp folder and the rows measured so far."""

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
        path.write_bytes(chat_body(model, stream))
        return path

    def load(self, url: str, body: Path, stream: bool, concurrency: int) -> LoadResult:
        level = Level(url, body, concurrency, self.args.seconds, self.args.warmup, self.args.timeout)
        if not stream and self.use_wrk:
            return run_wrk(level)
        return run_driver(level, sys.executable)

    def measure_all(self, target: str, url: str, model: str, sampler: TreeSampler, modes: list[bool]) -> None:
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
                    result = self.load(url, body, stream, concurrency)
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
            modes = [stream for stream in self.modes if self.answers_panel(gateway, stream)]
            with TreeSampler(gateway.service.pid) as sampler:
                idle = sampler.rss_now()
                self.notes.append(
                    f"{gateway.label}: RSS {idle / 2**20:.0f} MiB idle after setup (process tree)"
                )
                self.say(f"{gateway.label} ready on {gateway.base_url}; {self.notes[-1]}")
                self.measure_all(gateway.label, gateway.chat_url, MODEL_ID, sampler, modes)
                peak = sampler_peak(self.rows, gateway.label)
                self.notes.append(f"{gateway.label}: peak RSS over the whole run {peak} MiB")
            return gateway.label if modes else None
        finally:
            gateway.service.stop()

    def answers_panel(self, gateway: Gateway, stream: bool) -> bool:
        """Whether one request in this mode comes back with every seat's answer; noted when not."""
        try:
            check_panel(gateway, stream)
        except (RuntimeError, OSError) as exc:
            self.notes.append(f"{mode_name(stream)} not measured: {exc}")
            self.say(self.notes[-1])
            return False
        return True

    def header(self) -> list[str]:
        a = self.args
        return [
            f"- run: {datetime.now().astimezone():%Y-%m-%d %H:%M %Z}; command: "
            f"`{shlex.join(['benchmarks/run.py', *sys.argv[1:]])}`; panelgate tree at {git_describe()}",
            f"- collection `{MODEL_ID}`: {len(MEMBERS)} member seats ({', '.join(MEMBERS)}), 0 explorers,"
            " reply `all`;"
            f" one fake upstream answering every call in {a.latency_ms:g} ms",
            f"- each level: {a.warmup:g} s warm-up, then {a.seconds:g} s measured; a request slower than"
            f" {a.timeout:g} s counts as a timeout",
            "- non-streamed load: "
            + ("wrk with `post_json.lua`" if self.use_wrk else "the asyncio driver")
            + "; streamed load: the asyncio driver (`load_driver.py`)",
            "- floor rows: one upstream call per request (a panel makes three, in parallel);"
            " their RSS and CPU are the upstream's own",
        ]


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


def main() -> int:
    args = parse_args()
    workdir = Path(tempfile.mkdtemp(prefix="panelgate-bench-"))
    bench = Bench(args, workdir)
    if args.driver == "wrk" and not bench.use_wrk:
        bench.notes.append(
            "wrk is not installed (`apt-get install wrk`): non-streamed runs used the asyncio driver"
        )
    runs = len(bench.levels) * len(bench.modes) * (3 if args.only is None else 2)
    bench.say(f"{runs} levels of {args.warmup + args.seconds:g} s each; logs in {workdir}")
    upstream, port = start_upstream(
        HERE / "upstream.py", sys.executable, args.latency_ms, MEMBERS, workdir / "upstream.log"
    )
    upstream_base = f"http://127.0.0.1:{port}"
    labels: list[str | None] = []
    try:
        with TreeSampler(upstream.pid) as sampler:
            floor_url = f"{upstream_base}/v1/chat/completions"
            bench.measure_all(FLOOR, floor_url, MEMBERS[0], sampler, bench.modes)
        if args.only in (None, "panelgate"):
            labels.append(
                bench.measure_gateway(lambda: start_panelgate(workdir, upstream_base, args.database_url))
            )
        if args.only in (None, "reference"):
            labels.append(
                bench.measure_gateway(
                    lambda: start_reference(workdir, upstream_base, REFERENCE_VENV, args.reference_version)
                )
            )
    finally:
        upstream.stop()
    measured = [label for label in labels if label]
    ours = next((m for m in measured if m.startswith("panelgate")), None)
    theirs = next((m for m in measured if not m.startswith("panelgate")), None)
    text = render(bench.header(), bench.rows, bench.notes, ours, theirs)
    RESULTS.mkdir(exist_ok=True)
    out = RESULTS / f"{datetime.now():%Y%m%d-%H%M%S}.md"
    out.write_text(text + "\n", encoding="utf-8")
    raw = [{**asdict(row), "rate": row.result.rate} for row in bench.rows]
    out.with_suffix(".json").write_text(json.dumps(raw, indent=1) + "\n", encoding="utf-8")
    print(text)
    bench.say(f"report written to {out}")
    if args.keep or len(measured) < len(labels):
        bench.say(f"server logs kept in {workdir}")
    else:
        shutil.rmtree(workdir, ignore_errors=True)
    return 0 if len(measured) == len(labels) else 1


if __name__ == "__main__":
    sys.exit(main())
