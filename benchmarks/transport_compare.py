"""CPU per upstream call with two transports in one run: this tree's pool and an older `transport.py`.

    git show HEAD:src/panelgate/upstream/transport.py > /tmp/old_transport.py
    python benchmarks/transport_compare.py --baseline /tmp/old_transport.py --concurrency 64,256 --rounds 3

`upstream_client.py` measures one tree; two trees measured one after the
other differ by as much as the machine drifts between runs. Here the same
`UpstreamClient` is given the baseline's pool and this tree's in turns
(which goes first alternates round by round) against one fake upstream
process, so the drift falls on both alike. The baseline file must be a self-contained
`transport.py` (it is loaded by path and needs only httptools), offering
`HttpPool(connect_timeout=..., keepalive_s=...)` with `request`/`aclose`.
"""

from __future__ import annotations

import argparse
import asyncio
import importlib.util
import statistics
import sys
import time
from pathlib import Path
from tempfile import TemporaryDirectory
from typing import Any

import uvloop
from upstream_client import HELLO, start_upstream

from panelgate.settings import Settings
from panelgate.upstream import KeyStore, Target, UpstreamClient


def load_pool_class(path: Path) -> Any:
    spec = importlib.util.spec_from_file_location("baseline_transport", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.HttpPool


async def measure(
    client: UpstreamClient, target: Target, concurrency: int, seconds: float
) -> tuple[float, float]:
    """(calls/s, CPU ms per call) over `seconds`, after a second of warm-up that fills the pool."""
    done = 0
    stop_at = 0.0

    async def seat() -> None:
        nonlocal done
        while time.monotonic() < stop_at:
            result = await client.chat(target, HELLO, {}, deadline=time.monotonic() + 10)  # type: ignore[arg-type]
            assert result.text
            done += 1

    stop_at = time.monotonic() + 1.0
    await asyncio.gather(*(seat() for _ in range(concurrency)))
    done = 0
    wall, cpu = time.monotonic(), time.process_time()
    stop_at = wall + seconds
    await asyncio.gather(*(seat() for _ in range(concurrency)))
    wall, cpu = time.monotonic() - wall, time.process_time() - cpu
    return done / wall, cpu / done * 1000


async def calls_per_call(
    client: UpstreamClient, target: Target, calls: int = 200
) -> tuple[float, float, float]:
    """(Python calls, C calls, bytecode instructions) per chat call, one call at a time on a warm
    pool: counts the machine's load does not move, unlike the CPU time."""
    counts = {"call": 0, "c_call": 0, "opcode": 0}

    def count(frame: Any, event: str, arg: Any) -> None:
        if event in counts:
            counts[event] += 1

    def trace(frame: Any, event: str, arg: Any) -> Any:
        frame.f_trace_opcodes = True
        counts["opcode"] += event == "opcode"
        return trace

    async def chat() -> None:
        await client.chat(target, HELLO, {}, deadline=time.monotonic() + 10)  # type: ignore[arg-type]

    await chat()
    sys.setprofile(count)
    try:
        for _ in range(calls):
            await chat()
    finally:
        sys.setprofile(None)
    sys.settrace(trace)
    try:
        for _ in range(calls):
            await chat()
    finally:
        sys.settrace(None)
    return counts["call"] / calls, counts["c_call"] / calls, counts["opcode"] / calls


async def run(port: int, baseline: Any, levels: list[int], seconds: float, rounds: int) -> None:
    results: dict[tuple[str, int], list[tuple[float, float]]] = {}
    with TemporaryDirectory() as home:
        target = Target(endpoint="bench", base_url=f"http://127.0.0.1:{port}/v1", served_id="m1")
        for round_number in range(rounds):
            for name in ("before", "after") if round_number % 2 == 0 else ("after", "before"):
                client = UpstreamClient(Settings(home=Path(home)), KeyStore(Path(home) / "keys.json", {}))
                if name == "before":
                    await client._pool.aclose()
                    client._pool = baseline(connect_timeout=10.0, keepalive_s=30.0)
                try:
                    if round_number == 0:
                        python_calls, c_calls, opcodes = await calls_per_call(client, target)
                        print(
                            f"{name}: {python_calls:.0f} Python calls, {c_calls:.0f} C calls and "
                            f"{opcodes:.0f} bytecode instructions per chat call"
                        )
                    for concurrency in levels:
                        calls, cpu = await measure(client, target, concurrency, seconds)
                        results.setdefault((name, concurrency), []).append((calls, cpu))
                        print(
                            f"round {round_number + 1} {name:6s} c={concurrency:4d}: {calls:7.0f} calls/s, "
                            f"{cpu:.3f} ms CPU per call",
                            flush=True,
                        )
                finally:
                    await client.aclose()
    print("\n| concurrency | before: CPU ms/call | after: CPU ms/call | before: calls/s | after: calls/s |")
    print("|---|---|---|---|---|")
    for concurrency in levels:
        before, after = results[("before", concurrency)], results[("after", concurrency)]
        print(
            f"| {concurrency} | {_cells(before, 1, '.3f')} | {_cells(after, 1, '.3f')} "
            f"| {_cells(before, 0, '.0f')} | {_cells(after, 0, '.0f')} |"
        )


def _cells(rows: list[tuple[float, float]], index: int, spec: str) -> str:
    values = [row[index] for row in rows]
    return ", ".join(format(v, spec) for v in values) + f" (median {format(statistics.median(values), spec)})"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--baseline", type=Path, required=True, help="the older transport.py to compare with")
    parser.add_argument("--concurrency", default="64,256", help="comma-separated levels")
    parser.add_argument("--seconds", type=float, default=5.0)
    parser.add_argument("--rounds", type=int, default=3, help="before/after pairs, alternating")
    parser.add_argument("--latency-ms", type=float, default=50.0)
    args = parser.parse_args()
    baseline = load_pool_class(args.baseline)
    upstream, port = start_upstream(args.latency_ms)
    try:
        levels = [int(level) for level in args.concurrency.split(",")]
        with asyncio.Runner(loop_factory=uvloop.new_event_loop) as runner:
            runner.run(run(port, baseline, levels, args.seconds, args.rounds))
    finally:
        upstream.terminate()
        upstream.wait(5)


if __name__ == "__main__":
    main()
