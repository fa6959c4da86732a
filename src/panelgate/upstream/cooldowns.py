"""Which models are cooling down: their provider said to wait, and the wait is not over.

One notion for every room that chooses whom to ask. Pacing learns the waits
(a 429's `Retry-After`, Gemini's `retryDelay`, a used-up window's reset) and
holds calls to the model until then; seating gives such a model's seat to
someone else rather than have a panel wait for it, and route mode asks it
last. They agree because they read the same thing: `Pacer.resting`, which
is shared across gateway processes through the store. A roster is marked
here, in `ModelInfo.cooling_down`, with when each cooldown ends beside it
for the words a person reads.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from datetime import datetime

from panelgate.core.types import ModelInfo

Resting = Mapping[tuple[str, str], datetime]
"""(endpoint, served id) → when its provider's stated wait ends."""


@dataclass(frozen=True)
class Cooldowns:
    roster: Mapping[str, ModelInfo]
    """The roster with each model that is cooling down marked `cooling_down`."""
    until: Mapping[str, datetime] = field(default_factory=dict)
    """Alias → when its cooldown ends, for each marked model."""


def cooled(roster: Mapping[str, ModelInfo], resting: Resting) -> Cooldowns:
    """`roster` with the models `resting` names marked; the same roster when none is resting."""
    if not resting:
        return Cooldowns(roster)
    served = {served_id for _, served_id in resting}
    until = {
        alias: resting[key]
        for alias, model in roster.items()
        if model.served_id in served and (key := (model.endpoint, model.served_id)) in resting
    }
    if not until:
        return Cooldowns(roster)
    marked = dict(roster)
    for alias in until:
        marked[alias] = replace(roster[alias], cooling_down=True)
    return Cooldowns(marked, until)
