"""What each health probe asks and how its answer is measured.

- `ready`: one short question a live model answers in a word; the daily
  probe, and the call that confirms a failure before auto-retire acts on it.
- `speed-tiny` / `speed-large`: the weekly speed test, the one-word question
  and a long text to summarise, a few runs each: median and 95th-percentile
  seconds (nearest rank), characters and tokens a second.
- `tools` / `reasoning`: the weekly capability probe, a question only a
  tool call answers, and a small sum with room to think.

Bodies are OpenAI chat fields; `probe_call` sends them in each endpoint's
own API. Output budgets are small but not tiny: a model that reasons first
must be able to say its word, or a healthy model would read as empty.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from panelgate.engine.probe_call import ProbeReading

READY_WORD = "ready"
READY_BODY: dict[str, Any] = {
    "messages": [{"role": "user", "content": f"Answer with the single word: {READY_WORD}"}],
    "max_tokens": 32,
    "temperature": 0,
}
SUM = (17, 23)
REASONING_BODY: dict[str, Any] = {
    "messages": [{"role": "user", "content": f"What is {SUM[0]} times {SUM[1]}? Give only the number."}],
    "max_tokens": 1024,
}
TOOL_NAME = "local_time"
TOOLS_BODY: dict[str, Any] = {
    "messages": [{"role": "user", "content": "What time is it in Lisbon right now? Use a tool to find out."}],
    "tools": [
        {
            "type": "function",
            "function": {
                "name": TOOL_NAME,
                "description": "The current local time in a city.",
                "parameters": {
                    "type": "object",
                    "properties": {"city": {"type": "string", "description": "the city's name"}},
                    "required": ["city"],
                },
            },
        }
    ],
    "max_tokens": 256,
}
LARGE_LINES = 300


def large_body() -> dict[str, Any]:
    """A long, plain text (a made-up service log) to summarise: the speed test's large prompt."""
    lines = [
        f"2026-01-{1 + n % 28:02d} {n % 24:02d}:{(7 * n) % 60:02d} worker-{n % 9} "
        f"handled {40 + (n * 37) % 500} jobs, queue {(n * 13) % 80}, p99 {90 + (n * 29) % 900} ms"
        for n in range(LARGE_LINES)
    ]
    prompt = "Summarise this service log in three sentences: the busiest worker, trends, anything odd.\n\n"
    return {"messages": [{"role": "user", "content": prompt + "\n".join(lines)}], "max_tokens": 400}


def nearest_rank(values: Sequence[float], share: float) -> float:
    """The nearest-rank percentile (`share` of 1) of `values` (not empty)."""
    ordered = sorted(values)
    return ordered[max(0, math.ceil(share * len(ordered)) - 1)]


def speed_measures(readings: Sequence[ProbeReading]) -> dict[str, Any]:
    """Runs, answers and timings of one speed prompt's runs (timings of the answered runs only)."""
    answered = [r for r in readings if r.status == "ok"]
    measures: dict[str, Any] = {"runs": len(readings), "answered": len(answered)}
    if not answered:
        return measures
    seconds = [r.seconds for r in answered]
    total_s = sum(seconds)
    chars = sum(len(r.text) for r in answered)
    tokens = [r.tokens_out for r in answered]
    measures |= {
        "p50_s": round(nearest_rank(seconds, 0.5), 3),
        "p95_s": round(nearest_rank(seconds, 0.95), 3),
        "chars_per_s": round(chars / total_s, 1) if total_s > 0 else None,
        "tokens_per_s": (
            round(sum(t for t in tokens if t is not None) / total_s, 1)
            if total_s > 0 and all(t is not None for t in tokens)
            else None
        ),
    }
    return measures


def tools_measures(reading: ProbeReading) -> dict[str, Any]:
    return {"called": TOOL_NAME in reading.tools_called, "tools_called": list(reading.tools_called)}


def reasoning_measures(reading: ProbeReading) -> dict[str, Any]:
    product = str(SUM[0] * SUM[1])
    return {"correct": product in reading.text.replace(",", ""), "reasoned": bool(reading.reasoning.strip())}
