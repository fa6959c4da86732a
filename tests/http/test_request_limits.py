"""Oversized and slow requests against `panelgate serve` itself, over raw sockets.

The limits live in the server's HTTP protocol, not in the app, so every test
here talks to a child `panelgate serve` (short timeouts set in its
environment) byte by byte, as an attacker would, and reads its log as an
operator would.
"""

from __future__ import annotations

import contextlib
import socket
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from tests.support.gateway import Gateway

HEAD_TIMEOUT_S = 1.0
BODY_TIMEOUT_S = 1.0
SLACK_S = 4.0
"""How much later than its timeout a connection may close (a loaded CI machine)."""
CHAT = "/v1/chat/completions"


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Gateway]:
    env = {
        "PANELGATE_HEAD_TIMEOUT_S": str(HEAD_TIMEOUT_S),
        "PANELGATE_BODY_READ_TIMEOUT_S": str(BODY_TIMEOUT_S),
    }
    home: Path = tmp_path_factory.mktemp("limits") / "home"
    gateway = Gateway(home, env=env, in_process=False, log_level="info").start()
    try:
        yield gateway
    finally:
        gateway.close()


def connect(gateway: Gateway) -> socket.socket:
    return socket.create_connection(("127.0.0.1", gateway.port), timeout=10)


def head(gateway: Gateway, method: str, path: str, *lines: str) -> bytes:
    fields = "".join(f"{line}\r\n" for line in (f"Host: 127.0.0.1:{gateway.port}", *lines))
    return f"{method} {path} HTTP/1.1\r\n{fields}\r\n".encode()


def exchange(gateway: Gateway, request: bytes) -> bytes:
    """Everything the server answers to `request` before it closes; a server that hangs up while the
    request is still being sent may reset the connection, and what was read until then is returned."""
    received = b""
    with connect(gateway) as conn:
        with contextlib.suppress(BrokenPipeError, ConnectionResetError):
            conn.sendall(request)
        with contextlib.suppress(ConnectionResetError):
            while chunk := conn.recv(65536):
                received += chunk
    return received


def still_answers(gateway: Gateway) -> bool:
    return httpx.get(f"{gateway.url}/health", timeout=5).status_code == 200


def log_since(gateway: Gateway, start: int) -> str:
    return gateway.log()[start:]


def wait_for_line(gateway: Gateway, start: int, text: str, timeout: float = 10.0) -> str:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        written = log_since(gateway, start)
        if text in written:
            return written
        time.sleep(0.05)
    raise AssertionError(f"no log line with {text!r} within {timeout} s:\n{log_since(gateway, start)}")


def test_an_8_mb_header_is_refused_and_the_server_answers_the_next_caller(served: Gateway):
    request = head(served, "GET", "/health", "X-Padding: " + "a" * 8_000_000)

    reply = exchange(served, request)

    assert reply == b"" or reply.startswith(b"HTTP/1.1 431 "), reply[:200]
    assert still_answers(served)


def test_twenty_thousand_headers_are_refused(served: Gateway):
    request = head(served, "GET", "/health", *(f"X-H{n}: v" for n in range(20_000)))

    reply = exchange(served, request)

    assert reply == b"" or reply.startswith(b"HTTP/1.1 431 "), reply[:200]
    assert still_answers(served)


def test_a_hundred_and_one_headers_get_431_saying_the_limit(served: Gateway):
    reply = exchange(served, head(served, "GET", "/health", *(f"X-H{n}: v" for n in range(100))))

    assert reply.startswith(b"HTTP/1.1 431 "), reply[:200]
    assert b"101 headers" in reply and b"at most 100" in reply


def test_a_70_kib_header_arriving_at_once_gets_431(served: Gateway):
    reply = exchange(served, head(served, "GET", "/health", "X-Padding: " + "a" * 70 * 1024))

    assert reply.startswith(b"HTTP/1.1 431 "), reply[:200]
    assert b"64 KiB" in reply


def test_a_request_within_the_limits_is_answered(served: Gateway):
    padding = [f"X-H{n}: {'v' * 500}" for n in range(90)]
    reply = exchange(served, head(served, "GET", "/health", "Connection: close", *padding))

    assert reply.startswith(b"HTTP/1.1 200 "), reply[:200]


def test_a_large_body_sent_with_its_head_is_read_whole(served: Gateway):
    body = b'{"model": "bench/core", "padding": "' + b"a" * 1_000_000 + b'"}'
    request = head(
        served,
        "POST",
        CHAT,
        "Content-Type: application/json",
        f"Content-Length: {len(body)}",
        "Connection: close",
    )

    reply = exchange(served, request + body)

    assert reply.startswith(b"HTTP/1.1 400 "), reply[:200]
    assert b"messages" in reply  # the handler read the whole body and named what it lacks


def test_fifty_slowloris_connections_are_closed_after_the_head_timeout(served: Gateway):
    conns = [connect(served) for _ in range(50)]
    for conn in conns:
        conn.sendall(b"GET /health HTTP/1.1\r\nX-Slow: ")
        conn.setblocking(False)
    began = time.monotonic()
    open_ = set(conns)
    while open_ and time.monotonic() - began < HEAD_TIMEOUT_S + SLACK_S + 3:
        for conn in list(open_):
            try:
                conn.sendall(b"a")  # a byte every tenth of a second keeps no connection alive
                if conn.recv(65536) == b"":
                    open_.discard(conn)
            except BlockingIOError:
                continue
            except (BrokenPipeError, ConnectionResetError):
                open_.discard(conn)
        time.sleep(0.1)
    took = time.monotonic() - began
    for conn in conns:
        conn.close()

    assert not open_, f"{len(open_)} of 50 slow connections still open after {took:.1f} s"
    assert took < HEAD_TIMEOUT_S + SLACK_S
    assert still_answers(served)


def test_blank_lines_trickled_after_a_request_do_not_keep_the_connection_open(served: Gateway):
    with connect(served) as conn:
        conn.sendall(head(served, "GET", "/health"))
        assert conn.recv(65536).startswith(b"HTTP/1.1 200 ")
        conn.setblocking(False)
        began = time.monotonic()
        closed = False
        while not closed and time.monotonic() - began < HEAD_TIMEOUT_S + SLACK_S + 3:
            try:
                conn.sendall(b"\r\n")  # the parser skips these, so no request ever begins
                closed = conn.recv(65536) == b""
            except BlockingIOError:
                pass
            except (BrokenPipeError, ConnectionResetError):
                closed = True
            time.sleep(0.2)
        took = time.monotonic() - began

    assert closed and took < HEAD_TIMEOUT_S + SLACK_S, f"still open after {took:.1f} s"


def test_a_body_that_stops_arriving_is_closed_after_the_body_timeout_without_an_error(served: Gateway):
    start = len(served.log())
    with connect(served) as conn:
        conn.sendall(head(served, "POST", CHAT, "Content-Type: application/json", "Content-Length: 1000"))
        conn.sendall(b'{"model": "bench/core", ')
        began = time.monotonic()
        conn.settimeout(BODY_TIMEOUT_S + SLACK_S + 3)
        reply = b""
        with contextlib.suppress(ConnectionResetError):
            while chunk := conn.recv(65536):
                reply += chunk
        took = time.monotonic() - began

    assert took < BODY_TIMEOUT_S + SLACK_S, f"still open after {took:.1f} s"
    assert reply.startswith(b"HTTP/1.1 408 "), reply[:200]
    written = wait_for_line(served, start, f"POST {CHAT} ")
    assert "ERROR" not in written and "Traceback" not in written, written
    assert f"POST {CHAT} 500" not in written, written


def test_a_client_hanging_up_mid_body_leaves_no_error_in_the_log(served: Gateway):
    start = len(served.log())
    with connect(served) as conn:
        conn.sendall(head(served, "POST", CHAT, "Content-Type: application/json", "Content-Length: 1000"))
        conn.sendall(b'{"model": "bench/core", "messages": [')
        time.sleep(0.2)  # the handler is waiting for the rest

    written = wait_for_line(served, start, f"POST {CHAT} ")
    assert "ERROR" not in written and "Traceback" not in written, written
    assert f"POST {CHAT} 499 " in written, written
    assert still_answers(served)
