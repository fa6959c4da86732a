"""A test server that runs its own asyncio loop on a thread: started, stopped, used with `with`.

The loopback upstream and the loopback proxy both serve from a thread of
the test process, so a test (and the in-process gateway) talks to them over
real sockets. A subclass writes `_serve(ready)`: make `_stopping`, start
listening, set `url`, set `ready`, then wait for `_stopping`.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable
from types import TracebackType
from typing import Self


class LoopThread:
    thread_name = "loop-thread"

    def __init__(self) -> None:
        self.url = ""
        self._thread: threading.Thread | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._stopping: asyncio.Event | None = None

    def start(self) -> Self:
        ready = threading.Event()
        self._thread = threading.Thread(target=self._run, args=(ready,), name=self.thread_name, daemon=True)
        self._thread.start()
        if not ready.wait(10) or not self.url:
            raise RuntimeError(f"{self.thread_name} did not start within 10 s")
        return self

    def stop(self) -> None:
        if self._loop is not None and self._stopping is not None:
            self._loop.call_soon_threadsafe(self._stopping.set)
        if self._thread is not None:
            self._thread.join(10)
        self._thread = None

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        self.stop()

    def _run(self, ready: threading.Event) -> None:
        with asyncio.Runner(loop_factory=fast_loop()) as runner:
            runner.run(self._begin(ready))

    async def _begin(self, ready: threading.Event) -> None:
        self._loop = asyncio.get_running_loop()
        self._stopping = asyncio.Event()
        await self._serve(ready)

    async def _serve(self, ready: threading.Event) -> None:
        raise NotImplementedError


def fast_loop() -> Callable[[], asyncio.AbstractEventLoop]:
    """uvloop when installed (it comes with uvicorn[standard]): a test server should cost the tests as
    little time as possible."""
    try:
        import uvloop
    except ImportError:
        return asyncio.new_event_loop
    return uvloop.new_event_loop
