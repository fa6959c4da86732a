"""A crowd of streamed panels asked at the same moment: do all finish, how soon does each heading come?

    .venv/bin/python benchmarks/burst.py                           # 1,000 panels, seats answering in 8 s
    .venv/bin/python benchmarks/burst.py --panels 200 --latency-ms 2000

N clients each open a connection and ask for one streamed 3-seat panel at
once, as a crowd arrives (connecting and asking, with no pause between);
the fake upstream answers every seat in `--latency-ms`, its stream paced as
a provider's. One panel is asked first, as `run.py` does (`--cold`: none,
so the crowd arrives right after the setup's edits and re-reads the
bench). The report: how many panels finished whole (2xx and the
stream's end), time to first byte and to the end (p50, p99, max) counted
from before each client connected, the gateway's peak RSS (process tree),
and the most upstream connections open at once, counted at the upstream
process against the gateway's cap (`upstream_connections_per_host`, its
default). Loopback only; the run stops by itself.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import resource
import shlex
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

import psutil
from gateways import MEMBERS, chat_body, check_panel, start_panelgate
from harness import git_describe
from load_driver import ResponseError, build_request, event_loop_factory, percentile, read_body, read_head
from processes import TreeSampler, start_upstream

from panelgate.settings import Settings

HERE = Path(__file__).resolve().parent


@dataclass
class Outcome:
    first_byte_s: float | None = None
    end_s: float | None = None
    failure: str | None = None


@dataclass
class ConnectionCount:
    """The upstream's open connections on its port, sampled in a thread; keeps the most seen."""

    pid: int
    port: int
    most: int = 0
    _stop: threading.Event = field(default_factory=threading.Event)

    def run(self) -> None:
        process = psutil.Process(self.pid)
        while not self._stop.wait(0.05):
            with contextlib.suppress(psutil.Error):
                open_now = sum(
                    1
                    for c in process.net_connections("tcp")
                    if c.laddr and c.laddr.port == self.port and c.status == psutil.CONN_ESTABLISHED
                )
                self.most = max(self.most, open_now)

    def stop(self) -> None:
        self._stop.set()


async def one_panel(host: str, port: int, request: bytes, timeout_s: float) -> Outcome:
    outcome = Outcome()
    started = time.perf_counter()

    def mark_first() -> None:
        outcome.first_byte_s = time.perf_counter() - started

    writer = None
    try:
        async with asyncio.timeout(timeout_s):
            reader, writer = await asyncio.open_connection(host, port)
            writer.write(request)
            status, headers = await read_head(reader)
            await read_body(reader, headers, mark_first)
        if not 200 <= status < 300:
            outcome.failure = f"status {status}"
        else:
            outcome.end_s = time.perf_counter() - started
    except TimeoutError:
        outcome.failure = "timeout"
    except (OSError, ResponseError, ValueError) as exc:
        outcome.failure = type(exc).__name__
    finally:
        if writer is not None:
            writer.close()
    return outcome


async def crowd(url: str, body: bytes, panels: int, timeout_s: float) -> list[Outcome]:
    host, port, request = build_request(url, body)
    return await asyncio.gather(*(one_panel(host, port, request, timeout_s) for _ in range(panels)))


def percentiles(values: list[float]) -> str:
    """p50 / p99 / max in ms."""
    if not values:
        return "—"
    p50, p99, most = (1000 * (percentile(values, q) or 0.0) for q in (0.5, 0.99, 1.0))
    return f"{p50:,.0f} / {p99:,.0f} / {most:,.0f}"


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--panels", type=int, default=1000, help="clients, one streamed panel each")
    parser.add_argument("--latency-ms", type=float, default=8000, help="the upstream's answer time per seat")
    parser.add_argument("--timeout", type=float, default=120, help="a panel slower than this failed")
    parser.add_argument(
        "--cold",
        action="store_true",
        help="no panel before the crowd: it arrives right after the setup's edits",
    )
    parser.add_argument("--database-url", default=None, help="PostgreSQL instead of SQLite in a temp folder")
    return parser.parse_args()


def raise_open_files_limit(needed: int) -> None:
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < needed:
        resource.setrlimit(resource.RLIMIT_NOFILE, (min(needed, hard), hard))


def main() -> None:
    args = parse_args()
    raise_open_files_limit(args.panels + 200)  # the clients' sockets; the servers inherit the limit too
    workdir = Path(tempfile.mkdtemp(prefix="panelgate-burst-"))
    upstream, upstream_port = start_upstream(
        HERE / "upstream.py", sys.executable, args.latency_ms, MEMBERS, workdir / "upstream.log"
    )
    try:
        gateway = start_panelgate(workdir, f"http://127.0.0.1:{upstream_port}", args.database_url)
        try:
            if not args.cold:
                check_panel(gateway, stream=True)  # as `run.py` does: the crowd finds the bench read
            with TreeSampler(gateway.service.process.pid) as sampler:
                idle = sampler.rss_now()
                counter = ConnectionCount(upstream.process.pid, upstream_port)
                watching = threading.Thread(target=counter.run, daemon=True)
                watching.start()
                started = time.perf_counter()
                body = chat_body(gateway.model, stream=True)
                with asyncio.Runner(loop_factory=event_loop_factory()) as runner:
                    outcomes = runner.run(crowd(gateway.chat_url, body, args.panels, args.timeout))
                took = time.perf_counter() - started
                counter.stop()
                watching.join()
                peak = sampler.take_peak()
        finally:
            gateway.service.stop()
    finally:
        upstream.stop()
    print(report(args, outcomes, took, idle, peak, counter.most))


def report(
    args: argparse.Namespace, outcomes: list[Outcome], took: float, idle: int, peak: int, most: int
) -> str:
    whole = [o for o in outcomes if o.failure is None]
    failures: dict[str, int] = {}
    for o in outcomes:
        if o.failure:
            failures[o.failure] = failures.get(o.failure, 0) + 1
    mib = 1024 * 1024
    cap = Settings.model_fields["upstream_connections_per_host"].default
    lines = [
        "# A crowd of streamed panels",
        "",
        f"- command: `{shlex.join(['benchmarks/burst.py', *sys.argv[1:]])}`;"
        f" panelgate tree at {git_describe()}",
        f"- {args.panels} clients at once, each one streamed 3-seat panel; every seat answers in"
        f" {args.latency_ms:g} ms, paced as a provider's; the whole crowd took {took:.1f} s",
        "",
        "| panels whole | failed | first byte p50 / p99 / max ms | end p50 / p99 / max ms |"
        " RSS idle / peak MiB | upstream connections at most (cap) |",
        "|---:|---|---|---|---|---|",
        f"| {len(whole)} of {args.panels} | {failures or 'none'} |"
        f" {percentiles([o.first_byte_s for o in whole if o.first_byte_s is not None])} |"
        f" {percentiles([o.end_s for o in whole if o.end_s is not None])} |"
        f" {idle / mib:.0f} / {peak / mib:.0f} | {most} ({cap}) |",
    ]
    return "\n".join(lines)


if __name__ == "__main__":
    main()
