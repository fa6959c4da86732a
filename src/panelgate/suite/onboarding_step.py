"""The review suite as onboarding's last step.

The engine may not import the suite (the suite imports the engine), so the
app hands the onboarding queue this runner. A run in which the model
answered at least one task is `done` (its scores are on the record, however
good); one where no task got an answer is `failed`, with the run's summary
as the reason.
"""

from __future__ import annotations

from panelgate.engine.onboarding_suite import SuiteChoice, SuiteOutcome, SuiteRunner
from panelgate.store import ModelRecord
from panelgate.suite.on_demand import SuiteOnDemand

CALLER = "onboarding"


def onboarding_suite(suite: SuiteOnDemand) -> SuiteRunner:
    async def run(model: ModelRecord, choice: SuiteChoice) -> SuiteOutcome:
        report = await suite.desk().run_model(model.alias, choice, caller=CALLER)
        answered = any(answer.counted for answer in report.answers)
        return SuiteOutcome("done" if answered else "failed", report.summary())

    return run
