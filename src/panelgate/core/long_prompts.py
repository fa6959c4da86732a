"""Which explorer candidates sit out a long prompt: those the weekly speed test found failing or far slower.

A model that answers a one-word question in a second may still choke on a
few pages of text: it times out, answers nothing, or takes minutes while the
rest of the panel waits for it. The weekly speed test (`speed-large`, a
300-line log to summarise) says so before a person's long prompt does. On a
prompt over `LONG_PROMPT_CHARS`, an explorer candidate is skipped when its
newest long-prompt test answered none of its runs, or when its median took
more than `SLOW_FACTOR` times the median of the candidates tested (so "slow"
is against today's bench, not a fixed number of seconds that a slow local
runtime would always fail). A candidate never tested is not skipped: no news
is not bad news. Members and models the caller named in `with` always sit.

Pure: the store reads the figures once in a while
(`engine/long_prompt_figures.py`); seating asks `misfits` on long prompts.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from statistics import median

LONG_PROMPT_CHARS = 8_000
LONG_PROMPT_TOKENS = LONG_PROMPT_CHARS * 11 // 40
"""The size estimate (`core/sizing.py`: chars/4 × 1.1, an image counted as 2,500 tokens) of a prompt of
`LONG_PROMPT_CHARS` characters: seating knows a prompt by its estimate."""
SLOW_FACTOR = 3.0
"""A candidate whose long-prompt median is over this many times the tested candidates' median is far
slower than the rest."""


@dataclass(frozen=True)
class LongPromptTest:
    """A model's newest long-prompt speed test: runs asked, runs answered, their median seconds."""

    runs: int
    answered: int
    p50_s: float | None = None

    @property
    def failed(self) -> bool:
        return self.answered == 0


def is_long(estimate: int) -> bool:
    """True for a prompt estimated over `LONG_PROMPT_CHARS` characters of text."""
    return estimate > LONG_PROMPT_TOKENS


def misfits(pool: Sequence[str], tests: Mapping[str, LongPromptTest]) -> dict[str, str]:
    """Why each candidate of `pool` should sit out a long prompt, for those that should (in pool order)."""
    tested = {alias: tests[alias] for alias in pool if alias in tests}
    timings = [test.p50_s for test in tested.values() if not test.failed and test.p50_s is not None]
    typical = median(timings) if timings else None
    why: dict[str, str] = {}
    for alias, test in tested.items():
        if test.failed:
            why[alias] = f"failed the long-prompt speed test (0 of {test.runs} runs answered)"
        elif typical and test.p50_s is not None and test.p50_s > SLOW_FACTOR * typical:
            why[alias] = (
                f"slow on long prompts: {test.p50_s:.1f} s on the speed test, over {SLOW_FACTOR:g}× "
                f"the median of {typical:.1f} s"
            )
    return why
