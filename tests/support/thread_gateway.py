"""The gateway served from a thread of the probing interpreter, for tests that ask what a fresh process
loads while it serves.

It imports only uvicorn, the app and `tests.support.ports`: the tests' other helpers import httpx,
whose own command line loads Click, which such a probe may be counting.
"""

from __future__ import annotations

import threading
import time

import uvicorn

from panelgate.http.app import create_app
from panelgate.settings import Settings
from tests.support.ports import free_port


def serve_in_thread(home: str) -> tuple[uvicorn.Server, str]:
    """A gateway on a fresh data folder, started; its server (set `should_exit` to stop) and base URL."""
    port = free_port()
    app = create_app(Settings(home=home, port=port))
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
    threading.Thread(target=server.run, daemon=True).start()
    while not server.started:
        time.sleep(0.01)
    return server, f"http://127.0.0.1:{port}"
