"""CPU per upstream call: `UpstreamClient.chat` alone, against the fake upstream.

    python benchmarks/upstream_client.py --concurrency 64,256 --seconds 5

The full benchmark shows the gateway CPU-bound; this isolates the share the
outbound calls take. It starts `upstream.py` in its own process (so its CPU
is not counted), then keeps N streamed `chat` calls in flight on uvloop for
a fixed time and reports calls/s and CPU milliseconds of this process per
call (`time.process_time()`, split into user and kernel time; so the load generator is the client itself:
the number is what one seat's call costs the gateway).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import subprocess
import sys
import time
from pathlib import Path
from tempfile import TemporaryDirectory

import uvloop

from panelgate.settings import Settings
from panelgate.upstream import KeyStore, Target, UpstreamClient

HELLO = [{"role": "user", "content": "hi"}]


def start_upstream(latency_ms: float) -> tuple[subprocess.Popen[str], int]:
    script = Path(__file__).with_name("upstream.py")
    process = subprocess.Popen(
        [sys.executable, str(script), "--port", "0", "--latency-ms", str(latency_ms)],
        stdout=subprocess.PIPE,
        text=True,
    )
    assert process.stdout is not None
    line = process.stdout.readline().split()
    if line[:1] != ["ready"]:
        process.kill()
        raise SystemExit("the fake upstream did not start")
    return process, int(line[1])


async def one_level(client: UpstreamClient, target: Target, concurrency: int, seconds: float) -> None:
    done = 0
    stop_at = 0.0

    async def seat() -> None:
        nonlocal done
        while time.monotonic() < stop_at:
            result = await client.chat(target, HELLO, {}, deadline=time.monotonic() + 10)  # type: ignore[arg-type]
            assert result.text
            done += 1

    stop_at = time.monotonic() + 1.0  # warm-up: fill the pool
    await asyncio.gather(*(seat() for _ in range(concurrency)))
    done = 0
    wall, cpu, times = time.monotonic(), time.process_time(), os.times()
    stop_at = wall + seconds
    await asyncio.gather(*(seat() for _ in range(concurrency)))
    wall, cpu = time.monotonic() - wall, time.process_time() - cpu
    user, system = os.times().user - times.user, os.times().system - times.system
    print(
        f"concurrency {concurrency:4d}: {done / wall:8.0f} calls/s, "
        f"{cpu / done * 1000:.3f} ms CPU per call (user {user / done * 1000:.3f}, "
        f"kernel {system / done * 1000:.3f}), {cpu / wall:.2f} cores",
        flush=True,
    )


async def run(port: int, levels: list[int], seconds: float) -> None:
    with TemporaryDirectory() as home:
        client = UpstreamClient(Settings(home=Path(home)), KeyStore(Path(home) / "keys.json", {}))
        target = Target(endpoint="bench", base_url=f"http://127.0.0.1:{port}/v1", served_id="m1")
        try:
            for concurrency in levels:
                await one_level(client, target, concurrency, seconds)
        finally:
            await client.aclose()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--concurrency", default="64,256", help="comma-separated levels")
    parser.add_argument("--seconds", type=float, default=5.0)
    parser.add_argument("--latency-ms", type=float, default=50.0)
    args = parser.parse_args()
    upstream, port = start_upstream(args.latency_ms)
    try:
        levels = [int(level) for level in args.concurrency.split(",")]
        with asyncio.Runner(loop_factory=uvloop.new_event_loop) as runner:
            runner.run(run(port, levels, args.seconds))
    finally:
        upstream.terminate()
        upstream.wait(5)


if __name__ == "__main__":
    main()
