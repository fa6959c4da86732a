"""Onboarding's probe: four calls that say whether a new model answers, how fast, and what it can do.

The questions are the health probes' (`probe_kinds`) and so is the sender
(`probe_call.ask_probe`: the normal upstream client, in the endpoint's own
API, so pacing applies and every call is in the usage ledger), tagged
purpose `onboard`:

1. `ready`: the one-word question. No answer (an error, a timeout, an empty
   reply, or pacing refusing to send it) ends the probe there: the model is
   unavailable, and three more calls would only spend more.
2. `speed`: the one-word question again; the tiny speed test's measures
   over both one-word calls.
3. `tools`: a question only a tool call answers.
4. `reasoning`: a small sum with room to think.

What each call found is kept on the onboarding item, not as health probes:
the calls are in the ledger as `onboard` calls, which the health rules read
already, so a copy in the probes table would count each failure twice.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from typing import Any

from panelgate.engine import probe_kinds
from panelgate.engine.probe_call import ProbeReading, ask_probe
from panelgate.store.onboarding_book import ProbeCall
from panelgate.upstream import Target, UpstreamClient
from panelgate.upstream.ledger_notes import CallTag

PROBES = ("ready", "speed", "tools", "reasoning")
OnCall = Callable[[ProbeCall], Awaitable[None]]


async def probe_new_model(
    client: UpstreamClient, target: Target | None, *, tag: CallTag, deadline_s: float, on_call: OnCall
) -> list[ProbeCall]:
    """The probe's calls in order, each handed to `on_call` as it ends (only `ready` when unanswered)."""
    calls: list[ProbeCall] = []

    async def ask(
        probe: str, body: Mapping[str, Any], measure: Callable[[ProbeReading], dict[str, Any]]
    ) -> ProbeReading:
        reading = await ask_probe(client, target, body, deadline_s=deadline_s, tag=tag)
        call = ProbeCall(
            probe=probe,
            status=reading.status,
            seconds=round(reading.seconds, 3),
            error_kind=reading.error_kind,
            error=reading.error,
            measures=measure(reading),
        )
        calls.append(call)
        await on_call(call)
        return reading

    ready = await ask("ready", probe_kinds.READY_BODY, lambda _: {})
    if ready.status != "ok":
        return calls
    await ask("speed", probe_kinds.READY_BODY, lambda r: probe_kinds.speed_measures([ready, r]))
    await ask("tools", probe_kinds.TOOLS_BODY, probe_kinds.tools_measures)
    await ask("reasoning", probe_kinds.REASONING_BODY, probe_kinds.reasoning_measures)
    return calls


def unanswered(call: ProbeCall) -> str:
    """Why a `ready` call that was not answered counts as no answer, in a person's words."""
    if call.status == "refused":
        return f"its rate limits refused the one-word probe before it was sent ({call.error or 'capacity'})"
    if call.status == "empty":
        return "it answered the one-word probe with nothing"
    said = f"{call.error_kind}: {call.error}" if call.error_kind else call.error or "it failed"
    return f"no answer to the one-word probe after {call.seconds:g} s ({said})"


def summary(calls: list[ProbeCall]) -> str:
    """What an answered probe found, in one line."""
    found = {call.probe: call for call in calls}
    parts = [f"answered in {found['ready'].seconds:g} s"]
    if (speed := found.get("speed")) and (p50 := speed.measures.get("p50_s")) is not None:
        parts.append(f"median {p50:g} s")
    if tools := found.get("tools"):
        parts.append("calls tools" if tools.measures.get("called") else "called no tool")
    if reasoning := found.get("reasoning"):
        parts.append("sum right" if reasoning.measures.get("correct") else "sum wrong")
    return "; ".join(parts)
