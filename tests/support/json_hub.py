"""A loopback JSON server for the hub stand-ins: it keeps every request and lets a subclass answer.

Each stand-in (`litellm_hub.py`, `open_webui_hub.py`, `cliproxy_hub.py`)
implements `answer(call)` for the endpoints its program documents; this
module does the HTTP: a threaded `http.server` on 127.0.0.1, JSON in and
out, every request kept in `calls` (headers lower-cased) so a test can
assert what the hub received.
"""

from __future__ import annotations

import json
import threading
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from typing import Any, Self
from urllib.parse import parse_qsl, urlsplit

Reply = tuple[int, Any, dict[str, str]]


@dataclass(frozen=True)
class HubCall:
    method: str
    path: str
    query: dict[str, str]
    headers: dict[str, str]
    body: Any
    raw: bytes


def chat_answer(call: HubCall) -> Reply:
    """A whole OpenAI chat completion, so a model added through the hub can answer onboarding's probe."""
    model = call.body.get("model", "") if isinstance(call.body, dict) else ""
    return (
        200,
        {
            "id": "chatcmpl-hub",
            "object": "chat.completion",
            "model": model,
            "choices": [
                {"index": 0, "message": {"role": "assistant", "content": "ok"}, "finish_reason": "stop"}
            ],
            "usage": {"prompt_tokens": 5, "completion_tokens": 1, "total_tokens": 6},
        },
        {},
    )


class JsonHub:
    def __init__(self) -> None:
        self.calls: list[HubCall] = []
        self.lock = threading.Lock()
        self._server: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    @property
    def url(self) -> str:
        assert self._server is not None, "start the hub first"
        return f"http://127.0.0.1:{self._server.server_address[1]}"

    def answer(self, call: HubCall) -> Reply:
        raise NotImplementedError

    def calls_to(self, method: str, path: str) -> list[HubCall]:
        return [c for c in self.calls if (c.method, c.path) == (method, path)]

    def writes(self) -> list[HubCall]:
        return [c for c in self.calls if c.method not in ("GET", "HEAD")]

    def start(self) -> Self:
        hub = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                return None

            def _serve(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(length) if length else b""
                try:
                    body = json.loads(raw) if raw else None
                except ValueError:
                    body = None
                parts = urlsplit(self.path)
                call = HubCall(
                    self.command,
                    parts.path,
                    dict(parse_qsl(parts.query)),
                    {k.lower(): v for k, v in self.headers.items()},
                    body,
                    raw,
                )
                with hub.lock:
                    hub.calls.append(call)
                    status, reply, headers = hub.answer(call)
                data = json.dumps(reply).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                for name, value in headers.items():
                    self.send_header(name, value)
                self.end_headers()
                self.wfile.write(data)

            do_GET = do_POST = do_PATCH = do_PUT = do_DELETE = _serve

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.stop()


def bearer(call: HubCall) -> str:
    """The key a call carries as `Authorization: Bearer …` (empty when none)."""
    value = call.headers.get("authorization", "")
    return value[7:] if value.lower().startswith("bearer ") else ""
