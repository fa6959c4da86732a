"""An asyncio load driver for streamed replies: latency *and* time to first byte.

    python benchmarks/load_driver.py --url http://127.0.0.1:8122/v1/chat/completions \
        --body-file body.json --concurrency 64 --seconds 10 --warmup 2

wrk reports only whole-response latency, so streamed runs use this driver:
`--concurrency` workers, each on its own keep-alive connection, POST the body
back to back for `--warmup` + `--seconds`; only responses that finish inside
the measured window count. Latency runs from the moment a client starts a
request, so a reconnect (a server that closes every connection) is in it;
time to first byte is when the first byte of the response *body* arrives
(for a stream: the first event). It speaks raw HTTP/1.1 over asyncio streams
(uvloop when installed) so that it stays far cheaper than any gateway it
drives; the report shows its rate against the bare upstream as proof.
`--header` adds a request header (a gateway key); `--vary MARKER` makes
every request new by replacing MARKER in the body with a fresh token (for a
gateway that keys conversations on the first message). Prints one JSON
object on stdout.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import itertools
import json
import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from urllib.parse import urlsplit


class ResponseError(Exception):
    """The server broke the response off or sent something that is not HTTP."""


@dataclass
class Tally:
    """What the measured window saw."""

    latencies: list[float] = field(default_factory=list)
    first_bytes: list[float] = field(default_factory=list)
    errors: dict[str, int] = field(
        default_factory=lambda: {"connect": 0, "read": 0, "timeout": 0, "status": 0}
    )


@dataclass(frozen=True)
class Plan:
    host: str
    port: int
    request: Callable[[], bytes]
    measure_from: float
    stop_at: float
    timeout_s: float


def build_request(url: str, body: bytes, headers: tuple[str, ...] = ()) -> tuple[str, int, bytes]:
    parts = urlsplit(url)
    host, port = parts.hostname or "127.0.0.1", parts.port or 80
    path = parts.path + (f"?{parts.query}" if parts.query else "")
    extra = "".join(f"{header}\r\n" for header in headers)
    head = (
        f"POST {path} HTTP/1.1\r\nHost: {host}:{port}\r\nContent-Type: application/json\r\n"
        f"Accept: */*\r\n{extra}Content-Length: {len(body)}\r\n\r\n"
    )
    return host, port, head.encode() + body


def request_maker(
    url: str, body: bytes, headers: tuple[str, ...], vary: str | None
) -> tuple[str, int, Callable[[], bytes]]:
    """Host, port and what makes each request: the same bytes, or with `vary` replaced by a fresh token."""
    host, port, request = build_request(url, body, headers)
    if not vary:
        return host, port, lambda: request
    marker = vary.encode()
    if marker not in body:
        raise SystemExit(f"--vary marker {vary!r} is not in the body")
    nonce, sent = secrets.token_hex(4), itertools.count(1)

    def fresh() -> bytes:
        return build_request(url, body.replace(marker, f"{nonce}-{next(sent)}".encode()), headers)[2]

    return host, port, fresh


async def read_head(reader: asyncio.StreamReader) -> tuple[int, dict[str, str]]:
    try:
        raw = await reader.readuntil(b"\r\n\r\n")
    except asyncio.IncompleteReadError as exc:
        raise ResponseError("connection closed before a response head") from exc
    lines = raw.decode("latin-1").split("\r\n")
    status_line = lines[0].split(" ", 2)
    if len(status_line) < 2 or not status_line[0].startswith("HTTP/"):
        raise ResponseError(f"not an HTTP response: {lines[0][:60]!r}")
    headers = {}
    for line in lines[1:]:
        name, _, value = line.partition(":")
        if name:
            headers[name.strip().lower()] = value.strip()
    return int(status_line[1]), headers


async def read_body(
    reader: asyncio.StreamReader, headers: dict[str, str], mark_first: Callable[[], None]
) -> bool:
    """Read the whole body, calling `mark_first` at its first byte; True if the connection stays open."""
    keep = headers.get("connection", "").lower() != "close"
    try:
        if "chunked" in headers.get("transfer-encoding", "").lower():
            first = True
            while True:
                size = int((await reader.readuntil(b"\r\n")).split(b";", 1)[0], 16)
                if first:
                    mark_first()
                    first = False
                if size == 0:
                    await reader.readuntil(b"\r\n")
                    return keep
                await reader.readexactly(size + 2)
        if "content-length" in headers:
            length = int(headers["content-length"])
            if length:
                await reader.readexactly(1)
                mark_first()
                await reader.readexactly(length - 1)
            else:
                mark_first()
            return keep
        chunk = await reader.read(65536)
        mark_first()
        while chunk:
            chunk = await reader.read(65536)
        return False
    except asyncio.IncompleteReadError as exc:
        raise ResponseError("connection closed in the middle of a response") from exc


async def one_request(
    reader: asyncio.StreamReader, writer: asyncio.StreamWriter, plan: Plan, tally: Tally, started: float
) -> bool:
    """Send one request and read its response; returns whether the connection may be reused.

    `started` is when the caller began: before connecting, when the request needed a new connection.
    """
    first_byte = [0.0]

    def mark_first() -> None:
        first_byte[0] = time.perf_counter()

    writer.write(plan.request())
    status, headers = await read_head(reader)
    keep = await read_body(reader, headers, mark_first)
    finished = time.perf_counter()
    if plan.measure_from <= finished <= plan.stop_at:
        if 200 <= status < 300:
            tally.latencies.append(finished - started)
            tally.first_bytes.append(first_byte[0] - started)
        else:
            tally.errors["status"] += 1
    return keep


async def worker(plan: Plan, tally: Tally) -> None:
    """One simulated client: a keep-alive connection, reopened whenever the server drops it."""
    connection: tuple[asyncio.StreamReader, asyncio.StreamWriter] | None = None
    while time.perf_counter() < plan.stop_at:
        started = time.perf_counter()
        in_window = started >= plan.measure_from
        try:
            if connection is None:
                connection = await asyncio.wait_for(
                    asyncio.open_connection(plan.host, plan.port), plan.timeout_s
                )
            reader, writer = connection
            keep = await asyncio.wait_for(one_request(reader, writer, plan, tally, started), plan.timeout_s)
        except (TimeoutError, OSError, ResponseError, ValueError) as exc:
            kind = "timeout" if isinstance(exc, TimeoutError) else "connect" if connection is None else "read"
            if in_window:
                tally.errors[kind] += 1
            keep = False
            if connection is None:
                await asyncio.sleep(0.01)  # a refused connect returns at once: do not spin
        if not keep and connection is not None:
            connection[1].close()
            connection = None
    if connection is not None:
        connection[1].close()


def percentile(values: list[float], q: float) -> float | None:
    if not values:
        return None
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def summary(tally: Tally, seconds: float) -> dict[str, object]:
    def ms(value: float | None) -> float | None:
        return None if value is None else round(value * 1000, 2)

    return {
        "requests": len(tally.latencies),
        "seconds": seconds,
        "rate": len(tally.latencies) / seconds,
        "p50_ms": ms(percentile(tally.latencies, 0.50)),
        "p95_ms": ms(percentile(tally.latencies, 0.95)),
        "p99_ms": ms(percentile(tally.latencies, 0.99)),
        "ttfb_p50_ms": ms(percentile(tally.first_bytes, 0.50)),
        "ttfb_p95_ms": ms(percentile(tally.first_bytes, 0.95)),
        "ttfb_p99_ms": ms(percentile(tally.first_bytes, 0.99)),
        "errors": tally.errors,
    }


async def drive(
    url: str,
    body: bytes,
    concurrency: int,
    seconds: float,
    warmup: float,
    timeout_s: float,
    headers: tuple[str, ...] = (),
    vary: str | None = None,
) -> Tally:
    host, port, request = request_maker(url, body, headers, vary)
    now = time.perf_counter()
    plan = Plan(host, port, request, now + warmup, now + warmup + seconds, timeout_s)
    tally = Tally()
    workers = [asyncio.create_task(worker(plan, tally)) for _ in range(concurrency)]
    # Responses still in flight when the window closes are dropped, as wrk drops them.
    _, pending = await asyncio.wait(workers, timeout=warmup + seconds + 0.05)
    for task in pending:
        task.cancel()
    with contextlib.suppress(asyncio.CancelledError):
        await asyncio.gather(*pending, return_exceptions=True)
    return tally


def event_loop_factory() -> Callable[[], asyncio.AbstractEventLoop]:
    with contextlib.suppress(ImportError):
        import uvloop

        return uvloop.new_event_loop
    return asyncio.new_event_loop


def main() -> None:
    parser = argparse.ArgumentParser(
        description="Drive POST requests and report latency and time to first byte."
    )
    parser.add_argument("--url", required=True)
    parser.add_argument("--body-file", required=True)
    parser.add_argument("--concurrency", type=int, default=1)
    parser.add_argument("--seconds", type=float, default=10.0, help="the measured window")
    parser.add_argument("--warmup", type=float, default=2.0, help="seconds of load before the window opens")
    parser.add_argument(
        "--timeout", type=float, default=30.0, help="seconds before one request counts as timed out"
    )
    parser.add_argument(
        "--header", action="append", default=[], help="an extra request header, `Name: value` (repeatable)"
    )
    parser.add_argument(
        "--vary",
        help="a marker in the body replaced by a fresh token on every request (a new conversation each)",
    )
    args = parser.parse_args()
    with open(args.body_file, "rb") as handle:
        body = handle.read()
    load = (args.url, body, args.concurrency, args.seconds, args.warmup, args.timeout)
    with asyncio.Runner(loop_factory=event_loop_factory()) as runner:
        tally = runner.run(drive(*load, headers=tuple(args.header), vary=args.vary))
    print(json.dumps(summary(tally, args.seconds)), flush=True)


if __name__ == "__main__":
    main()
