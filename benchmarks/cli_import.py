"""How long the `panelgate` command takes to start: `--help`, and a client command with no server.

    .venv/bin/python benchmarks/cli_import.py              # 5 runs of each
    .venv/bin/python benchmarks/cli_import.py --runs 20

The CLI's tests start the command in a process of its own a few hundred
times, so what it imports before doing anything is paid on every one. This
runs each command in a fresh process `--runs` times and prints the median
wall time, and the median CPU time (user + system) of the process, which a
busy machine disturbs less. The client command is `collections` pointed at
a loopback port nobody listens on, so it ends at once with "no server"
(exit code 3): what it measures is the start, not a server.

To time another tree with the same interpreter, put its `src` first:
`PYTHONPATH=/elsewhere/src .venv/bin/python benchmarks/cli_import.py`.
"""

from __future__ import annotations

import argparse
import os
import resource
import socket
import statistics
import subprocess
import sys
import time

EXPECTED_EXIT = {"--help": 0, "collections": 3}


def closed_port() -> int:
    """A loopback port that was free a moment ago and that nothing here listens on."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def children_cpu_s() -> float:
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    return used.ru_utime + used.ru_stime


def timed_run(argv: list[str], env: dict[str, str], expected_exit: int) -> tuple[float, float]:
    """One run's wall time and CPU time, in seconds."""
    cpu_before, started = children_cpu_s(), time.perf_counter()
    done = subprocess.run(argv, env=env, stdin=subprocess.DEVNULL, capture_output=True, check=False)
    wall, cpu = time.perf_counter() - started, children_cpu_s() - cpu_before
    if done.returncode != expected_exit:
        sys.exit(f"{' '.join(argv)} exited {done.returncode}, not {expected_exit}:\n{done.stderr.decode()}")
    return wall, cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5, help="fresh processes per command (default 5)")
    parser.add_argument("--python", default=sys.executable, help="the interpreter to run panelgate with")
    args = parser.parse_args()
    env = {k: v for k, v in os.environ.items() if not k.startswith("PANELGATE_")}
    env["PANELGATE_URL"] = f"http://127.0.0.1:{closed_port()}"
    print(f"median of {args.runs} runs of {args.python} -m panelgate ...")
    for command, expected_exit in EXPECTED_EXIT.items():
        argv = [args.python, "-m", "panelgate", command]
        timed_run(argv, env, expected_exit)  # once untimed, so the byte-code cache is written
        walls, cpus = zip(*(timed_run(argv, env, expected_exit) for _ in range(args.runs)), strict=True)
        wall_ms, cpu_ms = statistics.median(walls) * 1000, statistics.median(cpus) * 1000
        print(f"  {command:<12} wall {wall_ms:4.0f} ms   cpu {cpu_ms:4.0f} ms")


if __name__ == "__main__":
    main()
