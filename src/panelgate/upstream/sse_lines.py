"""Take the `data:` payloads out of a server-sent event stream as its bytes arrive.

Every streamed upstream reply (OpenAI chat, Anthropic Messages, Gemini) is an
event stream, and a read can end anywhere, mid-line or between `\\r` and `\\n`.
`SseLines` keeps an unfinished line until the rest of it arrives, reads each
`data:` line as one event with or without the blank line after it (some
servers leave it out), and skips comments (`: keep-alive`) and the other SSE
fields. A line that is none of these, before any event, means the body is no
event stream at all (an HTML error page sent with status 200); the reader that
owns the stream says so in its own words, through `not_a_stream`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

_OTHER_FIELDS = (b":", b"event:", b"id:", b"retry:")


class SseLines:
    """The payloads of one event stream, in order; counts its events (empty `data:` lines are none)."""

    def __init__(self, not_a_stream: Callable[[bytes], Exception]) -> None:
        self._not_a_stream = not_a_stream
        self._partial = b""
        self.events = 0

    def feed(self, data: bytes) -> Iterator[bytes]:
        """The payloads of the lines these bytes complete; an unfinished last line waits for the next bytes.

        The lines are split now, and read as the result is iterated: a caller that
        stops at a failure drops the rest, as a reader that gave up should.
        """
        lines = (self._partial + data).split(b"\n")
        self._partial = lines.pop()
        return self._payloads(lines)

    def close(self) -> Iterator[bytes]:
        """The payload of the last line, when the stream ended without a line end after it."""
        last, self._partial = self._partial, b""
        return self._payloads([last] if last else [])

    def _payloads(self, lines: list[bytes]) -> Iterator[bytes]:
        for line in lines:
            line = line.rstrip(b"\r")
            if line.startswith(b"data:"):
                payload = line[5:].strip()
                if payload:
                    self.events += 1
                    yield payload
            elif line and not line.startswith(_OTHER_FIELDS) and not self.events:
                raise self._not_a_stream(line)
