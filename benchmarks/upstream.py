"""A fixed-latency OpenAI-compatible upstream for the benchmark, in its own process.

    python benchmarks/upstream.py --port 0 --latency-ms 50

It answers `POST /v1/chat/completions` for the models named by `--models`
once the configured latency has passed, and `GET /v1/models` at once. A
streamed answer is paced as a provider paces one (`--pacing provider`, the
default): its events go out in four writes spread evenly over the latency,
the last when it has passed, so the gateway reads each seat's answer in four
pieces; `--pacing whole` writes the whole stream at the end, in one piece.
It is written on raw asyncio protocols (uvloop when installed) and replies
from prebuilt bytes, so that one upstream request costs a few microseconds
of CPU: the benchmark must measure the gateway, not this. When it listens it
prints one line, `ready <port>`, on stdout.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import signal
from collections.abc import Callable
from typing import cast

MAX_HEAD_BYTES = 64 * 1024
MAX_BODY_BYTES = 8 * 1024 * 1024


def http_response(status: str, content_type: str, body: bytes) -> bytes:
    """A whole keep-alive HTTP/1.1 response with a Content-Length."""
    head = f"HTTP/1.1 {status}\r\nContent-Type: {content_type}\r\nContent-Length: {len(body)}\r\n\r\n"
    return head.encode() + body


STREAM_WRITES = 4
"""How many writes a provider-paced stream takes: the first event's chunk goes out a quarter of the way
through the latency, the last with the end of the stream."""


def http_chunked(status: str, content_type: str, pieces: list[bytes], writes: int) -> list[bytes]:
    """A keep-alive HTTP/1.1 response sent chunked, one chunk per piece, split into `writes` writes.

    The head goes with the first write and the terminating chunk with the
    last; the pieces are spread over the writes as evenly as they divide.
    """
    head = f"HTTP/1.1 {status}\r\nContent-Type: {content_type}\r\nTransfer-Encoding: chunked\r\n\r\n"
    framed = [f"{len(piece):x}\r\n".encode() + piece + b"\r\n" for piece in pieces]
    count = max(1, min(writes, len(framed)))
    bounds = [round(i * len(framed) / count) for i in range(count + 1)]
    out = [b"".join(framed[bounds[i] : bounds[i + 1]]) for i in range(count)]
    out[0] = head.encode() + out[0]
    out[-1] += b"0\r\n\r\n"
    return out


def answer_text(model: str) -> str:
    return f"Answer from {model}: the sky is blue because air scatters short wavelengths the most."


def completion(model: str) -> bytes:
    text = answer_text(model)
    body = {
        "id": f"chatcmpl-bench-{model}",
        "object": "chat.completion",
        "created": 1_700_000_000,
        "model": model,
        "choices": [{"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}],
        "usage": {"prompt_tokens": 9, "completion_tokens": 16, "total_tokens": 25},
    }
    return http_response("200 OK", "application/json", json.dumps(body).encode())


def completion_stream(model: str, with_usage: bool, writes: int) -> list[bytes]:
    """SSE events: the role, the answer in three deltas, the stop, usage when asked, `[DONE]`; in
    `writes` writes."""
    base = {"id": f"chatcmpl-bench-{model}", "object": "chat.completion.chunk", "created": 1_700_000_000}
    words = answer_text(model).split(" ")
    third = len(words) // 3
    pieces = [
        " ".join(words[:third]) + " ",
        " ".join(words[third : 2 * third]) + " ",
        " ".join(words[2 * third :]),
    ]
    deltas: list[dict[str, str]] = [
        {"role": "assistant", "content": ""},
        *({"content": p} for p in pieces),
    ]
    chunks = [
        {**base, "model": model, "choices": [{"index": 0, "delta": d, "finish_reason": None}]} for d in deltas
    ]
    chunks.append({**base, "model": model, "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]})
    if with_usage:
        usage = {"prompt_tokens": 9, "completion_tokens": 16, "total_tokens": 25}
        chunks.append({**base, "model": model, "choices": [], "usage": usage})
    events = [b"data: " + json.dumps(c).encode() + b"\n\n" for c in chunks] + [b"data: [DONE]\n\n"]
    return http_chunked("200 OK", "text/event-stream", events, writes)


def error_reply(status: str, message: str) -> bytes:
    body = json.dumps({"error": {"message": message, "type": "invalid_request_error"}}).encode()
    return http_response(status, "application/json", body)


class Replies:
    """Every reply this upstream can give, built once per model and reused."""

    def __init__(self, models: list[str], stream_writes: int) -> None:
        self.models = models
        self.stream_writes = stream_writes
        listing = {
            "object": "list",
            "data": [{"id": m, "object": "model", "owned_by": "bench"} for m in models],
        }
        self.listing = http_response("200 OK", "application/json", json.dumps(listing).encode())
        self.not_found = error_reply("404 Not Found", "no such route on the benchmark upstream")
        self._cache: dict[tuple[str, bool, bool], list[bytes]] = {}

    def chat(self, body: bytes) -> list[bytes]:
        """The reply's writes, in order: one for a whole reply or an error, `stream_writes` for a stream."""
        try:
            request = json.loads(body)
            model = str(request.get("model") or self.models[0])
        except (ValueError, AttributeError):
            return [error_reply("400 Bad Request", "the body is not a JSON object")]
        stream = bool(request.get("stream"))
        options = request.get("stream_options")
        with_usage = stream and isinstance(options, dict) and bool(options.get("include_usage"))
        key = (model, stream, with_usage)
        if key not in self._cache:
            self._cache[key] = (
                completion_stream(model, with_usage, self.stream_writes) if stream else [completion(model)]
            )
        return self._cache[key]


class Request:
    """One parsed HTTP/1.1 request head and body."""

    def __init__(self, method: str, path: str, close: bool, body: bytes) -> None:
        self.method, self.path, self.close, self.body = method, path, close, body


def parse_request(buffer: bytearray) -> tuple[Request, int] | None:
    """The first whole request in `buffer` and its length, or None while more bytes are due."""
    end = buffer.find(b"\r\n\r\n")
    if end < 0:
        if len(buffer) > MAX_HEAD_BYTES:
            raise ValueError("request head too large")
        return None
    lines = bytes(buffer[:end]).decode("latin-1").split("\r\n")
    method, path, version = lines[0].split(" ", 2)
    headers = {}
    for line in lines[1:]:
        name, _, value = line.partition(":")
        headers[name.strip().lower()] = value.strip()
    close = headers.get("connection", "").lower() == "close" or version == "HTTP/1.0"
    start = end + 4
    if "chunked" in headers.get("transfer-encoding", "").lower():
        parsed = parse_chunked(buffer, start)
        if parsed is None:
            return None
        body, size = parsed
        return Request(method, path.split("?", 1)[0], close, body), size
    length = int(headers.get("content-length") or 0)
    if length > MAX_BODY_BYTES:
        raise ValueError("request body too large")
    if len(buffer) < start + length:
        return None
    body = bytes(buffer[start : start + length])
    return Request(method, path.split("?", 1)[0], close, body), start + length


def parse_chunked(buffer: bytearray, at: int) -> tuple[bytes, int] | None:
    """A chunked body starting at `at`: (body, index after it), or None while incomplete."""
    parts: list[bytes] = []
    while True:
        line_end = buffer.find(b"\r\n", at)
        if line_end < 0:
            return None
        size = int(bytes(buffer[at:line_end]).split(b";", 1)[0], 16)
        at = line_end + 2
        if size == 0:
            trailer_end = buffer.find(b"\r\n", at)
            return (b"".join(parts), trailer_end + 2) if trailer_end >= 0 else None
        if len(buffer) < at + size + 2:
            return None
        parts.append(bytes(buffer[at : at + size]))
        at += size + 2


class UpstreamConnection(asyncio.Protocol):
    """One client connection: requests answered in order, each reply's last write after the latency."""

    def __init__(self, replies: Replies, latency_s: float) -> None:
        self.replies = replies
        self.latency_s = latency_s
        self.buffer = bytearray()
        self.transport: asyncio.Transport | None = None
        self.busy = False

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = cast(asyncio.Transport, transport)  # uvloop's transports do not subclass it

    def data_received(self, data: bytes) -> None:
        self.buffer += data
        self.serve_next()

    def serve_next(self) -> None:
        if self.busy or self.transport is None or self.transport.is_closing():
            return
        try:
            parsed = parse_request(self.buffer)
        except ValueError:
            self.transport.write(error_reply("400 Bad Request", "malformed request"))
            self.transport.close()
            return
        if parsed is None:
            return
        request, size = parsed
        del self.buffer[:size]
        self.busy = True
        if request.method == "POST" and request.path.endswith("/chat/completions"):
            writes = self.replies.chat(request.body)
            loop = asyncio.get_running_loop()
            for n, piece in enumerate(writes, start=1):
                done = n == len(writes)
                loop.call_later(self.latency_s * n / len(writes), self.send, piece, done, request.close)
        elif request.method == "GET" and request.path.endswith("/models"):
            self.send(self.replies.listing, True, request.close)
        else:
            self.send(self.replies.not_found, True, request.close)

    def send(self, piece: bytes, last: bool, close: bool) -> None:
        """Write one piece of a reply; after its last, close or take the next request."""
        if last:
            self.busy = False
        if self.transport is None or self.transport.is_closing():
            return
        self.transport.write(piece)
        if not last:
            return
        if close:
            self.transport.close()
        else:
            self.serve_next()

    def connection_lost(self, exc: Exception | None) -> None:
        self.transport = None


async def serve(
    host: str,
    port: int,
    latency_s: float,
    models: list[str],
    on_ready: Callable[[int], None],
    stream_writes: int = STREAM_WRITES,
) -> None:
    loop = asyncio.get_running_loop()
    replies = Replies(models, stream_writes)
    server = await loop.create_server(
        lambda: UpstreamConnection(replies, latency_s), host, port, backlog=4096, reuse_address=True
    )
    stop = asyncio.Event()
    for signum in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(signum, stop.set)
    on_ready(server.sockets[0].getsockname()[1])
    async with server:
        await stop.wait()


def event_loop_factory() -> Callable[[], asyncio.AbstractEventLoop]:
    with contextlib.suppress(ImportError):
        import uvloop

        return uvloop.new_event_loop
    return asyncio.new_event_loop


def main() -> None:
    parser = argparse.ArgumentParser(description="A fixed-latency OpenAI-compatible upstream for benchmarks.")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=0, help="0 picks a free port (printed as `ready <port>`)")
    parser.add_argument("--latency-ms", type=float, default=50.0, help="time before every chat answer")
    parser.add_argument("--models", default="m1,m2,m3", help="comma-separated ids /v1/models lists")
    parser.add_argument(
        "--pacing",
        choices=("provider", "whole"),
        default="provider",
        help="a streamed reply in four writes spread over the latency (provider), or in one at its end",
    )
    args = parser.parse_args()

    def ready(port: int) -> None:
        print(f"ready {port}", flush=True)

    models = [m for m in args.models.split(",") if m]
    with asyncio.Runner(loop_factory=event_loop_factory()) as runner:
        writes = STREAM_WRITES if args.pacing == "provider" else 1
        runner.run(serve(args.host, args.port, args.latency_ms / 1000, models, ready, writes))


if __name__ == "__main__":
    main()
