"""The one small seam every hub adapter implements, and the plain records it answers with.

A hub (LiteLLM proxy, Open WebUI, CLI Proxy API) serves many upstream
connections behind one base URL and has an admin API to add a model to one
of them. An adapter says what it can do (`SUPPORTS`) and which versions of
the program it was checked against (`CHECKED`: a version outside them is a
note, never a refusal), reads the hub's `version()` and `connections()`, and
makes a `plan()`: a dry run that writes nothing and lists exactly the
requests `add()` would send. `add()` makes the plan again from fresh reads
and sends it, so what a person saw in a plan is what the hub receives.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, ClassVar, Protocol


@dataclass(frozen=True)
class Connection:
    """One upstream a hub serves models from, as the adapter names it, and the ids served through it."""

    name: str
    detail: str
    """Where it points (a base URL or a provider), never its key."""
    models: tuple[str, ...]


@dataclass(frozen=True)
class HubRequest:
    """One write an add sends: method, path under the hub's root, and the JSON body shown in a plan.

    `sent` is the body actually sent when it differs from the one shown: a
    hub's own settings read back from it and written back unchanged, keys
    included (Open WebUI's whole connection config). Those keys are the
    hub's, never the gateway's, and are never shown.
    """

    method: str
    path: str
    body: Any
    sent: Any = field(default=None, repr=False, compare=False)

    @property
    def wire_body(self) -> Any:
        return self.body if self.sent is None else self.sent


@dataclass(frozen=True)
class Plan:
    """What adding `model` through `connection` would do; `blocked` says why add would refuse."""

    hub: str
    endpoint: str
    model: str
    connection: str
    served_id: str
    """The id the hub will list the model under: what the bench calls it by."""
    requests: tuple[HubRequest, ...] = ()
    notes: tuple[str, ...] = ()
    already: bool = False
    """The hub serves it through that connection already: add sends nothing."""
    blocked: str | None = None
    version: str | None = None
    checked: bool = False


@dataclass(frozen=True)
class Added:
    """An add that went through (or had nothing to do): the plan it followed and the writes sent."""

    plan: Plan
    sent: tuple[HubRequest, ...] = field(default_factory=tuple)


class Hub(Protocol):
    """One hub endpoint's admin API, as the gateway uses it."""

    PROGRAM: ClassVar[str]
    """The program's name as people know it."""
    SUPPORTS: ClassVar[str]
    """What `add` can do there, in a sentence."""
    CHECKED: ClassVar[tuple[str, ...]]
    """Version prefixes (`1.108`) the adapter was checked against."""

    async def version(self) -> str | None: ...

    async def connections(self) -> list[Connection]: ...

    async def plan(self, model: str, connection: str) -> Plan: ...

    async def add(self, model: str, connection: str) -> Added: ...


def is_checked(version: str | None, checked: tuple[str, ...]) -> bool:
    """Whether `version` is one of the checked ones (`1.108.7` matches `1.108`)."""
    return version is not None and any(version == c or version.startswith(c + ".") for c in checked)


def version_note(program: str, version: str | None, checked: tuple[str, ...]) -> tuple[str, ...]:
    """The advice for a version outside `checked` (empty when it is one of them)."""
    if is_checked(version, checked):
        return ()
    seen = "an unknown version" if version is None else f"version {version}"
    return (
        f"{program} reports {seen}; this adapter was checked against {', '.join(checked)}: "
        "it goes ahead, but look at the result",
    )
