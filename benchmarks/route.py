"""Route mode's pass-through overhead: panelgate and LiteLLM's proxy relaying one model, side by side.

    bash benchmarks/install_litellm.sh                  # once (or pass --install)
    .venv/bin/python benchmarks/route.py                # everything (about 5 minutes)
    .venv/bin/python benchmarks/route.py --only panelgate --levels 16 --seconds 5 --no-stream

It starts the fixed-latency upstream, measures the floor (the upstream asked
directly), then panelgate asked for `bench/agents` (a collection whose reply
mode is `route`, with the one member `m1`), then LiteLLM's proxy asked for
`m1`, at the same levels, streamed and not, sampling each server's process
tree for peak RSS and CPU. What a gateway adds is its percentile minus the
floor's. Every request carries a user message of its own (a new route
conversation each; `--same-conversation` sends one body throughout). The
report goes to stdout and to `benchmarks/results/route-<timestamp>.md`.
"""

from __future__ import annotations

import argparse
import re
import shlex
import shutil
import sys
import tempfile
from datetime import datetime
from pathlib import Path

from gateways import Gateway
from harness import Bench, git_describe, run_arguments, save_report, setup_line
from processes import TreeSampler, start_upstream
from report import FLOOR, render
from route_gateways import (
    LITELLM_QUIET_ENV,
    LITELLM_VENV,
    MEMBER,
    ROUTE_MODEL,
    check_relay,
    start_litellm,
    start_panelgate_route,
)
from targets import ROUTE_BARS, table

HERE = Path(__file__).resolve().parent
MARKER = "@@TURN@@"


def parse_args() -> argparse.Namespace:
    parser = run_arguments(__doc__.split("\n\n")[0], others=["litellm"], levels="1,16,64", budget_s=330.0)
    parser.add_argument(
        "--same-conversation",
        action="store_true",
        help="send one body throughout, so panelgate sees every request as a turn of one conversation",
    )
    parser.add_argument(
        "--install", action="store_true", help="install LiteLLM into benchmarks/.litellm-venv if missing"
    )
    return parser.parse_args()


class RouteBench(Bench):
    """The route run: a gateway must relay `m1` (panelgate: by route mode) before it is measured."""

    def __init__(self, args: argparse.Namespace, workdir: Path) -> None:
        super().__init__(args, workdir)
        if not args.same_conversation:
            self.content, self.vary = f"hi {MARKER}", MARKER

    def check(self, gateway: Gateway, stream: bool) -> None:
        check_relay(gateway, stream)

    def header(self) -> list[str]:
        a = self.args
        conversations = (
            "one body throughout: panelgate sees every request as a turn of the same conversation"
            if a.same_conversation
            else "every request's user message carries a token of its own, so each is a new route"
            " conversation (turn 1) for panelgate; the same bodies go to the floor and LiteLLM"
        )
        return [
            f"- run: {datetime.now().astimezone():%Y-%m-%d %H:%M %Z}; panelgate tree at {git_describe()}",
            "- reproduce: `bash benchmarks/install_litellm.sh` once, then "
            f"`.venv/bin/python {shlex.join(['benchmarks/route.py', *sys.argv[1:]])}`",
            f"- panelgate: `panelgate serve`, asked for `{ROUTE_MODEL}`: collection `agents`, reply `route`,"
            f" one member `{MEMBER}` (tools on); SQLite in a temp folder unless `--database-url`",
            f"- LiteLLM 1.110.2: `litellm --config` (uvicorn, 1 worker, uvloop + httptools), asked for"
            f" `{MEMBER}` = `openai/{MEMBER}` at the upstream, with a master key and no database;"
            f" env {', '.join(f'`{k}={v}`' for k, v in LITELLM_QUIET_ENV.items())}",
            f"- one fake upstream answering every call in {a.latency_ms:g} ms, streams paced `{a.pacing}`;"
            f" {conversations}",
            f"- each level: {a.warmup:g} s warm-up, then {a.seconds:g} s measured; a request slower than"
            f" {a.timeout:g} s counts as a timeout",
            "- non-streamed load: "
            + ("wrk with `post_json.lua`" if self.use_wrk else "the asyncio driver")
            + "; streamed load: the asyncio driver (`load_driver.py`)",
            "- floor rows: the upstream asked directly, one call per request; their RSS and CPU are the"
            " upstream's own",
            setup_line(a.restart),
        ]


def failed_turns(log: Path) -> str | None:
    """A note on the route turns panelgate's log says failed, with their distinct causes; None if none.

    A streamed turn that fails after its 200 ends its stream with an error event, which the load
    tools count as a 2xx reply: the log is the only place it shows.
    """
    if not log.exists():
        return None
    lines = log.read_text(encoding="utf-8", errors="replace").splitlines()
    failed = sum(1 for line in lines if "ERROR panelgate.engine.route" in line)
    if not failed:
        return None
    causes = sorted({line for line in lines if re.match(r"^[\w.]+(Error|Conflict): ", line)})
    return f"panelgate logged {failed} failed route turns over the whole run; causes: " + "; ".join(
        f"`{cause[:160]}`" for cause in causes
    )


def main() -> int:
    args = parse_args()
    workdir = Path(tempfile.mkdtemp(prefix="panelgate-route-bench-"))
    bench = RouteBench(args, workdir)
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
        [MEMBER],
        workdir / "upstream.log",
        args.pacing,
    )
    upstream_base = f"http://127.0.0.1:{port}"
    labels: list[str | None] = []
    try:
        with TreeSampler(upstream.pid) as sampler:
            floor_url = f"{upstream_base}/v1/chat/completions"
            bench.measure_all(FLOOR, floor_url, MEMBER, sampler, bench.modes)
        if args.only in (None, "panelgate"):
            labels.append(
                bench.measure_gateway(
                    lambda: start_panelgate_route(
                        workdir, upstream_base, args.database_url, args.workers, args.restart
                    )
                )
            )
        if args.only in (None, "litellm"):
            labels.append(
                bench.measure_gateway(
                    lambda: start_litellm(workdir, upstream_base, LITELLM_VENV, args.install)
                )
            )
    finally:
        upstream.stop()
    if note := failed_turns(workdir / "panelgate.log"):
        bench.notes.append(note)
    measured = [label for label in labels if label]
    ours = next((m for m in measured if m.startswith("panelgate")), None)
    theirs = next((m for m in measured if not m.startswith("panelgate")), None)
    sections = {"Targets": lines} if (lines := table(ROUTE_BARS, bench.rows, ours, theirs, "replies")) else {}
    text = render(
        bench.header(),
        bench.rows,
        bench.notes,
        ours,
        theirs,
        title="panelgate route mode: pass-through overhead",
        unit="replies",
        sections=sections,
    )
    out = save_report(text, bench.rows, prefix="route-")
    print(text)
    bench.say(f"report written to {out}")
    if args.keep or len(measured) < len(labels):
        bench.say(f"server logs kept in {workdir}")
    else:
        shutil.rmtree(workdir, ignore_errors=True)
    return 0 if len(measured) == len(labels) else 1


if __name__ == "__main__":
    sys.exit(main())
