"""The benchmark's markdown report: the machine, one table per reply mode, and a side-by-side summary.

Every gateway row is read against the upstream floor row of the same mode
and concurrency: "over floor" is the gateway's percentile minus the floor's.
"""

from __future__ import annotations

import os
import platform
import shutil
import subprocess
from dataclasses import dataclass

import psutil
from load import LoadResult

FLOOR = "upstream floor"


@dataclass
class Row:
    target: str
    stream: bool
    result: LoadResult
    peak_rss_bytes: int | None = None
    cpu_cores: float | None = None


def machine_lines() -> list[str]:
    model = "unknown CPU"
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as info:
            model = next((ln.split(":", 1)[1].strip() for ln in info if ln.startswith("model name")), model)
    except OSError:
        pass
    wrk: list[str] = []
    if shutil.which("wrk") is not None:  # without it the runs fell back to the asyncio driver
        wrk = subprocess.run(["wrk", "-v"], capture_output=True, text=True, check=False).stdout.splitlines()
    load = ", ".join(f"{x:.2f}" for x in os.getloadavg())
    return [
        f"- CPU: {model}, {os.cpu_count()} logical cores",
        f"- memory: {psutil.virtual_memory().total / 2**30:.1f} GiB",
        f"- OS: {platform.system()} {platform.release()}; Python {platform.python_version()}",
        f"- wrk: {wrk[0].strip() if wrk else 'not installed'}",
        f"- load average when the run started: {load}",
    ]


def ms(value: float | None) -> str:
    return "–" if value is None else f"{value:.1f}"


def over(value: float | None, floor: float | None) -> str:
    return "–" if value is None or floor is None else f"{value - floor:+.1f}"


def errors(result: LoadResult) -> str:
    total = result.socket_error_count
    if not total:
        return "0"
    detail = ", ".join(f"{k} {v}" for k, v in result.socket_errors.items() if v)
    return f"{total} ({detail})"


def mode_table(rows: list[Row], stream: bool, unit: str = "panels") -> list[str]:
    mine = [r for r in rows if r.stream == stream]
    floors = {r.result.concurrency: r.result for r in mine if r.target == FLOOR}
    ttfb_head = " TTFB p50 | TTFB p95 | TTFB p99 |" if stream else ""
    lines = [
        f"| conc | target | {unit}/s | mean wait ms | p50 ms | p95 ms | p99 ms |{ttfb_head}"
        " over floor p50 / p95 / p99 ms | socket errors | non-2xx | peak RSS MiB | CPU cores |",
        "|---:|---|---:|---:|---:|---:|---:|"
        + ("---:|---:|---:|" if stream else "")
        + "---|---|---:|---:|---:|",
    ]
    for row in sorted(mine, key=lambda r: (r.result.concurrency, r.target != FLOOR, r.target)):
        res, floor = row.result, floors.get(row.result.concurrency)
        gap = (
            " / ".join(
                over(getattr(res, k), getattr(floor, k) if floor else None)
                for k in ("p50_ms", "p95_ms", "p99_ms")
            )
            if row.target != FLOOR
            else "(the floor)"
        )
        ttfb = f" {ms(res.ttfb_p50_ms)} | {ms(res.ttfb_p95_ms)} | {ms(res.ttfb_p99_ms)} |" if stream else ""
        rss = "–" if row.peak_rss_bytes is None else f"{row.peak_rss_bytes / 2**20:.0f}"
        cpu = "–" if row.cpu_cores is None else f"{row.cpu_cores:.2f}"
        wait = ms(res.concurrency / res.rate * 1000) if res.rate else "–"
        lines.append(
            f"| {res.concurrency} | {row.target} | {res.rate:.1f} | {wait} | "
            f"{ms(res.p50_ms)} | {ms(res.p95_ms)} | {ms(res.p99_ms)} |{ttfb} {gap} | "
            f"{errors(res)} | {res.non_2xx} | {rss} | {cpu} |"
        )
    return lines


def find(rows: list[Row], target: str | None, stream: bool, concurrency: int) -> LoadResult | None:
    """`target`'s result at one mode and concurrency, None when it was not measured."""
    return next(
        (
            r.result
            for r in rows
            if r.target == target and r.stream == stream and r.result.concurrency == concurrency
        ),
        None,
    )


def side_by_side(rows: list[Row], ours: str, theirs: str, unit: str = "panels") -> list[str]:
    lines = [
        f"| mode | conc | {ours} {unit}/s | {theirs} {unit}/s | × | {ours} p50 ms | {theirs} p50 ms |",
        "|---|---:|---:|---:|---:|---:|---:|",
    ]
    for stream in (False, True):
        for conc in sorted({r.result.concurrency for r in rows if r.stream == stream}):
            a, b = find(rows, ours, stream, conc), find(rows, theirs, stream, conc)
            if a is None or b is None:
                continue
            ratio = f"{a.rate / b.rate:.1f}" if b.rate else "∞"
            mode = "streamed" if stream else "non-streamed"
            rates = f"{a.rate:.1f} | {b.rate:.1f} | {ratio}"
            lines.append(f"| {mode} | {conc} | {rates} | {ms(a.p50_ms)} | {ms(b.p50_ms)} |")
    return lines


def driver_headroom(rows: list[Row], unit: str = "panels") -> list[str]:
    """Evidence that the asyncio driver is not what limits the streamed gateway rows."""
    driven = [r for r in rows if r.stream and r.result.tool == "asyncio driver"]
    floor = max((r.result.rate for r in driven if r.target == FLOOR), default=0.0)
    gateways = max((r.result.rate for r in driven if r.target != FLOOR), default=0.0)
    if not floor or not gateways:
        return []
    return [
        f"the asyncio driver drove the bare upstream at up to {floor:.0f} streamed replies/s, "
        f"{floor / gateways:.0f}× the fastest streamed gateway row ({gateways:.1f} {unit}/s): "
        "it is not the bottleneck"
    ]


def render(
    header: list[str],
    rows: list[Row],
    notes: list[str],
    ours: str | None,
    theirs: str | None,
    *,
    title: str = "panelgate benchmark",
    unit: str = "panels",
    sections: dict[str, list[str]] | None = None,
) -> str:
    """The whole report; `unit` names what a gateway row counts, `sections` go after the side by side."""
    notes = [*notes, *driver_headroom(rows, unit)]
    out = [f"# {title}", "", *header, "", "## Machine", "", *machine_lines(), ""]
    if ours and theirs:
        out += ["## Side by side", "", *side_by_side(rows, ours, theirs, unit), ""]
    for name, lines in (sections or {}).items():
        out += [f"## {name}", "", *lines, ""]
    for stream, heading in ((False, "Non-streamed"), (True, "Streamed")):
        if any(r.stream == stream for r in rows):
            tool = next(r.result.tool for r in rows if r.stream == stream)
            out += [f"## {heading} (load: {tool})", "", *mode_table(rows, stream, unit), ""]
    if notes:
        out += ["## Notes", "", *(f"- {n}" for n in notes), ""]
    return "\n".join(out)
