"""What the fakes of native APIs (Anthropic Messages, Gemini) do alike, whatever their words.

`FakeAnthropic` and `FakeGemini` are `FakeUpstream` answering one more route in
a vendor's own words. Beyond the words they behave the same: refuse behaviours
they cannot act on, check the key in the vendor's header, refuse a request the
real service would (a body that is not JSON, a wrong key, a body it finds
invalid), fail as `behave` said, and otherwise stream the reply as an event
stream sent in HTTP/1.1 chunks, one frame a chunk. `NativeFake` and
`ChunkedReply` are that common part, so the two fakes fail and stream alike.
"""

from __future__ import annotations

import asyncio
import math
from abc import ABC, abstractmethod
from collections.abc import Callable
from typing import Any, ClassVar

import orjson

from tests.support.upstream import (
    _DEFAULT_ERRORS,
    Behaviour,
    FakeUpstream,
    _Call,
    _Request,
    _send,
    _send_head,
)


class ChunkedReply(ABC):
    """Writes the event stream answering one request, according to its behaviour."""

    def __init__(self, call: _Call, writer: asyncio.StreamWriter) -> None:
        self.call = call
        self.behaviour: Behaviour = call.behaviour
        self.writer = writer

    @abstractmethod
    async def send(self) -> bool:
        """The whole reply; False when the connection must not be reused."""

    @property
    def stop_at(self) -> int | None:
        """How many answer pieces go out before the reply breaks off (`reset_after`, `error_after`)."""
        b = self.behaviour
        return min((n for n in (b.reset_after, b.error_after) if n is not None), default=None)

    def tokens(self, conversation: str) -> tuple[int, int]:
        """Prompt and answer tokens: `usage` as told, else a rough count of the body's `conversation`
        field and of the answer."""
        if self.behaviour.usage is not None:
            return self.behaviour.usage
        asked = max(1, len(orjson.dumps(self.call.body.get(conversation, []))) // 4)
        return asked, len(self.call.text.split())

    async def start(self) -> None:
        """After `delay`, the head of a chunked event stream."""
        if self.behaviour.delay:
            await asyncio.sleep(self.behaviour.delay)
        await _send_head(
            self.writer, 200, {"content-type": "text/event-stream", "transfer-encoding": "chunked"}
        )

    async def frame(self, frame: bytes) -> None:
        self.writer.write(b"%x\r\n%s\r\n" % (len(frame), frame))
        await self.writer.drain()

    async def end(self) -> None:
        self.writer.write(b"0\r\n\r\n")
        await self.writer.drain()


class NativeFake(FakeUpstream, ABC):
    """A `FakeUpstream` answering one vendor's streamed call; a subclass gives the vendor's words."""

    unsupported: ClassVar[frozenset[str]] = frozenset(
        {"hang", "garbage", "reject_stream_options", "plain_json", "redirect_to", "company", "empty_times"}
    )
    """Behaviour fields this fake cannot act on: `behave` refuses them. These are the chat fake's
    own: the native services do not hang that way, send no plain JSON and have no companies."""
    key_header: ClassVar[str]
    not_json: ClassVar[str]
    """What the service says to a body that is not JSON."""
    bad_key: ClassVar[tuple[int, str]]
    """The status and words of the service's answer to a wrong key."""

    @abstractmethod
    def _error_body(self, status: int, message: str) -> dict[str, Any]:
        """The service's error body."""

    @abstractmethod
    def _invalid(self, body: dict[str, Any]) -> str | None:
        """What the real service would refuse in this request, or None."""

    @abstractmethod
    def _reply(self, call: _Call, writer: asyncio.StreamWriter) -> ChunkedReply: ...

    def behave(self, model: str, **behaviour: Any) -> None:
        if unsupported := sorted(self.unsupported & set(behaviour)):
            raise ValueError(f"{type(self).__name__} does not act on {', '.join(unsupported)}")
        super().behave(model, **behaviour)

    def _authorized(self, request: _Request) -> bool:
        return self.require_key is None or request.headers.get(self.key_header) == self.require_key

    async def _streamed_call(
        self,
        request: _Request,
        writer: asyncio.StreamWriter,
        take: Callable[[dict[str, Any]], _Call],
    ) -> bool:
        """Answer one call, recorded and decided by `take`: refused as the real service would,
        failing as told, else streamed."""
        try:
            body = orjson.loads(request.raw_body)
        except orjson.JSONDecodeError:
            await self._send_error(writer, 400, self.not_json)
            return True
        call = take(body if isinstance(body, dict) else {})
        wanted = call.behaviour.require_key
        if not self._authorized(request) or (
            wanted is not None and request.headers.get(self.key_header) != wanted
        ):
            await self._send_error(writer, *self.bad_key)
            return True
        if (invalid := self._invalid(call.body)) is not None:
            await self._send_error(writer, 400, invalid)
            return True
        if call.failing:
            status = call.behaviour.status or 500
            message = call.behaviour.error_message or _DEFAULT_ERRORS.get(status, f"error {status}")
            after = call.behaviour.retry_after
            await self._send_error(
                writer, status, message, {} if after is None else {"retry-after": f"{after:g}"}
            )
            return True
        return await self._reply(call, writer).send()

    async def _send_error(
        self, writer: asyncio.StreamWriter, status: int, message: str, extra: dict[str, str] | None = None
    ) -> None:
        body = orjson.dumps(self._error_body(status, message))
        await _send(writer, status, body, {"content-type": "application/json", **(extra or {})})


def split(text: str, pieces: int) -> list[str]:
    """`text` in `pieces` about equal pieces (fewer when it is short); none for no text."""
    if not text:
        return []
    size = math.ceil(len(text) / max(1, pieces))
    return [text[start : start + size] for start in range(0, len(text), size)]
