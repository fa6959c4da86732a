"""The server's loop lets in every waiting client at once, however busy it is (`http/eager_accept.py`)."""

from __future__ import annotations

import asyncio
import contextlib
import socket
import subprocess
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path

from panelgate.http.eager_accept import EagerServer, new_event_loop
from tests.support.loop_turns import TurnCounter

CLIENTS = 200


class Counted(asyncio.Protocol):
    """Notes the turn of the loop each connection was made on."""

    made: list[int]
    counter: TurnCounter

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.made.append(self.counter.turns)
        transport.write(b"hello")


def run(main: Callable[[], Awaitable[None]]) -> None:
    with asyncio.Runner(loop_factory=new_event_loop) as runner:
        runner.run(main())


def connect_all(port: int) -> list[socket.socket]:
    """`CLIENTS` connections begun at once (the kernel completes them; the server has to accept them)."""
    clients = []
    for _ in range(CLIENTS):
        client = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        client.setblocking(False)
        with contextlib.suppress(BlockingIOError):
            client.connect(("127.0.0.1", port))
        clients.append(client)
    return clients


def test_two_hundred_clients_connecting_together_are_all_let_in_within_a_few_turns_of_a_busy_loop():
    made: list[int] = []

    async def main() -> None:
        loop = asyncio.get_running_loop()
        async with TurnCounter() as counter:
            protocol = type("P", (Counted,), {"made": made, "counter": counter})
            server = await loop.create_server(protocol, "127.0.0.1", 0, backlog=1024)
            assert isinstance(server, EagerServer)
            port = server.sockets[0].getsockname()[1]
            clients = connect_all(port)
            connected_at = counter.turns
            while len(made) < CLIENTS and counter.turns < connected_at + 5 * CLIENTS:
                await asyncio.sleep(0)
        server.close()
        await server.wait_closed()
        for client in clients:
            client.close()
        assert len(made) == CLIENTS
        # libuv alone lets in one client per turn: 200 clients would take 200 turns
        assert max(made) - connected_at <= 5

    run(main)


def test_every_client_let_in_is_answered_and_a_closed_server_lets_in_no_more():
    async def main() -> None:
        loop = asyncio.get_running_loop()

        class Echo(asyncio.Protocol):
            def connection_made(self, transport: asyncio.BaseTransport) -> None:
                self.transport = transport

            def data_received(self, data: bytes) -> None:
                self.transport.write(data.upper())  # type: ignore[attr-defined]

        server = await loop.create_server(Echo, "127.0.0.1", 0)
        port = server.sockets[0].getsockname()[1]
        streams = [await asyncio.open_connection("127.0.0.1", port) for _ in range(20)]
        for number, (_, writer) in enumerate(streams):
            writer.write(f"hi {number}".encode())
        answers = [await reader.readexactly(len(f"hi {n}")) for n, (reader, _) in enumerate(streams)]
        assert answers == [f"HI {n}".encode() for n in range(20)]
        assert server.is_serving()
        server.close()
        await server.wait_closed()
        assert not server.is_serving()
        try:
            await asyncio.open_connection("127.0.0.1", port)
        except ConnectionRefusedError:
            refused = True
        else:
            refused = False
        assert refused
        for _, writer in streams:
            writer.close()

    run(main)


def test_every_interface_is_listened_on_and_a_unix_socket_is_left_to_uvloop(tmp_path: Path):
    async def main() -> None:
        loop = asyncio.get_running_loop()
        server = await loop.create_server(asyncio.Protocol, None, 0)
        families = {listener.family for listener in server.sockets}
        assert socket.AF_INET in families
        server.close()
        await server.wait_closed()

        unix = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        unix.bind(str(tmp_path / "gateway.sock"))
        left = await loop.create_server(asyncio.Protocol, sock=unix)
        assert not isinstance(left, EagerServer)
        _, writer = await asyncio.open_unix_connection(str(tmp_path / "gateway.sock"))
        writer.close()
        left.close()
        await left.wait_closed()

    run(main)


def test_a_taken_port_is_refused_with_the_address_in_the_error():
    async def main() -> None:
        loop = asyncio.get_running_loop()
        first = await loop.create_server(asyncio.Protocol, "127.0.0.1", 0)
        port = first.sockets[0].getsockname()[1]
        try:
            await loop.create_server(asyncio.Protocol, "127.0.0.1", port)
        except OSError as exc:
            said = str(exc)
        else:
            said = ""
        first.close()
        await first.wait_closed()
        assert f"('127.0.0.1', {port})" in said

    run(main)


OUT_OF_DESCRIPTORS = """
import asyncio, resource, socket, sys
sys.path[:0] = {paths!r}
from panelgate.http.eager_accept import new_event_loop

async def main():
    loop = asyncio.get_running_loop()
    kept = []
    class Keep(asyncio.Protocol):
        def connection_made(self, transport):
            kept.append(transport)
    server = await loop.create_server(Keep, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    import os
    used = len(os.listdir("/proc/self/fd"))
    resource.setrlimit(resource.RLIMIT_NOFILE, (used + 40, hard))
    clients = [socket.create_connection(("127.0.0.1", port)) for _ in range(30)]  # 30 of the 40 left
    await asyncio.sleep(0.5)  # 10 descriptors remain for the server: accept() runs out
    print("let in while short", len(kept), flush=True)
    resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))
    for _ in range(40):
        await asyncio.sleep(0.1)
        if len(kept) == 30:
            break
    print("let in later", len(kept), flush=True)

with asyncio.Runner(loop_factory=new_event_loop) as runner:
    runner.run(main())
"""


def test_a_server_out_of_descriptors_rests_and_then_lets_everyone_in():
    script = OUT_OF_DESCRIPTORS.format(paths=sys.path)
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    lines = dict(line.rsplit(" ", 1) for line in done.stdout.splitlines())
    assert int(lines["let in while short"]) < 30
    assert lines["let in later"] == "30"
    assert "cannot accept connections (Too many open files); trying again in 1 s" in done.stderr
