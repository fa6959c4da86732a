"""Noting each upstream call in the usage ledger: who it was for, how it ended, what it used.

The same note is counted in the meter (`/metrics`: latency, errors and tokens per endpoint).

The engine tags a call (`CallTag`: purpose, caller, alias, call id); the
client notes it here when it ends, answered or failed. A call refused by
pacing before anything was sent is not an upstream call and is not noted.
Relayed turns report their tokens in a usage chunk, which `UsageSeen`
picks out as the chunks pass.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from panelgate.observe import Meter
from panelgate.store.usage_book import UsageBook, UsageEntry
from panelgate.upstream.errors import UpstreamError

Where = tuple[str, str]
"""(endpoint, served id): where a call went."""


@dataclass(frozen=True, slots=True)
class CallTag:
    purpose: str
    """panel, merge, route, shadow, probe, suite, onboard or shape (a decision model naming a shape)."""
    caller: str
    alias: str
    call: str | None = None


@dataclass(slots=True)
class UsageSeen:
    """The tokens a relayed turn's usage chunk reported (OpenAI chunk shape)."""

    tokens_in: int | None = None
    tokens_out: int | None = None
    tokens_reasoning: int | None = None

    def read(self, chunk: dict[str, Any]) -> None:
        usage = chunk.get("usage")
        if not isinstance(usage, dict):
            return
        self.tokens_in = _count(usage.get("prompt_tokens"))
        self.tokens_out = _count(usage.get("completion_tokens"))
        details = usage.get("completion_tokens_details")
        if isinstance(details, dict):
            self.tokens_reasoning = _count(details.get("reasoning_tokens"))


def _count(value: object) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


class LedgerNotes:
    def __init__(self, book: UsageBook, meter: Meter) -> None:
        self._book = book
        self._meter = meter

    def answered(
        self,
        tag: CallTag | None,
        where: Where,
        started: float,
        *,
        attempts: int,
        empty: bool,
        usage: UsageSeen,
    ) -> None:
        self._note(tag, where, started, "empty" if empty else "ok", None, attempts, usage)

    def failed(self, tag: CallTag | None, where: Where, started: float, error: UpstreamError) -> None:
        if error.attempts > 0:
            self._book.heard_refusal(*where, error.message)  # the catalog learns a smaller window from it
            self._note(tag, where, started, "error", error.kind, error.attempts, UsageSeen())

    def _note(
        self,
        tag: CallTag | None,
        where: Where,
        started: float,
        status: str,
        error_kind: str | None,
        attempts: int,
        usage: UsageSeen,
    ) -> None:
        if tag is None:
            return
        endpoint, served_id = where
        seconds = time.monotonic() - started
        self._meter.upstream_call(endpoint, tag.alias, error_kind, seconds, usage.tokens_in, usage.tokens_out)
        self._book.note(
            UsageEntry(
                at=datetime.now(UTC),
                endpoint=endpoint,
                served_id=served_id,
                alias=tag.alias,
                caller=tag.caller,
                purpose=tag.purpose,
                call=tag.call,
                status=status,
                error_kind=error_kind,
                attempts=attempts,
                tokens_in=usage.tokens_in,
                tokens_out=usage.tokens_out,
                tokens_reasoning=usage.tokens_reasoning,
                seconds=seconds,
            )
        )
