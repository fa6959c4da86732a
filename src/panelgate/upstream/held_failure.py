"""Hold a reader's failure until the chunks read before it were taken.

A route reader hands back, from each read, the chunks those bytes completed.
When a read fails part way (an error event, a malformed line) after some
chunks, raising at once would drop them, and the caller would show the
failure without what the member said before it. So the failure waits for the
next call and the chunks go out first, in order. Every route reader (chat,
Anthropic Messages, Gemini) holds its failures this one way.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from panelgate.upstream.errors import UpstreamError


class HeldFailure:
    """At most one failure, kept from the read that had chunks to hand back first."""

    def __init__(self) -> None:
        self._failure: UpstreamError | None = None

    def raise_held(self) -> None:
        """Raise the failure an earlier read kept back, if there is one."""
        if self._failure is not None:
            raise self._failure

    @contextmanager
    def holding(self, chunks: list[dict[str, Any]]) -> Iterator[None]:
        """Keep a failure raised inside for the next call when `chunks` has some; else raise it now."""
        try:
            yield
        except UpstreamError as failure:
            if not chunks:
                raise
            self._failure = failure
