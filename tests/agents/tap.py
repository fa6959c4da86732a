"""A recording tap between an agent client and the gateway: what the client sent, what it got back.

When a real client breaks, its own output rarely says what it sent, and the
gateway only knows what it decoded. The tap is a plain reverse proxy on
loopback: the client is pointed at it, and it relays every request to the
gateway and streams every reply back untouched, byte for byte, as it
arrives. For each exchange it keeps the request (method, path, headers,
body) and the reply's status, headers — `X-Bench-Conversation` and
`X-Bench-Model` say which route conversation and member answered — and the
first few KB of the reply body (the gateway's words when it refused).
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from types import TracebackType
from typing import Any

import httpx
import orjson
import uvicorn

from tests.support.gateway import free_port
from tests.support.prompt_server import PromptServer

HOP_BY_HOP = {
    "connection", "keep-alive", "transfer-encoding", "te", "trailer", "upgrade",
    "proxy-authorization", "proxy-authenticate", "host", "content-length",
}  # fmt: skip
KEPT_REPLY = 4096
"""Bytes of each reply body kept for the failure report."""


@dataclass
class Exchange:
    """One request relayed to the gateway, and its reply."""

    method: str
    path: str
    headers: dict[str, str]
    body: bytes
    status: int = 0
    reply_headers: dict[str, str] = field(default_factory=dict)
    reply_head: bytes = b""

    @property
    def conversation(self) -> str | None:
        return self.reply_headers.get("x-bench-conversation")

    @property
    def member(self) -> str | None:
        return self.reply_headers.get("x-bench-model")

    def describe(self) -> str:
        """A few lines a person can read in a failure: request, answer, and the refusal's words."""
        answered = f"→ {self.status or 'no reply'}"
        if self.member:
            answered += f" from {self.member} (conversation {self.conversation})"
        lines = [f"{self.method} {self.path} {answered}", f"    sent: {_shape(self.body)}"]
        sessions = {k: v for k, v in self.headers.items() if "session" in k or k == "user-agent"}
        if sessions:
            lines.append(f"    headers: {sessions}")
        if self.status >= 400 or not self.status:
            lines.append(f"    answer: {self.reply_head[:1500].decode(errors='replace')}")
        return "\n".join(lines)


def _shape(body: bytes) -> str:
    """What a JSON body holds, without its prompts: model, keys, message roles, tool count."""
    if not body:
        return "(no body)"
    try:
        parsed: Any = orjson.loads(body)
    except orjson.JSONDecodeError:
        return f"{len(body)} bytes, not JSON"
    if not isinstance(parsed, dict):
        return f"JSON {type(parsed).__name__}"
    messages = parsed.get("messages") or parsed.get("input")
    roles = messages
    if isinstance(messages, list):  # chat messages, or Responses input items
        roles = [m.get("role") or m.get("type") for m in messages if isinstance(m, dict)]
    tools = parsed.get("tools")
    return (
        f"model={parsed.get('model')!r} stream={parsed.get('stream')!r} messages={roles!r} "
        f"tools={len(tools) if isinstance(tools, list) else tools!r} keys={sorted(parsed)}"
    )


class Tap:
    """The reverse proxy in a thread of its own; point clients at `url`."""

    def __init__(self, target: str) -> None:
        self.target = target.rstrip("/")
        self.exchanges: list[Exchange] = []
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self._client: httpx.AsyncClient | None = None
        config = uvicorn.Config(
            self._app, host="127.0.0.1", port=self.port, log_level="warning", lifespan="on", interface="asgi3"
        )
        self._server = PromptServer(config)
        self._thread = threading.Thread(target=self._server.run, name=f"tap:{self.port}", daemon=True)

    def __enter__(self) -> Tap:
        self._thread.start()
        while not self._server.started:
            if not self._thread.is_alive():
                raise RuntimeError("the tap did not start")
            self._thread.join(0.01)
        return self

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        self._server.stop_soon()
        self._thread.join(30)

    async def _app(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] == "lifespan":
            await self._lifespan(receive, send)
        elif scope["type"] == "http":
            await self._relay(scope, receive, send)

    async def _lifespan(self, receive: Any, send: Any) -> None:
        await receive()  # lifespan.startup
        self._client = httpx.AsyncClient(timeout=httpx.Timeout(120.0), trust_env=False)
        await send({"type": "lifespan.startup.complete"})
        await receive()  # lifespan.shutdown
        await self._client.aclose()
        await send({"type": "lifespan.shutdown.complete"})

    async def _relay(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        assert self._client is not None
        body = b""
        while True:
            message = await receive()
            body += message.get("body", b"")
            if not message.get("more_body"):
                break
        path = scope["raw_path"].decode("latin-1")
        if scope["query_string"]:
            path += "?" + scope["query_string"].decode("latin-1")
        headers = [(k.decode("latin-1"), v.decode("latin-1")) for k, v in scope["headers"]]
        exchange = Exchange(scope["method"], path, {k.lower(): v for k, v in headers}, body)
        self.exchanges.append(exchange)
        request = self._client.build_request(
            scope["method"],
            self.target + path,
            headers=[(k, v) for k, v in headers if k.lower() not in HOP_BY_HOP],
            content=body,
        )
        try:
            reply = await self._client.send(request, stream=True)
        except httpx.HTTPError as exc:
            exchange.status = 502
            exchange.reply_head = f"the tap could not reach the gateway: {exc!r}".encode()
            await send({"type": "http.response.start", "status": 502, "headers": []})
            await send({"type": "http.response.body", "body": exchange.reply_head})
            return
        try:
            await self._stream_back(exchange, reply, send)
        finally:
            await reply.aclose()

    async def _stream_back(self, exchange: Exchange, reply: httpx.Response, send: Any) -> None:
        exchange.status = reply.status_code
        exchange.reply_headers = {k.lower(): v for k, v in reply.headers.items()}
        kept = [(k, v) for k, v in reply.headers.raw if k.decode("latin-1").lower() not in HOP_BY_HOP]
        if "content-length" in exchange.reply_headers:
            kept.append((b"content-length", exchange.reply_headers["content-length"].encode()))
        await send({"type": "http.response.start", "status": reply.status_code, "headers": kept})
        async for chunk in reply.aiter_raw():
            if len(exchange.reply_head) < KEPT_REPLY:
                exchange.reply_head += chunk[: KEPT_REPLY - len(exchange.reply_head)]
            await send({"type": "http.response.body", "body": chunk, "more_body": True})
        await send({"type": "http.response.body", "body": b"", "more_body": False})
