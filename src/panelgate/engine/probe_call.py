"""One probe call: a small OpenAI chat body sent to a model in its endpoint's own API, read back whole.

Probes go through `UpstreamClient.relay`, the path that speaks every API an
endpoint may (OpenAI chat, native Anthropic Messages, Gemini), so a model on
a native endpoint is probed as it is really called and is never judged by a
call the gateway could not make. Like a seat, a probe never raises: what went
wrong is in the reading. A call that pacing refused before sending is
`refused`, not a failure of the model. Every probe is tagged purpose `probe`,
so it is in the usage ledger with everything else that was spent.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

from panelgate.core.turn import TurnReader
from panelgate.upstream import Target, UpstreamClient, UpstreamError
from panelgate.upstream.ledger_notes import CallTag

log = logging.getLogger(__name__)

ReadingStatus = Literal["ok", "empty", "error", "refused"]


@dataclass(frozen=True)
class ProbeReading:
    status: ReadingStatus
    seconds: float
    text: str = ""
    reasoning: str = ""
    tools_called: tuple[str, ...] = ()
    tokens_out: int | None = None
    error_kind: str | None = None
    error: str = ""


async def ask_probe(
    client: UpstreamClient,
    target: Target | None,
    body: Mapping[str, Any],
    *,
    deadline_s: float,
    tag: CallTag,
) -> ProbeReading:
    """Send `body` (OpenAI chat fields, no `model`) to `target` and read the whole reply."""
    if target is None:
        return ProbeReading(
            "error", 0.0, error_kind="structural", error="its endpoint is not configured any more"
        )
    reader = TurnReader()

    async def take(chunk: dict[str, Any]) -> None:
        reader.feed(chunk)

    started = time.monotonic()
    try:
        await client.relay(target, body, deadline=started + deadline_s, on_chunk=take, tag=tag)
    except UpstreamError as exc:
        return ProbeReading(
            "refused" if exc.never_sent else "error",
            time.monotonic() - started,
            error_kind=exc.kind,
            error=exc.message,
        )
    except Exception:  # a bug of ours must not read as the model failing
        log.exception("probe of %s failed unexpectedly", tag.alias)
        return ProbeReading("refused", time.monotonic() - started, error="internal error in the gateway")
    seconds = time.monotonic() - started
    called = tuple(call.name for call in reader.tool_calls if call.announced)
    alive = bool(reader.text.strip() or reader.reasoning.strip() or called)
    return ProbeReading(
        "ok" if alive else "empty",
        seconds,
        text=reader.text,
        reasoning=reader.reasoning,
        tools_called=called,
        tokens_out=reader.usage.tokens_out,
        error_kind=None if alive else "empty",
        error="" if alive else "the reply held no text",
    )
