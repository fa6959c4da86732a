"""How cost grows with the record: panelgate measured on an empty store, then on one with 1,000,000 panels.

    .venv/bin/python benchmarks/growth.py                                   # SQLite, 1,000,000 panels
    .venv/bin/python benchmarks/growth.py --database-url postgresql://u@127.0.0.1:5432/empty_db
    .venv/bin/python benchmarks/growth.py --panels 100000 --sequential 50   # a quick look

Every seat of every panel is kept, and seating, the owed verdicts, the
record and the pages all read that record: a query that scans it is fast on
day one and slow a year later. So one run measures the same things twice on
the same store and machine: first empty (freshly configured through the
admin API with the 3-seat collection against the fake upstream), then after
`growth_fill.py` has written `--panels` panels (3 seats each, verdicts on a
third) straight into its tables. Measured each time: a panel's overhead
(sequential panels' latency minus the upstream's fixed latency, and
panels/s at `--concurrency`, and the CPU time a sequential panel costs the
gateway's process and, on PostgreSQL, the database server's: what the
latency is made of, which the machine's other work moves far less than the
latency itself), `GET /bench/record` (whole, and filtered by
a common task's words and a rare one's), `GET /bench/pending`,
the Record page with the JSON it polls, and the Gateway page with the
panels its card polls. The report goes to stdout and to
`benchmarks/reports/growth-<database>-<timestamp>.md`.
"""

from __future__ import annotations

import argparse
import asyncio
import shlex
import shutil
import sys
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from urllib.parse import urlsplit

import psutil
from gateways import (
    MEMBERS,
    MODEL_ID,
    Gateway,
    chat_body,
    check_panel,
    configure_panelgate,
    start_panelgate,
)
from growth_fill import FillPlan, FillResult, add_fill_arguments, fill
from growth_timing import WARMUP, Timing, health_beside, panel_overhead, time_gets
from harness import git_describe
from load import Level, have_wrk, run_driver, run_wrk
from processes import TreeSampler, start_upstream
from report import machine_lines

HERE = Path(__file__).resolve().parent
REPORTS = HERE / "reports"
TASK_READ = "/bench/record?task=lock%20pool"
TASK_READ_LABEL = "`GET /bench/record?task=lock pool`"
"""The record of the verdicts whose prompt or note holds every word: it reads verdicts, not tallies.
These words are in one prompt of six the fill writes (and in notes), so this reads a sixth of the record."""
RARE_TASK_READ = "/bench/record?task=ledger%20schema"
"""Words in one prompt of a thousand (`growth_fill.RARE_PROMPT`): a task as specific as most are."""
PHRASED_TASK_READ = "/bench/record?task=port%20the%20billing%20export%20to%20the%20new%20ledger%20schema"
"""The rare prompt's own sentence: its rare words among common ones (`the` in nearly every prompt, `port`
in `report`), which the index need not count past the rarest."""
READS = (
    ("`GET /bench/record`", "/bench/record", 100.0),
    (f"{TASK_READ_LABEL} (1 panel in 6)", TASK_READ, 100.0),
    ("`GET /bench/record?task=ledger schema` (1 panel in 1,000)", RARE_TASK_READ, 100.0),
    ("`GET /bench/record?task=port the billing export to the new ledger schema`", PHRASED_TASK_READ, 100.0),
    ("`GET /bench/pending`", "/bench/pending", 100.0),
    ("Record page `GET /record`", "/record", 300.0),
    ("Record page's poll `GET /api/record`", "/api/record?", 300.0),
    ("Gateway page `GET /gateway`", "/gateway", 300.0),
    (
        "Gateway card's poll `GET /api/panels?limit=30&answers=false`",
        "/api/panels?limit=30&answers=false",
        300.0,
    ),
)
"""What is read, where, and the bar (ms, p50) issue 23 sets with 1,000,000 panels in the store."""


@dataclass(frozen=True)
class PanelCpu:
    """CPU milliseconds a sequential panel cost: the gateway's process, and the database server's
    processes when the store is a PostgreSQL server on this machine (None otherwise: SQLite's work is
    the gateway's)."""

    gateway: float
    database: float | None

    def __str__(self) -> str:
        return f"{self.gateway:.2f}" + ("" if self.database is None else f" + {self.database:.2f}")


@dataclass
class Measured:
    overhead: Timing
    cpu: PanelCpu
    rate: float
    reads: dict[str, Timing]
    health_beside_task: Timing


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    add_fill_arguments(parser)
    parser.add_argument("--sequential", type=int, default=200, help="sequential panels for the overhead")
    parser.add_argument("--requests", type=int, default=20, help="timed requests per read, after a warm-up")
    parser.add_argument("--concurrency", type=int, default=16, help="in-flight panels for panels/s")
    parser.add_argument("--seconds", type=float, default=10.0, help="measured seconds of the panels/s level")
    parser.add_argument("--latency-ms", type=float, default=50.0, help="the upstream's answer time")
    parser.add_argument(
        "--keep", action="store_true", help="keep the temp folder (the SQLite store and logs)"
    )
    return parser.parse_args()


def say(message: str) -> None:
    print(f"[{datetime.now():%H:%M:%S}] {message}", file=sys.stderr, flush=True)


def store_url(args: argparse.Namespace, workdir: Path) -> str:
    """The store both servers and the fill share: the given PostgreSQL database or one SQLite file."""
    if args.database_url:
        return args.database_url
    return f"sqlite+aiosqlite:///{workdir / 'growth.db'}"


def async_url(url: str) -> str:
    if url.startswith(("postgres://", "postgresql://")):
        return "postgresql+asyncpg://" + url.split("://", 1)[1]
    return url


def database_server(url: str) -> int | None:
    """The pid of the PostgreSQL server listening on `url`'s port on this machine, if it is one."""
    where = urlsplit(url)
    if not url.startswith("postgres") or where.hostname not in (None, "localhost", "127.0.0.1", "::1"):
        return None
    port = where.port or 5432
    for connection in psutil.net_connections(kind="tcp"):
        if connection.status == psutil.CONN_LISTEN and connection.laddr.port == port and connection.pid:
            return connection.pid
    return None


def timed_panels(args: argparse.Namespace, gateway: Gateway, url: str) -> tuple[Timing, PanelCpu]:
    """The sequential panels' overhead, and the CPU each cost the gateway and the database server (its
    backends are the server's children; one that exits meanwhile takes its time with it)."""
    server = database_server(url)
    trees = [TreeSampler(gateway.service.pid), *([TreeSampler(server)] if server else [])]
    before = [tree.cpu_seconds() for tree in trees]
    overhead = panel_overhead(gateway, args.sequential, args.latency_ms)
    panels = args.sequential + WARMUP
    spent = [(tree.cpu_seconds() - was) * 1000.0 / panels for tree, was in zip(trees, before, strict=True)]
    return overhead, PanelCpu(spent[0], spent[1] if server else None)


def measure(args: argparse.Namespace, gateway: Gateway, workdir: Path, url: str) -> Measured:
    overhead, cpu = timed_panels(args, gateway, url)
    body = workdir / "body.json"
    body.write_bytes(chat_body(MODEL_ID, stream=False))
    level = Level(gateway.chat_url, body, args.concurrency, args.seconds, 2.0, 10.0)
    load = run_wrk(level) if have_wrk() else run_driver(level, sys.executable)
    reads = {path: time_gets(gateway.base_url, path, args.requests) for _, path, _ in READS}
    beside = health_beside(gateway.base_url, TASK_READ, min(args.requests, 5))
    return Measured(overhead, cpu, load.rate, reads, beside)


def serve_and_measure(
    args: argparse.Namespace, workdir: Path, upstream: str, url: str, configure: Callable[[str, str], None]
) -> Measured:
    workdir.mkdir()
    gateway = start_panelgate(workdir, upstream, url, configure=configure)
    try:
        check_panel(gateway, stream=False)
        return measure(args, gateway, workdir, url)
    finally:
        gateway.service.stop()


def render(args: argparse.Namespace, url: str, empty: Measured, full: Measured, filled: FillResult) -> str:
    database = "PostgreSQL" if url.startswith("postgres") else "SQLite"
    rate = filled.panels / filled.seconds if filled.seconds else 0.0
    cpu_label = "gateway" if full.cpu.database is None else "gateway + database server"
    lines = [
        f"# How cost grows with the record: {database}, {filled.panels:,} panels",
        "",
        f"- run: {datetime.now().astimezone():%Y-%m-%d %H:%M %Z}; command: "
        f"`{shlex.join(['benchmarks/growth.py', *sys.argv[1:]])}`; panelgate tree at {git_describe()}",
        f"- collection `{MODEL_ID}`: {len(MEMBERS)} member seats, 0 explorers; the fake upstream answers"
        f" every call in {args.latency_ms:g} ms",
        f"- fill: {filled.panels:,} panels, {filled.seats:,} seats (and as many evidence rows),"
        f" {filled.verdicts:,} verdicts over {args.days:g} days, in {filled.seconds:.0f} s"
        f" ({rate:,.0f} panels/s, {args.batch:,} panels a transaction)",
        f"- overhead: {args.sequential} sequential panels, latency minus {args.latency_ms:g} ms;"
        f" panels/s: {args.seconds:g} s at c={args.concurrency} after 2 s warm-up"
        f" ({'wrk' if have_wrk() else 'the asyncio driver'})",
        f"- reads: {args.requests} sequential requests each after 3 warm-up ones, one kept-alive connection",
        *machine_lines(),
        "",
        "| measure | empty | filled | bar (filled) |",
        "|---|---|---|---|",
        f"| panel overhead p50 / p95 ms | {empty.overhead} | {full.overhead} |"
        f" p50 within 1 ms of empty: {met(full.overhead.p50 - empty.overhead.p50 <= 1.0)} |",
        f"| CPU per sequential panel ms, {cpu_label} | {empty.cpu} | {full.cpu} | |",
        f"| panels/s, c={args.concurrency} | {empty.rate:.0f} | {full.rate:.0f} | |",
    ]
    for label, path, bar in READS:
        after = full.reads[path]
        lines.append(
            f"| {label} p50 / p95 ms | {empty.reads[path]} | {after} | ≤ {bar:g}: {met(after.p50 <= bar)} |"
        )
    lines.append(
        f"| `GET /health` while {TASK_READ_LABEL} runs, p50 / worst ms | {empty.health_beside_task} |"
        f" {full.health_beside_task} | |"
    )
    return "\n".join(lines)


def met(done: bool) -> str:
    return "met" if done else "**missed**"


def save(text: str, url: str, kind: str = "growth") -> Path:
    """`text` as `benchmarks/reports/<kind>-<database>-<timestamp>.md`."""
    REPORTS.mkdir(exist_ok=True)
    database = "postgresql" if url.startswith("postgres") else "sqlite"
    out = REPORTS / f"{kind}-{database}-{datetime.now():%Y%m%d-%H%M%S}.md"
    out.write_text(text + "\n", encoding="utf-8")
    return out


def main() -> int:
    args = parse_args()
    workdir = Path(tempfile.mkdtemp(prefix="panelgate-growth-"))
    url = store_url(args, workdir)
    upstream, port = start_upstream(
        HERE / "upstream.py", sys.executable, args.latency_ms, MEMBERS, workdir / "up.log"
    )
    upstream_base = f"http://127.0.0.1:{port}"
    try:
        say(f"empty store; logs in {workdir}")
        empty = serve_and_measure(args, workdir / "empty", upstream_base, url, configure_panelgate)
        say(f"empty: overhead {empty.overhead} ms, {empty.rate:.0f} panels/s; filling {args.panels:,} panels")
        plan = FillPlan(args.panels, args.days, args.batch, MODEL_ID.removeprefix("bench/"))
        filled = asyncio.run(fill(async_url(url), plan, say))
        say(f"filled in {filled.seconds:.0f} s; measuring again")
        full = serve_and_measure(args, workdir / "filled", upstream_base, url, lambda _base, _up: None)
    finally:
        upstream.stop()
    text = render(args, url, empty, full, filled)
    print(text)
    say(f"saved {save(text, url)}")
    if not args.keep:
        shutil.rmtree(workdir, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
