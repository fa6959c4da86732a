"""A real OpenAI-compatible server on 127.0.0.1 for tests: the endpoint every room calls.

Tests talk to it through real sockets, so what they prove holds for real
providers: connection pooling, streaming, timeouts, resets and bad bytes are
the genuine article, not a mock of our own code. It answers

- `POST /v1/chat/completions`: streamed (SSE chunks, a usage chunk when
  `stream_options.include_usage` is asked, then `data: [DONE]`) or whole,
  as the request asks;
- `GET /v1/models`: the listed models;
- anything else: 404.

Use::

    with FakeUpstream(["m1", "m2"]) as upstream:
        upstream.behave("m2", status=429, retry_after=1, fail_times=1)
        ...call f"{upstream.url}/chat/completions"...
        assert upstream.requests_for("m2")[0].body["stream"] is True

Every model answers "answer from <model>" until told otherwise;
`behave(model, ...)` replaces that model's whole behaviour (a model that
should not exist is `behave(model, status=404)`):

    answer="text"            the answer (default "answer from <model>")
    chunks=N                 split the answer into N content chunks (default 1)
    delay=s                  wait before the first byte of the reply
    chunk_delay=s            wait between stream chunks
    status=N                 answer HTTP N with an OpenAI error body ...
    error_message="..."      ... saying this (a default per status otherwise)
    retry_after=s            ... with a Retry-After header
    fail_times=N             ... for the first N calls only, then answer
    hang=True                send nothing and hold the connection until the client leaves
    reset_after=N            stream N content chunks, then reset the TCP connection
    error_after=N            stream N content chunks, then an `{"error": ...}` chunk whose
                             code is `status` (500 unless given) and message `error_message`
    garbage=True             200 with an HTML body (neither JSON nor SSE)
    empty=True               a complete, valid stream without any text
    reject_stream_options=True   400 "stream_options is not supported" when the body has it
    plain_json=True          answer a stream request with one whole JSON completion
    redirect_to="url"        307 to that URL
    usage=(in, out)          token counts (default: len(messages JSON) // 4, words in the answer)
    reasoning="..."          reasoning sent as `reasoning_content` before the answer
    tool_calls=[{"name": ..., "arguments": {...}}]   tool calls (finish reason `tool_calls`)
    argument_pieces=N        stream each tool call as its id and name, then its arguments in N deltas
    finish_reason="..."      override the finish reason (default `stop`)
    empty_times=N            the first N calls answer no text with finish reason `length` (a reasoning
                             model out of budget), later ones as the other options say
    served_as="..."          name this model in the reply's `model` field instead of the one asked
    require_key="sk-..."     answer 401 unless the request carries `Authorization: Bearer sk-...`
    company=N                hold every call until N calls of this model are open at once
                             (503 after 10 s without them): shows calls were not queued
    headers={...}            extra response headers on every reply (rate-limit headers)
    error_body={...}         the JSON body of a failing reply instead of the OpenAI error
                             (a Gemini or OpenRouter 429)
    shell="echo ..."         answer like a model driving the client's shell (tests/support/shell_agent.py):
                             a call to the shell tool the request offers, running this command,
                             then, once its result is in the request, text quoting that result

`FakeUpstream(tls=context, host="localhost")` serves HTTPS with that server
context, its `url` naming `host` (it listens on 127.0.0.1 either way).
`FakeUpstream(require_key="sk-...")` asks every route, `GET /v1/models`
included, for that key. `GET /v1/models` lists the models named in the
constructor, every model given a behaviour and every one named to
`serve(...)`, unless `listed(...)` says otherwise. Every chat request is
kept in `requests` (refused ones too) as a `ReceivedRequest`; `at` is its
`time.monotonic()` arrival. `reset()` forgets requests, behaviours and what
`serve` added, but keeps the constructor's models and key.

The server is a plain asyncio HTTP/1.1 server (keep-alive, chunked replies)
on its own thread and event loop, so synchronous and async tests can both use
it and it keeps up with hundreds of concurrent connections.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import math
import socket
import ssl
import struct
import threading
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

import orjson

from tests.support.loop_thread import LoopThread
from tests.support.shell_agent import shell_turn

_STATUS_WORDS = {
    200: "OK", 307: "Temporary Redirect", 400: "Bad Request", 401: "Unauthorized", 402: "Payment Required",
    403: "Forbidden", 404: "Not Found", 408: "Request Timeout", 409: "Conflict", 422: "Unprocessable Entity",
    429: "Too Many Requests", 500: "Internal Server Error", 502: "Bad Gateway", 503: "Service Unavailable",
    504: "Gateway Timeout",
}  # fmt: skip
_DEFAULT_ERRORS = {
    400: "bad request", 401: "Incorrect API key provided", 402: "Payment required: insufficient credits",
    403: "You are not allowed to use this model", 404: "The model does not exist",
    408: "request timed out", 409: "conflict, try again", 429: "Rate limit reached, try again later",
    500: "internal server error", 502: "bad gateway", 503: "service unavailable, overloaded",
    504: "upstream timed out",
}  # fmt: skip
_HEAD_LIMIT = 1024 * 1024


@dataclass(frozen=True)
class ReceivedRequest:
    """One chat request as the upstream received it."""

    method: str
    path: str
    headers: dict[str, str]
    body: dict[str, Any]
    model: str
    at: float


@dataclass(frozen=True)
class Behaviour:
    """How one served model answers; see the module docstring for each field."""

    answer: str | None = None
    chunks: int = 1
    delay: float = 0.0
    chunk_delay: float = 0.0
    status: int | None = None
    error_message: str | None = None
    retry_after: float | None = None
    fail_times: int | None = None
    hang: bool = False
    reset_after: int | None = None
    error_after: int | None = None
    garbage: bool = False
    empty: bool = False
    reject_stream_options: bool = False
    plain_json: bool = False
    redirect_to: str | None = None
    usage: tuple[int, int] | None = None
    reasoning: str = ""
    tool_calls: Sequence[dict[str, Any]] = ()
    argument_pieces: int = 1
    finish_reason: str | None = None
    require_key: str | None = None
    company: int | None = None
    headers: dict[str, str] = field(default_factory=dict)
    error_body: object | None = None
    shell: str | None = None
    empty_times: int | None = None
    served_as: str | None = None


class _Gathering:
    """Calls of one model waiting until `size` of them are open at the same time."""

    def __init__(self, size: int) -> None:
        self.size = size
        self.arrived = 0
        self.full = asyncio.Event()

    async def arrive(self, timeout: float = 10.0) -> bool:
        self.arrived += 1
        if self.arrived >= self.size:
            self.full.set()
        try:
            await asyncio.wait_for(self.full.wait(), timeout)
        except TimeoutError:
            return False
        return True


@dataclass
class _Request:
    method: str
    path: str
    headers: dict[str, str]
    raw_body: bytes


@dataclass
class _Call:
    """A chat request being answered: what to say and how."""

    model: str
    body: dict[str, Any]
    behaviour: Behaviour
    failing: bool
    serial: int
    cut_empty: bool = False
    text: str = field(init=False)

    def __post_init__(self) -> None:
        b = self.behaviour
        if b.empty or self.cut_empty:
            self.text = ""
        elif b.answer is not None:
            self.text = b.answer
        else:
            self.text = "" if b.tool_calls else f"answer from {self.model}"


class FakeUpstream(LoopThread):
    thread_name = "fake-upstream"

    def __init__(
        self,
        models: Iterable[str] = (),
        *,
        require_key: str | None = None,
        tls: ssl.SSLContext | None = None,
        host: str = "127.0.0.1",
    ) -> None:
        super().__init__()
        self._tls = tls
        self._host = host
        self.require_key = require_key
        self.requests: list[ReceivedRequest] = []
        self._lock = threading.Lock()
        self._models = tuple(models)
        self._behaviours: dict[str, Behaviour] = dict.fromkeys(self._models, Behaviour())
        self._listed: list[str] | None = None
        self._listing_shape = "data"
        self._failures: dict[str, int] = {}
        self._answered: dict[str, int] = {}
        self._gatherings: dict[str, _Gathering] = {}
        self._serial = 0
        self._connections: set[asyncio.Task[None]] = set()

    # ---- the test's side ----------------------------------------------------------

    def behave(self, model: str, **behaviour: Any) -> None:
        """Set how `model` answers from now on (replacing what it did before)."""
        settled = Behaviour(**behaviour)
        with self._lock:
            self._behaviours[model] = settled
            self._failures.pop(model, None)
            self._answered.pop(model, None)

    def serve(self, *models: str) -> None:
        """List `models` too (as a test's bench needs: `model add` checks the listing); each answers
        as before, a behaviour already set stays."""
        with self._lock:
            for model in models:
                self._behaviours.setdefault(model, Behaviour())

    def listed(self, models: Iterable[str], *, shape: str = "data") -> None:
        """Set what `GET /v1/models` lists (by default every known model) and in
        which shape: `data` (`{"object": "list", "data": [...]}`, OpenAI),
        `models` (`{"models": [...]}`) or `bare` (a JSON list)."""
        if shape not in ("data", "models", "bare"):
            raise ValueError(f"unknown listing shape {shape!r}")
        with self._lock:
            self._listed = list(models)
            self._listing_shape = shape

    def requests_for(self, model: str) -> list[ReceivedRequest]:
        with self._lock:
            return [request for request in self.requests if request.model == model]

    def reset(self) -> None:
        """Forget requests and behaviours; the constructor's models and key stay."""
        with self._lock:
            self.requests.clear()
            self._behaviours = dict.fromkeys(self._models, Behaviour())
            self._listed = None
            self._listing_shape = "data"
            self._failures.clear()
            self._answered.clear()
            self._gatherings.clear()

    async def _serve(self, ready: threading.Event) -> None:
        assert self._stopping is not None
        server = await asyncio.start_server(
            self._connection, "127.0.0.1", 0, backlog=4096, limit=_HEAD_LIMIT, ssl=self._tls
        )
        port = server.sockets[0].getsockname()[1]
        self.url = f"{'https' if self._tls else 'http'}://{self._host}:{port}/v1"
        ready.set()
        async with server:
            await self._stopping.wait()
            server.close()
            for task in list(self._connections):
                task.cancel()
            await asyncio.gather(*self._connections, return_exceptions=True)

    async def _connection(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        assert task is not None
        self._connections.add(task)
        try:
            while (request := await _read_request(reader)) is not None:
                if not await self._answer(request, reader, writer):
                    break
        except (
            ConnectionError,
            asyncio.IncompleteReadError,
            asyncio.LimitOverrunError,
            asyncio.CancelledError,
        ):
            pass
        finally:
            self._connections.discard(task)
            if self._tls is not None and self._stopping is not None and self._stopping.is_set():
                writer.transport.abort()  # no TLS farewell to wait for: the loop ends now
            else:
                writer.close()

    async def _answer(
        self, request: _Request, reader: asyncio.StreamReader, writer: asyncio.StreamWriter
    ) -> bool:
        """Answer one request; False when the connection must not be reused."""
        if request.method == "POST" and request.path == "/v1/chat/completions":
            return await self._chat(request, reader, writer)
        if not self._authorized(request):
            await _send_error(writer, 401, _DEFAULT_ERRORS[401])
        elif request.method == "GET" and request.path == "/v1/models":
            await _send_json(writer, 200, self._listing())
        else:
            await _send_error(writer, 404, f"no route for {request.method} {request.path}")
        return True

    def _listing(self) -> object:
        with self._lock:
            names = list(self._behaviours) if self._listed is None else list(self._listed)
            shape = self._listing_shape
        models = [
            {"id": name, "object": "model", "created": 1_700_000_000, "owned_by": "fake"} for name in names
        ]
        if shape == "bare":
            return models
        return {"models": models} if shape == "models" else {"object": "list", "data": models}

    def _authorized(self, request: _Request) -> bool:
        return (
            self.require_key is None or request.headers.get("authorization") == f"Bearer {self.require_key}"
        )

    def _take_call(self, request: _Request, body: dict[str, Any]) -> _Call:
        """Record the request and decide how it is answered."""
        model = str(body.get("model", ""))
        received = ReceivedRequest(
            request.method, request.path, request.headers, body, model, time.monotonic()
        )
        with self._lock:
            self.requests.append(received)
            self._serial += 1
            behaviour = self._behaviours.get(model) or Behaviour()
            if behaviour.shell is not None:
                behaviour = dataclasses.replace(behaviour, **shell_turn(body, behaviour.shell))
            failed = self._failures.get(model, 0)
            failing = (
                behaviour.status is not None
                and behaviour.error_after is None
                and (behaviour.fail_times is None or failed < behaviour.fail_times)
            )
            if failing:
                self._failures[model] = failed + 1
            answered = self._answered.get(model, 0)
            self._answered[model] = answered + 1
            cut_empty = behaviour.empty_times is not None and answered < behaviour.empty_times
            return _Call(model, body, behaviour, failing, self._serial, cut_empty)

    async def _chat(
        self, request: _Request, reader: asyncio.StreamReader, writer: asyncio.StreamWriter
    ) -> bool:
        try:
            body = orjson.loads(request.raw_body)
        except orjson.JSONDecodeError:
            await _send_error(writer, 400, "the body is not JSON")
            return True
        call = self._take_call(request, body if isinstance(body, dict) else {})
        wanted = call.behaviour.require_key
        if not self._authorized(request) or (
            wanted is not None and request.headers.get("authorization") != f"Bearer {wanted}"
        ):
            await _send_error(writer, 401, _DEFAULT_ERRORS[401], code="invalid_api_key")
            return True
        if call.behaviour.company:
            gathering = self._gatherings.setdefault(call.model, _Gathering(call.behaviour.company))
            if not await gathering.arrive():
                await _send_error(writer, 503, f"only {gathering.arrived} calls came at once")
                return True
        return await _ChatReply(call, reader, writer).send()


class _ChatReply:
    """Writes the reply to one chat request according to its behaviour."""

    def __init__(self, call: _Call, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.call = call
        self.behaviour = call.behaviour
        self.reader = reader
        self.writer = writer

    async def send(self) -> bool:
        b, call = self.behaviour, self.call
        if b.delay:
            await asyncio.sleep(b.delay)
        if b.hang:
            while await self.reader.read(65536):
                pass
            return False
        if b.redirect_to:
            await _send(self.writer, 307, b"", {"location": b.redirect_to})
        elif b.reject_stream_options and "stream_options" in call.body:
            await _send_error(self.writer, 400, "stream_options is not supported by this server")
        elif call.failing:
            assert b.status is not None
            message = b.error_message or _DEFAULT_ERRORS.get(b.status, f"error {b.status}")
            extra = {} if b.retry_after is None else {"retry-after": f"{b.retry_after:g}"}
            extra.update(b.headers)
            if b.error_body is not None:
                await _send(self.writer, b.status, orjson.dumps(b.error_body),
                            {"content-type": "application/json", **extra})  # fmt: skip
            else:
                await _send_error(self.writer, b.status, message, extra=extra)
        elif b.garbage:
            await _send(self.writer, 200, b"<html><body>Service temporarily degraded</body></html>",
                        {"content-type": "text/html"})  # fmt: skip
        elif not call.body.get("stream") or b.plain_json:
            await _send(self.writer, 200, orjson.dumps(self._completion()),
                        {"content-type": "application/json", **b.headers})  # fmt: skip
        else:
            return await self._stream()
        return True

    # ---- whole replies ----------------------------------------------------------

    def _usage(self) -> dict[str, Any]:
        b, call = self.behaviour, self.call
        prompt, completion = b.usage or (
            max(1, len(orjson.dumps(call.body.get("messages", []))) // 4),
            len(call.text.split()),
        )
        usage: dict[str, Any] = {
            "prompt_tokens": prompt, "completion_tokens": completion, "total_tokens": prompt + completion,
        }  # fmt: skip
        if b.reasoning:
            usage["completion_tokens_details"] = {"reasoning_tokens": len(b.reasoning.split())}
        return usage

    def _finish_reason(self) -> str:
        if self.call.cut_empty:
            return "length"
        return self.behaviour.finish_reason or ("tool_calls" if self.behaviour.tool_calls else "stop")

    def _tool_calls(self) -> list[dict[str, Any]]:
        return [
            {
                "id": f"call_{self.call.serial}_{index}",
                "type": "function",
                "function": {
                    "name": tool["name"],
                    "arguments": orjson.dumps(tool.get("arguments", {})).decode(),
                },
            }
            for index, tool in enumerate(self.behaviour.tool_calls)
        ]

    def _completion(self) -> dict[str, Any]:
        message: dict[str, Any] = {"role": "assistant", "content": self.call.text or None}
        if self.behaviour.reasoning:
            message["reasoning_content"] = self.behaviour.reasoning
        if self.behaviour.tool_calls:
            message["tool_calls"] = self._tool_calls()
        return {
            **self._envelope("chat.completion"),
            "choices": [{"index": 0, "message": message, "finish_reason": self._finish_reason()}],
            "usage": self._usage(),
        }

    def _envelope(self, kind: str) -> dict[str, Any]:
        return {"id": f"chatcmpl-fake-{self.call.serial}", "object": kind, "created": 1700000000,
                "model": self.behaviour.served_as or self.call.model}  # fmt: skip

    # ---- streams ----------------------------------------------------------------

    def _chunk(self, delta: dict[str, Any], finish: str | None = None) -> bytes:
        chunk = {
            **self._envelope("chat.completion.chunk"),
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
        }
        return b"data: " + orjson.dumps(chunk) + b"\n\n"

    def _pieces(self) -> list[str]:
        text = self.call.text
        if not text:
            return []
        size = math.ceil(len(text) / max(1, self.behaviour.chunks))
        return [text[start : start + size] for start in range(0, len(text), size)]

    async def _stream(self) -> bool:
        b = self.behaviour
        await _send_head(
            self.writer,
            200,
            {"content-type": "text/event-stream", "transfer-encoding": "chunked", **b.headers},
        )
        await self._event(self._chunk({"role": "assistant", "content": ""}))
        if b.reasoning:
            await self._event(self._chunk({"reasoning_content": b.reasoning}))
        for sent, piece in enumerate(self._pieces()):
            if sent == b.reset_after:
                await _reset(self.writer)
                return False
            if sent == b.error_after:
                return await self._error_chunk()
            if b.chunk_delay:
                await asyncio.sleep(b.chunk_delay)
            await self._event(self._chunk({"content": piece}))
        if b.reset_after is not None:
            await _reset(self.writer)
            return False
        if b.error_after is not None:
            return await self._error_chunk()
        for index, tool in enumerate(self._tool_calls()):
            for delta in _argument_deltas(index, tool, b.argument_pieces):
                await self._event(self._chunk({"tool_calls": [delta]}))
        await self._event(self._chunk({}, self._finish_reason()))
        if (self.call.body.get("stream_options") or {}).get("include_usage"):
            usage_chunk = {**self._envelope("chat.completion.chunk"), "choices": [], "usage": self._usage()}
            await self._event(b"data: " + orjson.dumps(usage_chunk) + b"\n\n")
        await self._event(b"data: [DONE]\n\n")
        await self._end()
        return True

    async def _error_chunk(self) -> bool:
        status = self.behaviour.status or 500
        message = self.behaviour.error_message or _DEFAULT_ERRORS.get(status, f"error {status}")
        await self._event(b"data: " + orjson.dumps({"error": {"message": message, "code": status}}) + b"\n\n")
        await self._end()
        return True

    async def _event(self, data: bytes) -> None:
        self.writer.write(b"%x\r\n%s\r\n" % (len(data), data))
        await self.writer.drain()

    async def _end(self) -> None:
        self.writer.write(b"0\r\n\r\n")
        await self.writer.drain()


# ---- HTTP/1.1 plumbing ------------------------------------------------------------


async def _read_request(reader: asyncio.StreamReader) -> _Request | None:
    """The next request on a kept-alive connection, or None when the client closed it."""
    try:
        head = await reader.readuntil(b"\r\n\r\n")
    except asyncio.IncompleteReadError:
        return None
    first, *lines = head.decode("latin-1").split("\r\n")
    method, target, _version = first.split(" ", 2)
    headers: dict[str, str] = {}
    for line in lines:
        if line:
            name, _, value = line.partition(":")
            headers[name.strip().lower()] = value.strip()
    if headers.get("transfer-encoding", "").lower() == "chunked":
        body = await _read_chunked(reader)
    else:
        body = await reader.readexactly(int(headers.get("content-length") or 0))
    return _Request(method, target.split("?", 1)[0], headers, body)


async def _read_chunked(reader: asyncio.StreamReader) -> bytes:
    parts: list[bytes] = []
    while size := int((await reader.readuntil(b"\r\n")).split(b";", 1)[0], 16):
        parts.append(await reader.readexactly(size))
        await reader.readexactly(2)
    await reader.readuntil(b"\r\n")
    return b"".join(parts)


async def _send_head(writer: asyncio.StreamWriter, status: int, headers: dict[str, str]) -> None:
    lines = [f"HTTP/1.1 {status} {_STATUS_WORDS.get(status, 'Status')}", "connection: keep-alive"]
    lines += [f"{name}: {value}" for name, value in headers.items()]
    writer.write(("\r\n".join(lines) + "\r\n\r\n").encode("latin-1"))
    await writer.drain()


async def _send(writer: asyncio.StreamWriter, status: int, body: bytes, headers: dict[str, str]) -> None:
    await _send_head(writer, status, {**headers, "content-length": str(len(body))})
    writer.write(body)
    await writer.drain()


async def _send_json(writer: asyncio.StreamWriter, status: int, payload: object) -> None:
    await _send(writer, status, orjson.dumps(payload), {"content-type": "application/json"})


async def _send_error(
    writer: asyncio.StreamWriter, status: int, message: str, *, code: str | None = None,
    extra: dict[str, str] | None = None,
) -> None:  # fmt: skip
    error = {"message": message, "type": "fake_upstream_error", "code": code or str(status)}
    await _send(
        writer, status, orjson.dumps({"error": error}), {"content-type": "application/json", **(extra or {})}
    )


async def _reset(writer: asyncio.StreamWriter) -> None:
    """Abort the connection with a TCP reset, once what was written has left."""
    transport = writer.transport
    while transport.get_write_buffer_size():
        await asyncio.sleep(0.005)
    await asyncio.sleep(0.05)  # let the client read the chunks before the reset discards them
    sock = writer.get_extra_info("socket")
    with contextlib.suppress(OSError):
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    transport.abort()


def _argument_deltas(index: int, tool: dict[str, Any], pieces: int) -> list[dict[str, Any]]:
    """A tool call as one delta, or as its head and then its arguments in `pieces` parts."""
    if pieces <= 1:
        return [{"index": index, **tool}]
    arguments = tool["function"]["arguments"]
    size = max(1, math.ceil(len(arguments) / pieces))
    head = {"index": index, "id": tool["id"], "type": "function",
            "function": {"name": tool["function"]["name"], "arguments": ""}}  # fmt: skip
    parts = [arguments[i : i + size] for i in range(0, len(arguments), size)]
    return [head, *({"index": index, "function": {"arguments": part}} for part in parts)]
