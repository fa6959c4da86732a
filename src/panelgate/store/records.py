"""The plain records the repositories return and accept.

Frozen dataclasses, no database types: other rooms read them without knowing
how they are stored. Collections and gateway limits use `CollectionInfo` and
`GatewayLimits` from `core.types` directly. Rate rules and route conversations
are here too, not beside their books, so `store.shared.protocols` can name
them without importing the books that take those protocols.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Literal

from panelgate.core.rate_windows import MeasureRule, Window
from panelgate.core.types import ModelInfo, Role, SeatStatus, Skip

EndpointKind = Literal["provider", "aggregator", "hub", "local"]
EndpointApi = Literal["chat", "anthropic", "gemini", "responses"]
EndpointHub = Literal["litellm", "openwebui", "cliproxy"]
SeatKind = Literal["member", "explorer", "merger"]


@dataclass(frozen=True)
class EndpointRecord:
    """A place models are served from. `key_name` names the secret; the secret is never here.

    `header_keys` maps each extra header sent with every call to the key name
    its value is kept under (`store/header_keys.py`): values are secrets too.
    `hub` says which hub program serves behind `base_url` (None for any other
    endpoint), and `admin_key_name` names the secret its admin API takes.
    """

    name: str
    base_url: str
    kind: EndpointKind
    api: EndpointApi
    key_name: str | None
    header_keys: dict[str, str]
    is_default: bool
    created_at: datetime
    updated_at: datetime
    hub: EndpointHub | None = None
    admin_key_name: str | None = None
    preferred: bool = False

    def public(self) -> dict[str, Any]:
        """What an audit row or an export shows of the endpoint."""
        return {
            "name": self.name,
            "base_url": self.base_url,
            "kind": self.kind,
            "api": self.api,
            "key_name": self.key_name,
            "headers": {name: {"key_name": key_name} for name, key_name in self.header_keys.items()},
            "default": self.is_default,
            "hub": self.hub,
            "admin_key_name": self.admin_key_name,
            "preferred": self.preferred,
        }


@dataclass(frozen=True)
class ModelRecord:
    """A model on the bench (or retired from it), with the facts set by hand.

    `endpoint` is the endpoint's name; for a retired model whose endpoint was
    since removed it is the name it had, and `endpoint_gone` is true.
    `restore` holds what undoing the retirement needs (its collections and
    places in them); it is None while the model is on the bench.
    """

    id: int
    alias: str
    served_id: str
    endpoint: str
    role: Role
    ad_hoc: bool
    context_window: int | None
    max_output: int | None
    vision: bool | None
    tools: bool | None
    options: dict[str, Any]
    retired_at: datetime | None
    retired_by: str | None
    retired_why: str
    restore: dict[str, Any] | None
    created_at: datetime
    endpoint_gone: bool = False
    former_aliases: tuple[str, ...] = ()

    @property
    def retired(self) -> bool:
        return self.retired_at is not None

    def public(self) -> dict[str, Any]:
        """What an audit row shows of the model."""
        return {
            "alias": self.alias,
            "served_id": self.served_id,
            "endpoint": self.endpoint,
            "role": self.role,
            "ad_hoc": self.ad_hoc,
            "context_window": self.context_window,
            "max_output": self.max_output,
            "vision": self.vision,
            "tools": self.tools,
            "options": dict(self.options),
        }

    def to_info(self, cooling_down: bool = False) -> ModelInfo:
        return ModelInfo(
            alias=self.alias,
            served_id=self.served_id,
            endpoint=self.endpoint,
            role=self.role,
            ad_hoc=self.ad_hoc,
            retired=self.retired,
            retired_at=self.retired_at,
            retired_why=self.retired_why,
            context_window=self.context_window,
            max_output=self.max_output,
            vision=self.vision,
            tools=self.tools,
            available=not self.endpoint_gone,
            cooling_down=cooling_down,
            model_id=self.id,
            options=dict(self.options),
        )


@dataclass(frozen=True)
class PanelRecord:
    """One panel as recorded. `prompt_preview` is at most 200 characters of text.

    `skipped` may be given as `Skip`s or their `as_dict()` form; it reads back as `Skip`s.
    `seats` is counted by `Panels.record` from the seats it is given.
    """

    id: str
    collection: str
    at: datetime
    shape: str
    shape_by: str
    reply: Literal["all", "merged"]
    caller: str = "local"
    caller_key_id: int | None = None
    """The asking gateway key's id; None without a key (`caller` is the name shown)."""
    note: str = ""
    skipped: Sequence[Skip | Mapping[str, str]] = ()
    prompt_preview: str = ""
    seats: int = 0
    owes_verdicts: bool = True
    """False: its seats are left out of every "verdicts owed" list (they can still be judged)."""
    options: Mapping[str, Any] = field(default_factory=dict)
    """The call options its caller sent (OpenAI chat names); each seat got them over its model's own."""


@dataclass(frozen=True)
class SeatRecord:
    """One seat of a recorded panel; `alias` is the name the model had then."""

    call: str
    panel: str
    position: int
    label: str
    kind: SeatKind
    alias: str
    status: SeatStatus
    seconds: float
    answer: str = ""
    error: str = ""
    tokens_in: int | None = None
    tokens_out: int | None = None
    model_id: int | None = None
    served_as: str | None = None
    """The model the reply named when it was not the one asked; None: the one asked, or none named."""
    attempts: int = 1
    """Times the seat was asked (2: an empty answer cut at the token limit was asked again)."""


@dataclass(frozen=True)
class OwedSeat:
    """A seat of a caller's panel that answered and has no verdict yet."""

    call: str
    panel: str
    collection: str
    at: datetime
    label: str
    alias: str
    shape: str = "general"
    """The panel's shape: the shape its verdict will count under."""
    preview: str = ""
    """The start of the panel's prompt, as the store keeps it."""


@dataclass(frozen=True)
class VerdictRecord:
    """A person's verdict on one call; the latest for a call is the current one."""

    id: int
    call: str
    useful: bool
    note: str
    real: tuple[str, ...]
    false: tuple[str, ...]
    at: datetime
    actor: str
    better_than: tuple[str, ...] = ()
    """Calls of the same panel whose answers this one beat (pairwise verdicts), sorted."""


@dataclass(frozen=True)
class AuditRecord:
    """One change to what people edit: who, when, what, before and after."""

    id: int
    at: datetime
    actor: str
    entity: str
    key: str
    action: str
    before: dict[str, Any] | None = None
    after: dict[str, Any] | None = None


@dataclass(frozen=True)
class RateRule:
    id: int
    endpoint: str
    served_id: str | None
    """None: the rule holds for everything the connection serves, together."""
    measure: MeasureRule
    window: Window
    most: int

    def covers(self, endpoint: str, served_id: str) -> bool:
        return self.endpoint == endpoint and self.served_id in (None, served_id)


@dataclass(frozen=True)
class StatedRow:
    endpoint: str
    served_id: str
    measure: str
    most: int | None
    remaining: int | None
    resets_at: datetime | None
    retry_at: datetime | None
    quota: str
    style: str
    updated_at: datetime


@dataclass(frozen=True)
class ConversationRecord:
    key: str
    id: str
    collection: str
    caller: str
    alias: str
    """The model the conversation sticks to: the one that answered its last turn."""
    answered_by: tuple[str, ...]
    """Every model that answered a turn, in order; the n-th one's evidence call is `<id>.<n>`."""
    turns: int
    started_at: datetime
    last_at: datetime


@dataclass(frozen=True)
class TurnRecord:
    call: str
    conversation: str
    turn: int
    at: datetime
    collection: str
    caller: str
    alias: str
    status: str
    seconds: float
    first_token_s: float | None = None
    tool_calls: int = 0
    finish: str | None = None
    tokens_in: int | None = None
    tokens_out: int | None = None
    tokens_reasoning: int | None = None
    tried: tuple[dict[str, str], ...] = field(default_factory=tuple)
    """The members that failed before this one answered: `{"alias", "error"}` each."""
    error: str = ""
    purpose: str = "turn"
    """`turn` (the caller's answer) or `shadow` (another member answering the same turn, for evaluation)."""
    answer: str = ""
    """Kept for shadows only, so they can be read and judged; a turn's answer went to its caller."""
