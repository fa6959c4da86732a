"""What an idle gateway holds, at each moment of its life: first start, after its setup, restarted.

    .venv/bin/python benchmarks/idle_memory.py                 # one process
    .venv/bin/python benchmarks/idle_memory.py --workers 2     # a supervisor and two workers
    PYTHONPATH=<tree>/src .venv/bin/python benchmarks/idle_memory.py   # another tree

`panelgate serve` on a fresh data folder, measured `--settle` seconds after
`/health` first answers and before any other request: on its first start
(the database made and migrated), after its setup through the admin API
(the benchmarks' 3-seat collection, against the fake upstream), and started
again on that folder. RSS and PSS are summed over the process tree
(`processes.TreeSampler`: PSS splits each shared page among its sharers).
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

from gateways import configure_panelgate, panelgate_command
from harness import git_describe
from processes import Service, TreeSampler, free_port, start_upstream

HERE = Path(__file__).resolve().parent
MEMBERS = ["m1", "m2", "m3"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--settle", type=float, default=3.0, help="seconds between /health and the sample")
    args = parser.parse_args()
    workdir = Path(tempfile.mkdtemp(prefix="panelgate-idle-"))
    upstream, port = start_upstream(HERE / "upstream.py", sys.executable, 50.0, MEMBERS, workdir / "up.log")
    env = {k: v for k, v in os.environ.items() if not k.startswith("PANELGATE_")}
    env["PANELGATE_HOME"] = str(workdir / "home")
    rows: list[tuple[str, float, float]] = []
    try:
        service, base = _serve(env, args.workers, workdir / "first.log")
        rows.append(_sample("first start", service, args.settle))
        configure_panelgate(base, f"http://127.0.0.1:{port}")
        rows.append(_sample("after its setup", service, args.settle))
        service.stop()
        service, _ = _serve(env, args.workers, workdir / "restarted.log")
        rows.append(_sample("restarted", service, args.settle))
        service.stop()
    finally:
        upstream.stop()
    processes = "one process" if args.workers == 1 else f"{args.workers} workers and their supervisor"
    tree = os.environ.get("PYTHONPATH") or f"this checkout ({git_describe()})"
    print(f"panelgate from {tree}, {processes}, sampled {args.settle:g} s after /health\n")
    print("| idle | RSS MiB | PSS MiB |\n|---|---|---|")
    for moment, rss, pss in rows:
        print(f"| {moment} | {rss:.1f} | {pss:.1f} |")


def _serve(env: dict[str, str], workers: int, log: Path) -> tuple[Service, str]:
    port = free_port()
    argv = [*panelgate_command(), "serve", "--port", str(port), "--workers", str(workers)]
    service = Service("panelgate", argv, env, log)
    base = f"http://127.0.0.1:{port}"
    service.wait_until_http_ok(f"{base}/health")
    return service, base


def _sample(moment: str, service: Service, settle_s: float) -> tuple[str, float, float]:
    time.sleep(settle_s)
    with TreeSampler(service.pid) as sampler:
        return moment, sampler.rss_now() / 2**20, sampler.pss_now() / 2**20


if __name__ == "__main__":
    main()
