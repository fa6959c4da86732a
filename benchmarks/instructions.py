"""Machine instructions per request, counted by valgrind: a measure of the request path that neither
the machine's load nor its clock moves.

On this 2-core machine two runs of `benchmarks/run.py` on the same tree differ by up to 10 %, more
than most changes on the request path. Callgrind counts the instructions a process executes,
Python's interpreter and the C libraries included (SQLite, the JSON codec, the sockets), so two
trees compare to within about 1 %.

An in-process gateway (the tests' `Gateway`) serves panels of three seats (`bench/core`) or route
turns (`bench/agents`) from the loopback upstream, in one Python process that also holds the client
and the upstream. Each kind runs twice under callgrind, `--few` requests and `--few` + `--requests`
after a warm-up, and the difference divided by `--requests` is one request's instructions: start-up
and warm-up cancel out. The client's and the upstream's share is the same code in any two trees
measured with the same `tests/`, so a difference between trees is the gateway's.

    PYTHONPATH=src:. .venv/bin/python benchmarks/instructions.py                 # about 5 minutes
    PYTHONPATH=/other/tree/src:. .venv/bin/python benchmarks/instructions.py     # another tree

Needs `valgrind` (Debian's package).
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

KINDS = {"panel": ("bench/core", "a panel of three seats"), "route": ("bench/agents", "a route turn")}
WARM_UP = 20
COLLECTED = re.compile(r"Collected : (\d+)")


def serve(kind: str, count: int) -> None:
    """The child: `WARM_UP` + `count` whole requests of one kind, nothing else."""
    import httpx
    from tests.conftest import arrange_bench
    from tests.support.gateway import Gateway
    from tests.support.upstream import FakeUpstream

    model = KINDS[kind][0]
    with FakeUpstream() as upstream:
        gateway = Gateway(Path(tempfile.mkdtemp()) / "home").start()
        try:
            arrange_bench(gateway, upstream)
            gateway.save_collection("agents", ["m1"], reply="route")
            body = {"model": model, "messages": [{"role": "user", "content": "hi"}]}
            with httpx.Client(timeout=300) as client:
                for _ in range(WARM_UP + count):
                    client.post(f"{gateway.url}/v1/chat/completions", json=body).raise_for_status()
        finally:
            gateway.close()


def instructions(kind: str, count: int, folder: Path) -> int:
    """Every instruction of one child process run under callgrind."""
    out = folder / f"callgrind.{kind}.{count}"
    command = ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}", sys.executable, __file__]
    finished = subprocess.run(
        [*command, "--serve", kind, "--requests", str(count)],
        capture_output=True,
        text=True,
        env=os.environ,
        check=False,
    )
    found = COLLECTED.search(finished.stderr)
    if finished.returncode != 0 or found is None:
        raise SystemExit(f"the {kind} run of {count} failed:\n{finished.stderr[-3000:]}")
    return int(found.group(1))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=100, help="requests told apart per kind")
    parser.add_argument("--few", type=int, default=10, help="requests of the shorter run")
    parser.add_argument("--kinds", default="panel,route", help="panel, route or both")
    parser.add_argument("--serve", choices=sorted(KINDS), help=argparse.SUPPRESS)
    options = parser.parse_args()
    if options.serve:
        serve(options.serve, options.requests)
        return
    with tempfile.TemporaryDirectory() as folder, ThreadPoolExecutor(max_workers=2) as pool:
        for kind in options.kinds.split(","):
            few, many = pool.map(
                lambda n, kind=kind: instructions(kind, n, Path(folder)),
                (options.few, options.few + options.requests),
            )
            per_request = (many - few) / options.requests
            print(f"{KINDS[kind][1]}: {per_request / 1e6:.2f} M instructions per whole request")


if __name__ == "__main__":
    main()
