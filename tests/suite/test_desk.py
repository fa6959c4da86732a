"""`SuiteDesk.run_model`, the call onboarding makes: one model at a depth, on a real store and upstream."""

from __future__ import annotations

from pathlib import Path

import pytest

from panelgate.core.errors import BadRequest
from panelgate.suite.choice import quick_sample
from panelgate.suite.desk import SuiteDesk
from tests.engine.conftest import Live, db, live, migrated, settings

__all__ = ["db", "live", "migrated", "settings"]
"""The engine's fixtures: a store, endpoint `up` on the loopback upstream with m1–m3, a real client."""

ANSWER = "NO FAULT\nThe comparison and every bound read as the docstring says they should."


@pytest.fixture
def desk(live: Live, tmp_path: Path) -> SuiteDesk:
    return SuiteDesk(live.db, live.client, tmp_path / "data", now=live.clock)


async def test_the_full_depth_asks_every_runnable_task_and_keeps_each_answer(
    live: Live, desk: SuiteDesk
) -> None:
    live.upstream.behave("m1", answer=ANSWER)
    runnable = (await desk.catalogue()).runnable()
    seen: list[str] = []

    async def tell(event: object) -> None:
        seen.append(getattr(event, "task_id", ""))

    report = await desk.run_model("m1", "full", caller="onboarding", on_event=tell)
    assert sorted(a.task_id for a in report.answers) == sorted(t.id for t in runnable) == sorted(seen)
    assert len(live.upstream.requests_for("m1")) == len(runnable) and not live.upstream.requests_for("m2")
    controls = [a for a in report.answers if a.shape == "control"]
    assert controls and all(a.counted and not a.score["invented"] for a in controls)
    (standing,) = await desk.standings("m1")
    assert standing.inventions == len([t for t in runnable if t.shape == "bug"]), "NO FAULT on every bug"


@pytest.mark.parametrize("depth", ["quick", "quick+adhoc"])
async def test_the_quick_depths_ask_the_quick_sample(live: Live, desk: SuiteDesk, depth: str) -> None:
    sample = quick_sample((await desk.catalogue()).runnable())
    report = await desk.run_model("m2", depth, caller="onboarding")  # type: ignore[arg-type]
    assert sorted(a.task_id for a in report.answers) == sorted(t.id for t in sample)
    assert {t.shape for t in sample} == {"bug", "claim", "control"}
    assert [r.model for r in live.upstream.requests] == ["m2"] * len(sample)


async def test_an_unknown_depth_is_refused_before_anything_is_sent(live: Live, desk: SuiteDesk) -> None:
    with pytest.raises(BadRequest, match="is not a depth"):
        await desk.run_model("m1", "thorough", caller="onboarding")  # type: ignore[arg-type]
    assert live.upstream.requests == []
