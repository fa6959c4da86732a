"""Working one onboarding item through its steps: register → probe → suite.

- **register** puts the model on the bench as *ad hoc*: until onboarding
  ends, nothing seats it unless a caller names it, so an untested model
  never takes an explorer seat. When the item ends `done`, a `full` or
  `quick` model leaves ad hoc; a `quick+adhoc` one stays; one that did not
  answer stays too.
- **probe** sends onboarding's four calls (`onboarding_probe`). No answer to
  the first ends the item `unavailable`: the model stays registered, the
  reason is on the item, and the queue moves on.
- **suite** runs the review suite through the runner the queue was given:
  every task (`full`) or the quick sample (`quick`, `quick+adhoc`).

Every step's start and end is written to the item before the next begins,
so a gateway that stopped part-way resumes the item at the step it was in.
That step starts over: registering again finds the model it registered
(same alias, endpoint and served id) rather than adding a second; a probe
cut off sends its calls again (the ledger keeps the cut-off ones). An item
begun `MAX_STARTS` times without ending fails rather than stopping the
gateway each time. A stop a person asks for is seen between calls and steps.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from datetime import datetime
from typing import cast

from panelgate.engine.onboarding_probe import probe_new_model, summary, unanswered
from panelgate.engine.onboarding_suite import SuiteChoice, SuiteOutcome, SuiteRunner, SuiteState
from panelgate.engine.seat import target_for
from panelgate.store import Database, ModelRecord
from panelgate.store.errors import StoreError
from panelgate.store.onboarding_book import (
    ItemState,
    OnboardingItem,
    ProbeCall,
    StepName,
    StepRecord,
    StepState,
)
from panelgate.upstream import UpstreamClient
from panelgate.upstream.ledger_notes import CallTag

log = logging.getLogger(__name__)

MAX_STARTS = 3
ENDED: frozenset[StepState] = frozenset({"done", "failed", "skipped"})


class StopAsked(Exception):
    """A person asked the queue to stop while this item was worked."""


class OnboardingSteps:
    def __init__(
        self, db: Database, client: UpstreamClient, run_suite: SuiteRunner, now: Callable[[], datetime]
    ) -> None:
        self._db = db
        self._client = client
        self._run_suite = run_suite
        self._now = now

    async def work(self, item: OnboardingItem, holder: str) -> OnboardingItem:
        """Work a begun item (see `OnboardingBook.begin`) to its end; the item as it ended."""
        return await _ItemRun(self, item, holder).run()


class _ItemRun:
    """One worker's pass over one item; `item` is always the item as last written."""

    def __init__(self, steps: OnboardingSteps, item: OnboardingItem, holder: str) -> None:
        self._db = steps._db
        self._client = steps._client
        self._run_suite = steps._run_suite
        self._now = steps._now
        self.item = item
        self.holder = holder
        self.probes: list[ProbeCall] = []

    async def run(self) -> OnboardingItem:
        if self.item.state == "stopping":
            return await self._stopped()
        if self.item.starts > MAX_STARTS:
            return await self._end(
                "failed",
                f"begun {self.item.starts - 1} times without ending: the gateway stopped each time while it "
                "ran; onboard it again to retry",
            )
        try:
            model = await self._register()
            if model is None:
                return self.item
            if not await self._probe(model):
                return self.item
            outcome = await self._suite(model)
            return await self._done(model, outcome)
        except StopAsked:
            return await self._stopped()

    # ---- steps -------------------------------------------------------------------------

    async def _register(self) -> ModelRecord | None:
        item = self.item
        if item.step_record("register").state == "done" and item.model_id is not None:
            model = await self._model(item.model_id)
            if model is not None:
                return model
        await self._mark("register", "running")
        try:
            model = await self._registered()
        except StoreError as exc:
            await self._mark("register", "failed", exc.message, check_stop=False)
            await self._end("failed", f"could not put it on the bench: {exc.message}")
            return None
        await self._mark(
            "register",
            "done",
            f"on the bench as `{model.alias}`, ad hoc until onboarding ends",
            model_id=model.id,
        )
        return model

    async def _registered(self) -> ModelRecord:
        """The model an earlier, cut-off attempt (or onboarding retried) put on the bench, else a new one."""
        item = self.item
        found = await self._db.models.get(item.alias)
        if (
            found is not None
            and not found.retired
            and (found.endpoint, found.served_id) == (item.endpoint, item.served_id)
        ):
            return found
        return await self._db.models.add(
            item.alias, item.served_id, item.endpoint, ad_hoc=True, actor=item.asked_by
        )

    async def _probe(self, model: ModelRecord) -> bool:
        """True when the model answered; else the item has ended (`unavailable`, or `failed` when retired)."""
        done = self.item.step_record("probe")
        if done.state in ENDED:
            self.probes = list(self.item.probes)
            return done.state == "done"
        if model.retired:  # while the item waited to be resumed
            await self._end("failed", f"`{model.alias}` was retired before its probe: {model.retired_why}")
            return False
        await self._mark("probe", "running", probes=[])  # a probe cut off by a restart starts over
        endpoints = (await self._db.bench.snapshot()).endpoints
        target = None if model.endpoint_gone else target_for(model.to_info(), endpoints)
        calls = await probe_new_model(
            self._client,
            target,
            tag=CallTag("onboard", self.item.asked_by, model.alias),
            deadline_s=self.item.probe_deadline_s,
            on_call=self._noted,
        )
        if calls and calls[0].status == "ok":
            await self._mark("probe", "done", summary(calls))
            return True
        why = unanswered(calls[0])
        await self._mark("probe", "failed", why, check_stop=False)
        await self._end(
            "unavailable",
            f"{why}. It stays on the bench as `{model.alias}`, ad hoc (seated only when named); probe it "
            f"again with POST /api/health/{model.alias}/probe, or onboard it again",
        )
        return False

    async def _noted(self, call: ProbeCall) -> None:
        self.probes.append(call)
        await self._mark("probe", "running", probes=self.probes)

    async def _suite(self, model: ModelRecord) -> SuiteOutcome:
        """How the suite went (a step that ended before a restart is taken as it ended)."""
        step = self.item.step_record("suite")
        if step.state in ENDED:  # resumed after the suite had ended
            return SuiteOutcome(cast(SuiteState, step.state), step.detail)
        await self._mark("suite", "running")
        try:
            outcome = await self._run_suite(model, cast(SuiteChoice, self.item.suite))  # checked when queued
        except Exception as exc:  # a failing suite must not hold the queue
            log.exception("the review suite failed on %s", model.alias)
            outcome = SuiteOutcome("failed", f"the suite failed: {type(exc).__name__}: {exc}")
        await self._mark("suite", outcome.state, outcome.detail)
        return outcome

    async def _done(self, model: ModelRecord, outcome: SuiteOutcome) -> OnboardingItem:
        current = await self._model(model.id)
        stays_ad_hoc = self.item.suite == "quick+adhoc"
        if current is not None and not current.retired and current.ad_hoc and not stays_ad_hoc:
            current = await self._db.models.update(current.alias, {"ad_hoc": False}, actor=self.item.asked_by)
        alias = current.alias if current is not None else model.alias
        where = f"on the bench as `{alias}`" + (", ad hoc" if stays_ad_hoc else "")
        return await self._end("done", f"{where}; probe: {summary(self.probes)}; suite: {outcome.state}")

    # ---- writing the item ----------------------------------------------------------------

    async def _mark(
        self,
        name: StepName,
        state: StepState,
        detail: str = "",
        *,
        probes: list[ProbeCall] | None = None,
        model_id: int | None = None,
        check_stop: bool = True,
    ) -> None:
        now = self._now()
        old = self.item.step_record(name)
        still_running = old.state == "running" and state == "running"
        started = old.started_at if still_running or state in ENDED else now
        new = StepRecord(name, state, detail, started or now, now if state in ENDED else None)
        self.item = await self._db.onboarding.progress(
            self.item.id,
            self.holder,
            now,
            step=name,
            steps=_replaced(self.item.steps, new),
            probes=probes,
            model_id=model_id,
        )
        if check_stop and self.item.state == "stopping":
            raise StopAsked

    async def _stopped(self) -> OnboardingItem:
        step = self.item.step
        where = (
            "before it began"
            if self.item.step_record("register").state == "pending"
            else f"at its {step} step"
        )
        registered = self.item.model_id is not None
        kept = "; it stays on the bench, ad hoc" if registered else ""
        return await self._end("stopped", f"{self.item.why or 'stopped by a person'} {where}{kept}")

    async def _end(self, state: ItemState, why: str) -> OnboardingItem:
        """End the item: steps not ended yet are skipped."""
        now = self._now()
        steps = tuple(
            s
            if s.state in ENDED
            else StepRecord(s.name, "skipped", f"not run: the item ended {state}", s.started_at, now)
            for s in self.item.steps
        )
        self.item = await self._db.onboarding.finish(
            self.item.id, self.holder, now, state=state, why=why, steps=steps
        )
        return self.item

    async def _model(self, model_id: int) -> ModelRecord | None:
        """The model by its id, whatever it was renamed to since."""
        return next((m for m in await self._db.models.list(include_retired=True) if m.id == model_id), None)


def _replaced(steps: tuple[StepRecord, ...], new: StepRecord) -> tuple[StepRecord, ...]:
    return tuple(new if s.name == new.name else s for s in steps)
