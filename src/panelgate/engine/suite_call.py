"""One suite call: one model asked one review task, the review suite's one way to reach a model.

The suite asks each model itself, not through a panel, yet spends from the
same budget as everything else: the call goes through the same
`UpstreamClient.chat` as a panel seat, tagged purpose `suite`, so pacing holds
it to the model's rate limits and the usage ledger notes it. What went wrong
comes back as fields of a `SuiteReply` (the taxonomy kind and a message for
people), never as upstream's exceptions, so the suite knows nothing of
upstream. A call pacing refused before sending is `refused`, not a failure of
the model.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TypeAlias

from panelgate.core.types import ChatMessage
from panelgate.engine.probe_call import ReadingStatus
from panelgate.engine.seat import target_at
from panelgate.store import EndpointRecord, ModelRecord
from panelgate.upstream import UpstreamClient, UpstreamError
from panelgate.upstream.ledger_notes import CallTag

SuiteClient: TypeAlias = UpstreamClient
"""The pooled client suite calls go through; the suite holds it only to hand it back here."""


@dataclass(frozen=True)
class SuiteReply:
    """What came back from one suite call: the answer and its tokens, or why there is none."""

    status: ReadingStatus
    text: str = ""
    tokens_in: int | None = None
    tokens_out: int | None = None
    error_kind: str | None = None
    error: str = ""


async def ask_for_suite(
    client: SuiteClient,
    model: ModelRecord,
    endpoint: EndpointRecord,
    messages: list[ChatMessage],
    *,
    deadline: float,
    caller: str,
) -> SuiteReply:
    """Ask `model`, served on `endpoint`, once by `deadline` (a `time.monotonic()` value); the model's
    failures come back in the reply, so only a bug of ours raises."""
    target = target_at(endpoint, model.served_id)
    tag = CallTag("suite", caller, model.alias)
    try:
        result = await client.chat(target, messages, {}, deadline=deadline, tag=tag)
    except UpstreamError as exc:
        return SuiteReply("refused" if exc.never_sent else "error", error_kind=exc.kind, error=exc.message)
    status: ReadingStatus = "ok" if result.text.strip() else "empty"
    return SuiteReply(status, result.text, result.tokens_in, result.tokens_out)
