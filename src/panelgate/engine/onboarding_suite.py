"""Where the review suite plugs into onboarding.

Onboarding's last step runs the review suite on the new model: every task
(`full`) or the quick sample (`quick`, `quick+adhoc`). The suite lives in
`panelgate.suite`, which may import the engine but not the other way round,
so the queue is handed its suite runner (a `SuiteRunner`) when the app is
made (`panelgate.suite.onboarding_step`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, Protocol

from panelgate.store import ModelRecord

SuiteChoice = Literal["full", "quick", "quick+adhoc"]
SUITE_CHOICES: tuple[SuiteChoice, ...] = ("full", "quick", "quick+adhoc")

SuiteState = Literal["done", "failed"]


@dataclass(frozen=True)
class SuiteOutcome:
    state: SuiteState
    detail: str


class SuiteRunner(Protocol):
    async def __call__(self, model: ModelRecord, choice: SuiteChoice) -> SuiteOutcome: ...
