"""What the Models page shows: the roster grouped by the endpoint each model is reached through.

Retired models are grouped too, under the endpoint they were on, or under
"Removed endpoints" when that endpoint is gone. Each model's health is its
status as `GET /api/health` gives it, and a model whose newest answered seat
named another model says which (`served_as`: a provider may be swapping it).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from panelgate.core.health import Health
from panelgate.http.services import Services
from panelgate.store.records import EndpointRecord, ModelRecord


@dataclass(frozen=True)
class EndpointGroup:
    """The models reached through one endpoint; `endpoint` is None for removed endpoints."""

    title: str
    endpoint: EndpointRecord | None
    models: list[ModelRecord] = field(default_factory=list)

    @property
    def on_bench(self) -> int:
        return sum(1 for m in self.models if not m.retired)


@dataclass(frozen=True)
class Roster:
    groups: list[EndpointGroup]
    endpoints: list[EndpointRecord]
    retired_count: int
    health: dict[str, Health]
    """Each checked model's status, by alias."""
    served_as: dict[int, str] = field(default_factory=dict)
    """The model each model's newest answered seat named instead of it, by model id."""


def model_fill(model: ModelRecord) -> dict[str, Any]:
    """What the model dialog opens with: its facts, and `current`, the alias the change is sent to."""
    return {
        "current": model.alias,
        "alias": model.alias,
        "served_id": model.served_id,
        "endpoint": model.endpoint,
        "role": model.role,
        "ad_hoc": model.ad_hoc,
        "context_window": model.context_window,
        "max_output": model.max_output,
        "vision": model.vision,
        "tools": model.tools,
        "retired": model.retired,
        "retired_note": retired_note(model),
    }


def retired_note(model: ModelRecord) -> str:
    if model.retired_at is None:
        return ""
    why = f": {model.retired_why}" if model.retired_why else ""
    return f"Retired {model.retired_at:%Y-%m-%d %H:%M}{why}."


def grouped(endpoints: list[EndpointRecord], models: list[ModelRecord]) -> list[EndpointGroup]:
    groups = {e.name: EndpointGroup(e.name, e) for e in endpoints}
    gone = EndpointGroup("Removed endpoints", None)
    for model in sorted(models, key=lambda m: (m.retired, m.alias.lower())):
        group = groups.get(model.endpoint) if not model.endpoint_gone else None
        (group or gone).models.append(model)
    return [*groups.values(), *([gone] if gone.models else [])]


async def read_roster(services: Services) -> Roster:
    endpoints = await services.db.endpoints.list()
    models = await services.db.models.list(include_retired=True)
    health = {found.alias: found.health for found in await services.health.report()}
    served_as = await services.db.panels.served.last_by_model()
    retired = sum(1 for m in models if m.retired)
    return Roster(grouped(endpoints, models), endpoints, retired, health, served_as)
