"""Which model is asked which task in a run, decided before anything is sent.

A run names models and tasks, or leaves them out: then every model the
bench would seat automatically (not retired, not ad hoc, not an image
maker) and every task that is not a draft. A model named by a person is
asked even when ad hoc (they asked for it); a retired model, an image maker
or one whose endpoint is gone is refused with why, before any call. A task
too large for a model's known context window is skipped for that model and
said so, rather than sent to fail.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from panelgate.core.errors import BadRequest, NotFound
from panelgate.core.sizing import estimate_tokens, fits
from panelgate.store import EndpointRecord, ModelRecord
from panelgate.store.errors import Conflict
from panelgate.suite.library import Catalogue
from panelgate.suite.prompt import task_messages
from panelgate.suite.task import Task


@dataclass(frozen=True)
class Ask:
    """One task for one model, and the endpoint that model is served on."""

    model: ModelRecord
    endpoint: EndpointRecord
    task: Task


@dataclass(frozen=True)
class Skip:
    """A task a model was not asked, and why."""

    alias: str
    task_id: str
    why: str


@dataclass(frozen=True)
class RunPlan:
    asks: tuple[Ask, ...]
    skipped: tuple[Skip, ...] = ()

    @property
    def models(self) -> list[str]:
        return list(dict.fromkeys(ask.model.alias for ask in self.asks))


def automatic(model: ModelRecord) -> bool:
    """Whether runs that name no model (and scheduled passes) ask this one."""
    return not model.retired and not model.ad_hoc and model.role != "image"


def chosen_models(
    named: Sequence[str] | None, bench: Sequence[ModelRecord], found: Mapping[str, ModelRecord | None]
) -> list[ModelRecord]:
    """The named models (`found` maps each name to its record), or every automatic one on `bench`."""
    if not named:
        models = [m for m in bench if automatic(m)]
        if not models:
            raise BadRequest(
                "no model to ask: the bench has no model that is not retired, ad hoc or an image maker"
            )
        return models
    chosen = []
    for alias in dict.fromkeys(named):
        model = found.get(alias)
        if model is None:
            raise NotFound(f"no model `{alias}` on the bench", param="models")
        if model.retired:
            raise Conflict(
                f"`{model.alias}` is retired; restore it before asking it the suite", field="models"
            )
        if model.role == "image":
            raise Conflict(f"`{model.alias}` makes images and cannot answer review tasks", field="models")
        chosen.append(model)
    return chosen


def chosen_tasks(named: Sequence[str] | None, catalogue: Catalogue) -> list[Task]:
    """The named tasks (drafts too: a person asked), or every task that is not a draft."""
    if not named:
        tasks = catalogue.runnable()
        if not tasks:
            raise BadRequest("no task to ask: every task is a draft, and the starter pack did not load")
        return tasks
    missing = [task_id for task_id in dict.fromkeys(named) if task_id not in catalogue.tasks]
    if missing:
        raise NotFound(f"no task `{missing[0]}`; `GET /api/suite/tasks` lists them", param="tasks")
    return [catalogue.tasks[task_id] for task_id in dict.fromkeys(named)]


def plan_run(
    models: Sequence[ModelRecord],
    tasks: Sequence[Task],
    endpoints: Mapping[str, EndpointRecord],
    *,
    named_models: bool,
) -> RunPlan:
    """Every model asked every task, in that order, but for the pairs that cannot be asked."""
    asks: list[Ask] = []
    skipped: list[Skip] = []
    for model in models:
        endpoint = None if model.endpoint_gone else endpoints.get(model.endpoint)
        if endpoint is None:
            if named_models:
                raise Conflict(f"`{model.alias}`'s endpoint is not configured any more", field="models")
            skipped += [
                Skip(model.alias, task.id, "its endpoint is not configured any more") for task in tasks
            ]
            continue
        for task in tasks:
            size = estimate_tokens(task_messages(task))
            if fits(model.to_info(), size):
                asks.append(Ask(model, endpoint, task))
            else:
                why = f"about {size:,} tokens, more than its context window of {model.context_window:,}"
                skipped.append(Skip(model.alias, task.id, why))
    return RunPlan(tuple(asks), tuple(skipped))
