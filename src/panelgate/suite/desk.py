"""Asking models the suite's tasks through the engine, scoring each answer, keeping it.

Every call is the engine's suite call (`engine.suite_call`), which takes the
same upstream path as a panel seat, so pacing holds it to the model's rate
limits and the usage ledger notes it (purpose `suite`): a suite run spends
from the same budget as everything else, in plain view. Models are asked a
few at a time, each model's tasks one after another; a model that hits a
rate limit is left alone for the rest of the run (its other tasks would only
fail the same way), and the next scheduled pass asks those again first.

`run_model` is the one call other rooms need (onboarding's suite step):
one model at a depth, `full` (every task), `quick` or `quick+adhoc` (the
quick sample; the ad hoc flag is onboarding's to set, and scheduled passes
skip ad hoc models, so such a model keeps just that sample).
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Literal, get_args

from panelgate.core.errors import BadRequest, NotFound
from panelgate.engine.suite_call import SuiteClient, ask_for_suite
from panelgate.store import Database, ModelRecord
from panelgate.store.suite_book import SuiteAnswer
from panelgate.suite.choice import Standing, pass_pairs, quick_sample
from panelgate.suite.library import STARTER_DIR, Catalogue, load_catalogue, tasks_dir
from panelgate.suite.plan import Ask, RunPlan, Skip, automatic, chosen_models, chosen_tasks, plan_run
from panelgate.suite.prompt import task_messages
from panelgate.suite.results import ModelTally, ScoredAnswer, tally
from panelgate.suite.scoring import Reply, Score, score

log = logging.getLogger(__name__)

Depth = Literal["full", "quick", "quick+adhoc"]
DEPTHS: tuple[Depth, ...] = get_args(Depth)
DEADLINE_S = 300.0
"""How long one task may take a model (a careful review of a long file is slow)."""
AT_ONCE = 4
"""Models asked side by side."""
PER_PASS = 6
"""Tasks a scheduled pass asks, across all models."""

SuiteEvent = SuiteAnswer | Skip
OnEvent = Callable[[SuiteEvent], Awaitable[None]]


def utcnow() -> datetime:
    return datetime.now(UTC)


@dataclass
class RunReport:
    """What a run asked and kept, and what it left out and why."""

    answers: list[SuiteAnswer] = field(default_factory=list)
    skipped: list[Skip] = field(default_factory=list)

    def summary(self) -> str:
        counted = sum(1 for a in self.answers if a.counted)
        line = f"asked {len(self.answers)} task(s): {counted} answered, {len(self.answers) - counted} not"
        return line + (f"; {len(self.skipped)} skipped" if self.skipped else "")


class SuiteDesk:
    def __init__(
        self,
        db: Database,
        client: SuiteClient,
        data_dir: Path,
        *,
        now: Callable[[], datetime] = utcnow,
        deadline_s: float = DEADLINE_S,
        at_once: int = AT_ONCE,
        starter: Path = STARTER_DIR,
    ) -> None:
        self._db = db
        self._client = client
        self._tasks_dir = tasks_dir(data_dir)
        self._starter = starter
        self._now = now
        self._deadline_s = deadline_s
        self._at_once = at_once

    async def catalogue(self) -> Catalogue:
        """Every task, read afresh (a task folder added or fixed shows without a restart)."""
        return await asyncio.to_thread(load_catalogue, self._tasks_dir, self._starter)

    # ---- planning ----------------------------------------------------------------------

    async def plan(self, models: Sequence[str] | None = None, tasks: Sequence[str] | None = None) -> RunPlan:
        """What a run of these models and tasks (every automatic model, every runnable task) would ask."""
        catalogue = await self.catalogue()
        chosen = chosen_tasks(tasks, catalogue)
        found = {alias: await self._db.models.get(alias) for alias in models or ()}
        bench = await self._db.models.list() if not models else []
        endpoints = (await self._db.bench.snapshot()).endpoints
        return plan_run(chosen_models(models, bench, found), chosen, endpoints, named_models=bool(models))

    # ---- asking ----------------------------------------------------------------------------

    async def run(self, plan: RunPlan, *, caller: str, on_event: OnEvent | None = None) -> RunReport:
        """Ask every pair of `plan`; each answer is kept (and passed to `on_event`) as it comes."""
        report = RunReport(skipped=list(plan.skipped))
        for skip in plan.skipped:
            await _tell(on_event, skip)
        by_model: dict[int, list[Ask]] = {}
        for ask in plan.asks:
            by_model.setdefault(ask.model.id, []).append(ask)
        gate = asyncio.Semaphore(self._at_once)

        async def one_model(asks: list[Ask]) -> None:
            async with gate:
                await self._ask_in_turn(asks, caller, report, on_event)

        await asyncio.gather(*(one_model(asks) for asks in by_model.values()))
        return report

    async def _ask_in_turn(
        self, asks: list[Ask], caller: str, report: RunReport, on_event: OnEvent | None
    ) -> None:
        for index, ask in enumerate(asks):
            answer = await self.ask(ask, caller=caller)
            report.answers.append(answer)
            await _tell(on_event, answer)
            if answer.error_kind == "capacity":
                why = "not asked this run: the model hit a rate limit"
                for rest in asks[index + 1 :]:
                    skip = Skip(rest.model.alias, rest.task.id, why)
                    report.skipped.append(skip)
                    await _tell(on_event, skip)
                return

    async def ask(self, ask: Ask, *, caller: str) -> SuiteAnswer:
        """Ask one model one task, score the answer and keep it; never raises for the model's failures."""
        model, task = ask.model, ask.task
        asked_at = self._now()
        started = time.monotonic()
        tokens: tuple[int | None, int | None] = (None, None)
        try:
            said = await ask_for_suite(
                self._client,
                model,
                ask.endpoint,
                task_messages(task),
                deadline=started + self._deadline_s,
                caller=caller,
            )
            reply = Reply(said.status, said.text, said.error_kind, said.error)
            tokens = (said.tokens_in, said.tokens_out)
        except Exception:  # a bug of ours must not read as the model failing the task
            log.exception("suite task %s for %s failed unexpectedly", task.id, model.alias)
            reply = Reply("error", error_kind="other", error="internal error in the gateway")
        found = score(task, reply)
        return await self._db.suite.add(
            SuiteAnswer(
                task_id=task.id,
                task_digest=task.digest,
                shape=task.shape,
                model_id=model.id,
                alias=model.alias,
                endpoint=model.endpoint,
                served_id=model.served_id,
                asked_at=asked_at,
                caller=caller,
                status=reply.status,
                counted=found.counted,
                passed=found.right,
                score=found.to_json(),
                error_kind=reply.error_kind,
                error=reply.error,
                answer=reply.text,
                seconds=round(time.monotonic() - started, 3),
                tokens_in=tokens[0],
                tokens_out=tokens[1],
            )
        )

    async def run_model(
        self, alias: str, depth: Depth, *, caller: str, on_event: OnEvent | None = None
    ) -> RunReport:
        """The suite for one model: every runnable task (`full`), or the quick sample (the quick depths)."""
        if depth not in DEPTHS:
            raise BadRequest(f"`{depth}` is not a depth; use one of {', '.join(DEPTHS)}", param="depth")
        catalogue = await self.catalogue()
        tasks = catalogue.runnable() if depth == "full" else quick_sample(catalogue.runnable())
        plan = await self.plan([alias], [task.id for task in tasks])
        return await self.run(plan, caller=caller, on_event=on_event)

    async def scheduled_pass(self, *, caller: str, limit: int = PER_PASS) -> str:
        """A few tasks across the automatic models: gaps first, then the oldest answers (see `choice`)."""
        tasks = (await self.catalogue()).runnable()
        models = [m for m in await self._db.models.list() if automatic(m)]
        if not models or not tasks:
            return "nothing to ask: " + ("no model the suite asks on its own" if not models else "no task")
        newest = await self._db.suite.newest(model_ids=[m.id for m in models])
        alias_of = {m.id: m.alias for m in models}
        standings = {
            (alias_of[a.model_id], a.task_id): Standing(a.asked_at, a.task_digest, a.status, a.error_kind)
            for a in newest
        }
        pairs = pass_pairs([m.alias for m in models], tasks, standings, limit)
        by_alias = {m.alias: m for m in models}
        by_id = {t.id: t for t in tasks}
        endpoints = (await self._db.bench.snapshot()).endpoints
        asks: list[Ask] = []
        skipped: list[Skip] = []
        for alias, task_id in pairs:
            part = plan_run([by_alias[alias]], [by_id[task_id]], endpoints, named_models=False)
            asks += part.asks
            skipped += part.skipped
        report = await self.run(RunPlan(tuple(asks), tuple(skipped)), caller=caller)
        return report.summary()

    # ---- reading the record ------------------------------------------------------------------

    async def standings(self, alias: str | None = None) -> list[ModelTally]:
        """Each model's tallies from its newest answers to the tasks as they are now (stale answers to an
        earlier version of a task, or to a task since removed, are left out), with the false claims
        verdicts verified in its panel answers; a model with only those has no shapes."""
        models = {m.id: m for m in await self._db.models.list(include_retired=True)}
        wanted = None
        if alias is not None:
            model = await self.model(alias)
            wanted = [model.id]
        answers = await self.current_answers(wanted)
        tallies = tally(
            ScoredAnswer(
                a.model_id,
                models[a.model_id].alias if a.model_id in models else a.alias,
                a.task_id,
                a.shape,
                Score.from_json(a.score),
                a.asked_at,
            )
            for a in answers
        )
        verified = await self._db.verdicts.false_claims_per_model()
        if wanted is not None:
            verified = {model_id: n for model_id, n in verified.items() if model_id in wanted}
        merged = [replace(t, verified_false=verified.pop(t.model_id, 0)) for t in tallies]
        merged += [
            ModelTally(model_id, models[model_id].alias, (), None, verified_false=n)
            for model_id, n in verified.items()
            if model_id in models
        ]
        return sorted(merged, key=lambda t: (t.alias, t.model_id))

    async def current_answers(self, model_ids: Sequence[int] | None = None) -> list[SuiteAnswer]:
        """The newest answers that answered a task as it is now."""
        catalogue = await self.catalogue()
        newest = await self._db.suite.newest(model_ids=model_ids)
        return [
            a
            for a in newest
            if a.task_id in catalogue.tasks and catalogue.tasks[a.task_id].digest == a.task_digest
        ]

    async def model(self, alias: str) -> ModelRecord:
        """A model by its alias (or a former one), retired or not; NotFound when there is none."""
        model = await self._db.models.get(alias)
        if model is None:
            raise NotFound(f"no model `{alias}` on the bench or among retired models", param="model")
        return model


async def _tell(on_event: OnEvent | None, event: SuiteEvent) -> None:
    if on_event is not None:
        await on_event(event)
