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
    PYTHONPATH=src:. .venv/bin/python benchmarks/instructions.py --filled 1000000   # about 10 minutes

`--filled N` serves from a store that already holds N panels, written by `growth_fill.py` as the
growth benchmark writes them (the same bench, 3 seats each, verdicts on a third): beside a run on the
empty store, whatever a request does more as the record grows, counted without the noise that makes
a wall-clock comparison of the two stores move by a millisecond or two on this machine. It counts
the gateway's own process only: on SQLite that includes the database's work, which is why the
filled store is an SQLite one.

Needs `valgrind` (Debian's package).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import re
import shutil
import sqlite3
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from tests.support.gateway import Gateway
    from tests.support.upstream import FakeUpstream

MEMBERS = ("m1", "m2", "m3")
"""`arrange_bench`'s members, which `growth_fill` judges by name."""

KINDS = {"panel": ("bench/core", "a panel of three seats"), "route": ("bench/agents", "a route turn")}
WARM_UP = 20
COLLECTED = re.compile(r"Collected : (\d+)")


def serve(kind: str, count: int, store: Path | None) -> None:
    """The child: `WARM_UP` + `count` whole requests of one kind, nothing else; on a copy of `store`
    when given (its bench already arranged), else on an empty store."""
    import httpx
    from tests.support.gateway import Gateway
    from tests.support.upstream import FakeUpstream

    model = KINDS[kind][0]
    with FakeUpstream() as upstream, tempfile.TemporaryDirectory() as folder:
        home = Path(folder) / "home"
        if store is not None:
            home.mkdir()
            shutil.copyfile(store, home / "panelgate.db")
            point_endpoint(home / "panelgate.db", upstream.url)
            upstream.serve(*MEMBERS)
        gateway = Gateway(home).start()
        try:
            if store is None:
                arrange(gateway, upstream)
            body = {"model": model, "messages": [{"role": "user", "content": "hi"}]}
            with httpx.Client(timeout=300) as client:
                for _ in range(WARM_UP + count):
                    client.post(f"{gateway.url}/v1/chat/completions", json=body).raise_for_status()
        finally:
            gateway.close()


def arrange(gateway: Gateway, upstream: FakeUpstream) -> None:
    """The bench both kinds ask: `bench/core` (three members) and `bench/agents` (route mode)."""
    from tests.conftest import arrange_bench

    arrange_bench(gateway, upstream)
    gateway.save_collection("agents", [MEMBERS[0]], reply="route")


def point_endpoint(database: Path, url: str) -> None:
    """Aim the copied store's endpoint at this run's upstream (its port changes from run to run)."""
    with sqlite3.connect(database) as connection:
        connection.execute("UPDATE endpoints SET base_url = ? WHERE name = 'up'", (url,))
    connection.close()


def filled_store(panels: int, folder: Path) -> Path:
    """An SQLite store with the children's bench and `panels` panels of record (`growth_fill.fill`)."""
    from growth_fill import FillPlan, fill
    from tests.support.gateway import Gateway
    from tests.support.upstream import FakeUpstream

    home = folder / "filled"
    with FakeUpstream() as upstream:
        gateway = Gateway(home).start()
        try:
            arrange(gateway, upstream)
        finally:
            gateway.close()
    database = home / "panelgate.db"
    plan = FillPlan(panels=panels, days=90.0, batch=5_000, collection="core")
    filled = asyncio.run(fill(f"sqlite+aiosqlite:///{database}", plan, say=print))
    print(f"filled {filled.panels:,} panels ({filled.verdicts:,} verdicts) in {filled.seconds:.0f} s")
    left = sorted(path.name for path in home.glob("panelgate.db-*"))
    assert not left, f"the filled store left {left} beside it, which a copy of the file would lose"
    return database


def instructions(kind: str, count: int, folder: Path, store: Path | None) -> int:
    """Every instruction of one child process run under callgrind."""
    out = folder / f"callgrind.{kind}.{count}"
    command = ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}", sys.executable, __file__]
    stored = ["--store", str(store)] if store is not None else []
    finished = subprocess.run(
        [*command, "--serve", kind, "--requests", str(count), *stored],
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
    parser.add_argument("--filled", type=int, default=0, help="panels already in the store (default 0)")
    parser.add_argument("--serve", choices=sorted(KINDS), help=argparse.SUPPRESS)
    parser.add_argument("--store", type=Path, help=argparse.SUPPRESS)
    options = parser.parse_args()
    if options.serve:
        serve(options.serve, options.requests, options.store)
        return
    with tempfile.TemporaryDirectory() as folder, ThreadPoolExecutor(max_workers=2) as pool:
        store = filled_store(options.filled, Path(folder)) if options.filled else None
        held = f"{options.filled:,} panels in the store" if options.filled else "an empty store"
        for kind in options.kinds.split(","):
            few, many = pool.map(
                lambda n, kind=kind: instructions(kind, n, Path(folder), store),
                (options.few, options.few + options.requests),
            )
            per_request = (many - few) / options.requests
            print(f"{KINDS[kind][1]}, {held}: {per_request / 1e6:.2f} M instructions per whole request")


if __name__ == "__main__":
    main()
