"""Python function calls the gateway makes per request: a measure of the request path that no load on
the machine moves, for comparing two trees when throughput runs are too noisy to tell them apart.

An in-process gateway (the tests' `Gateway`) serves a panel of three seats
(`bench/core`) and a route turn (`bench/agents`) from the loopback upstream;
the server thread is profiled with `threading.setprofile`, and the calls it
makes over `--requests` whole requests, after a warm-up, are counted.

    PYTHONPATH=src:. .venv/bin/python benchmarks/call_count.py
    PYTHONPATH=/other/tree/src:. .venv/bin/python benchmarks/call_count.py
"""

from __future__ import annotations

import argparse
import tempfile
import threading
from pathlib import Path
from types import FrameType
from typing import Any

import httpx
from tests.conftest import arrange_bench
from tests.support.gateway import Gateway
from tests.support.upstream import FakeUpstream

WARM_UP = 20
KINDS = (("bench/core", "a panel of three seats"), ("bench/agents", "a route turn"))


class CallCounter:
    def __init__(self) -> None:
        self.calls = 0

    def __call__(self, frame: FrameType, event: str, arg: Any) -> None:
        if event == "call":
            self.calls += 1


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=100, help="whole requests counted per kind")
    count = parser.parse_args().requests
    counter = CallCounter()
    with FakeUpstream() as upstream:
        threading.setprofile(counter)  # every thread started from here on: the gateway's server thread
        gateway = Gateway(Path(tempfile.mkdtemp()) / "home").start()
        threading.setprofile(None)
        try:
            arrange_bench(gateway, upstream)
            gateway.save_collection("agents", ["m1"], reply="route")
            with httpx.Client(timeout=30) as client:
                for model, kind in KINDS:
                    body = {"model": model, "messages": [{"role": "user", "content": "hi"}]}
                    for _ in range(WARM_UP):
                        client.post(f"{gateway.url}/v1/chat/completions", json=body).raise_for_status()
                    counter.calls = 0
                    for _ in range(count):
                        client.post(f"{gateway.url}/v1/chat/completions", json=body).raise_for_status()
                    print(f"{kind}: {counter.calls / count:.0f} calls per whole request")
        finally:
            gateway.close()


if __name__ == "__main__":
    main()
