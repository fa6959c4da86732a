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
import shlex
import shutil
import sys
import tempfile
from datetime import datetime
from pathlib import Path

from gateways import MEMBERS, MODEL_ID, Gateway, check_panel, start_panelgate, start_reference
from harness import Bench, git_describe, run_arguments, save_report, setup_line
from processes import TreeSampler, start_upstream
from report import FLOOR, render
from targets import PANEL_BARS, table

HERE = Path(__file__).resolve().parent
REFERENCE_VENV = HERE / ".ref-venv"


def parse_args() -> argparse.Namespace:
    parser = run_arguments(
        __doc__.split("\n\n")[0], others=["reference"], levels="1,16,64,256", budget_s=570.0
    )
    parser.add_argument(
        "--reference-version", default="0.3.3", help="the benchwarmers release to compare with"
    )
    return parser.parse_args()


class PanelBench(Bench):
    """The panel run: every gateway must answer with all three seats before it is measured."""

    def check(self, gateway: Gateway, stream: bool) -> None:
        check_panel(gateway, stream)

    def header(self) -> list[str]:
        a = self.args
        return [
            f"- run: {datetime.now().astimezone():%Y-%m-%d %H:%M %Z}; command: "
            f"`{shlex.join(['benchmarks/run.py', *sys.argv[1:]])}`; panelgate tree at {git_describe()}",
            f"- collection `{MODEL_ID}`: {len(MEMBERS)} member seats ({', '.join(MEMBERS)}), 0 explorers,"
            " reply `all`;"
            f" one fake upstream answering every call in {a.latency_ms:g} ms, streams paced `{a.pacing}`",
            f"- each level: {a.warmup:g} s warm-up, then {a.seconds:g} s measured; a request slower than"
            f" {a.timeout:g} s counts as a timeout",
            "- non-streamed load: "
            + ("wrk with `post_json.lua`" if self.use_wrk else "the asyncio driver")
            + "; streamed load: the asyncio driver (`load_driver.py`)",
            "- floor rows: one upstream call per request (a panel makes three, in parallel);"
            " their RSS and CPU are the upstream's own",
            setup_line(a.restart),
        ]


def main() -> int:
    args = parse_args()
    workdir = Path(tempfile.mkdtemp(prefix="panelgate-bench-"))
    bench = PanelBench(args, workdir)
    if args.driver == "wrk" and not bench.use_wrk:
        bench.notes.append(
            "wrk is not installed (`apt-get install wrk`): non-streamed runs used the asyncio driver"
        )
    runs = len(bench.levels) * len(bench.modes) * (3 if args.only is None else 2)
    bench.say(f"{runs} levels of {args.warmup + args.seconds:g} s each; logs in {workdir}")
    upstream, port = start_upstream(
        HERE / "upstream.py",
        sys.executable,
        args.latency_ms,
        MEMBERS,
        workdir / "upstream.log",
        args.pacing,
    )
    upstream_base = f"http://127.0.0.1:{port}"
    labels: list[str | None] = []
    try:
        with TreeSampler(upstream.pid) as sampler:
            floor_url = f"{upstream_base}/v1/chat/completions"
            bench.measure_all(FLOOR, floor_url, MEMBERS[0], sampler, bench.modes)
        if args.only in (None, "panelgate"):
            labels.append(
                bench.measure_gateway(
                    lambda: start_panelgate(
                        workdir, upstream_base, args.database_url, workers=args.workers, restart=args.restart
                    )
                )
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
    sections = {"Targets": lines} if (lines := table(PANEL_BARS, bench.rows, ours, theirs, "panels")) else {}
    text = render(bench.header(), bench.rows, bench.notes, ours, theirs, sections=sections)
    out = save_report(text, bench.rows)
    print(text)
    bench.say(f"report written to {out}")
    if args.keep or len(measured) < len(labels):
        bench.say(f"server logs kept in {workdir}")
    else:
        shutil.rmtree(workdir, ignore_errors=True)
    return 0 if len(measured) == len(labels) else 1


if __name__ == "__main__":
    sys.exit(main())
