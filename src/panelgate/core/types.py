"""The few types every room is typed against.

One canonical request (`PanelRequest`), the roster facts seating needs
(`ModelInfo`, `CollectionInfo`, `GatewayLimits`), the seating result
(`SeatPlan`), a seat's outcome (`SeatResult`) and the event stream the engine
yields (`PanelEvent`). Inbound formats decode into `PanelRequest` and encode
`PanelEvent`s; nothing here knows an API or does I/O.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Literal

Role = Literal["general", "code", "light", "vision", "image"]
Shape = Literal["general", "design", "prose", "review", "code", "enumeration", "quick", "vision", "image"]
ReplyMode = Literal["all", "merged", "route"]
SeatStatus = Literal["ok", "empty", "error", "timeout"]
JUDGEABLE: tuple[SeatStatus, ...] = ("ok", "empty")
"""Seats that answered, so a verdict may judge them; a failure is health, not usefulness."""
"""`timeout`: not done by the caller's deadline (`bench.deadline_s`); recorded so until it ends."""
OfferedTools = Literal["drop", "refuse"]
"""What a panel does with tools a request offers but never used: leave them out, or refuse the request."""
VerdictsOwed = Literal["all", "chats", "none"]
"""Which panels of a collection owe verdicts: all, all but a chat UI's background tasks, or none."""
ExplorerRule = Literal["evidence", "stalest"]
"""How explorer seats are chosen: by the evidence under a staleness floor, or stalest first (the old rule)."""

ROLES: tuple[Role, ...] = ("general", "code", "light", "vision", "image")
SHAPES: tuple[Shape, ...] = (
    "general",
    "design",
    "prose",
    "review",
    "code",
    "enumeration",
    "quick",
    "vision",
    "image",
)
REPLY_MODES: tuple[ReplyMode, ...] = ("all", "merged", "route")
OFFERED_TOOLS: tuple[OfferedTools, ...] = ("drop", "refuse")
VERDICTS_OWED: tuple[VerdictsOwed, ...] = ("all", "chats", "none")
EXPLORER_RULES: tuple[ExplorerRule, ...] = ("evidence", "stalest")

ChatMessage = dict[str, Any]
"""One OpenAI chat message (`role`, `content` as text or a list of parts)."""


@dataclass(frozen=True)
class PanelRequest:
    """What a caller asked, whatever API it spoke.

    `messages` are OpenAI-shaped; images are `image_url` parts inside them.
    `reply` comes from the body (`bench.reply`), `suffix_reply` from the model
    id (`bench/x:merged`); the engine applies body > suffix > collection.
    """

    model: str
    collection: str | None
    messages: list[ChatMessage]
    stream: bool = False
    reply: ReplyMode | None = None
    suffix_reply: ReplyMode | None = None
    nominees: tuple[str, ...] = ()
    options: dict[str, Any] = field(default_factory=dict)
    caller: str = "local"
    caller_key_id: int | None = None
    """The asking gateway key's id (None without a key): whose owed verdicts the panel's seats are."""
    usage_in_stream: bool = False
    """A streamed reply ends with a usage chunk (OpenAI's `stream_options.include_usage`)."""
    tools_offered: int = 0
    """How many of the caller's own tools came with the request. Chat UIs attach theirs to every
    chat, so a panel leaves them out (no seat is sent them) unless the collection refuses."""
    tool_history: bool = False
    """Tool calls or tool results are in the conversation: only route mode can carry on with them."""
    deadline_s: float | None = None
    """Seconds the caller waits for seats (`bench.deadline_s` or `X-Bench-Deadline`); None: every seat."""


@dataclass(frozen=True)
class ModelInfo:
    """A model on the bench as seating sees it (facts already merged)."""

    alias: str
    served_id: str
    endpoint: str
    role: Role = "general"
    ad_hoc: bool = False
    retired: bool = False
    retired_at: datetime | None = None
    retired_why: str = ""
    context_window: int | None = None
    max_output: int | None = None
    vision: bool | None = None
    tools: bool | None = None
    available: bool = True
    cooling_down: bool = False
    model_id: int | None = None
    """The store's id: what evidence follows through renames."""
    held: str = ""
    """Why the model is never called now (a free model that turned paid, until a person allows it)."""
    options: Mapping[str, Any] = field(default_factory=dict, hash=False)
    """Call options a person stored for the model (OpenAI chat names): sent with every call, under
    the caller's own (`core.call_options`)."""


@dataclass(frozen=True)
class CollectionInfo:
    name: str
    members: tuple[str, ...]
    shape: Shape | None = None
    description: str = ""
    tags: tuple[str, ...] = ()
    reply: ReplyMode = "all"
    merger: str = ""
    shadows: int = 0
    """Route mode: other members that answer each turn in the background, for evaluation."""
    offered_tools: OfferedTools = "drop"
    """Tools offered to a panel with no tool call in the history: left out (`drop`) or refused."""
    verdicts_owed: VerdictsOwed = "all"
    """Whose panels owe verdicts: `chats` spares a chat UI's background tasks (titles, tags)."""


@dataclass(frozen=True)
class GatewayLimits:
    max_calls: int = 5
    max_explorers: int = 2
    seat_deadline_s: float = 420.0
    shadow_calls_per_day: int = 100
    """Route shadow calls the whole gateway may make in a UTC day."""
    explorer_rule: ExplorerRule = "evidence"
    """How explorer seats are chosen: by the record (`evidence`) or the least recently seated first."""
    explorer_floor: int = 0
    """Every model that may explore sits at least once in this many panels; 0: the bench's size (≥ 10)."""
    decision_model: str = ""
    """A cheap bench model (alias) asked each panel's shape when explorers are seated; empty: the rules."""
    retry_empty_length: bool = True
    """An empty answer cut at the token limit is asked once more with twice the output budget."""
    detect_quota_notices: bool = True
    """A short 200 answer that is a provider's quota or credit notice counts as that failure."""
    swap_alerts: bool = True
    """A model that keeps answering as another raises an action-needed item (`served_as` is kept anyway)."""
    skip_slow_on_long_prompts: bool = True
    """On a long prompt, explorer candidates the speed test found failing or far slower sit out."""


@dataclass(frozen=True)
class Skip:
    """A model that was named for the panel (or a candidate for an explorer seat) but not asked, and why."""

    seat: Literal["member", "with", "merger", "explorer"]
    alias: str
    why: str

    def as_dict(self) -> dict[str, str]:
        return {"seat": self.seat, "alias": self.alias, "why": self.why}


@dataclass(frozen=True)
class PlannedSeat:
    """One seat of a panel before it is called.

    `label` is what people read (`member`, `explorer`, `explorer 2`,
    `merger`); `suffix` is the call id's tail (`member1`, `explorer2`).
    """

    label: str
    suffix: str
    alias: str
    kind: Literal["member", "explorer", "merger"]


@dataclass(frozen=True)
class SeatPlan:
    seats: tuple[PlannedSeat, ...]
    skipped: tuple[Skip, ...]
    shape: Shape
    shape_by: str
    members: int
    explorers: int


@dataclass(frozen=True)
class TokenUsage:
    """Tokens one call used, or a panel's calls together: what a reply's usage fields report.

    `estimated` when the gateway counted (`core.sizing`) because an upstream reported nothing, so a
    client that bills or budgets by these numbers can tell a guess from a provider's count.
    """

    input: int = 0
    output: int = 0
    estimated: bool = False

    @property
    def total(self) -> int:
        return self.input + self.output

    def __add__(self, other: TokenUsage) -> TokenUsage:
        return TokenUsage(
            self.input + other.input, self.output + other.output, self.estimated or other.estimated
        )

    def as_bench(self) -> dict[str, Any]:
        return {"input": self.input, "output": self.output, "estimated": self.estimated}


@dataclass(frozen=True)
class SeatResult:
    """How one seat went. `answer` is the text; `error` a one-line reason.

    `tokens_in`/`tokens_out` are what the upstream reported (None: it did not say), as the
    record keeps them; `usage` is what the reply reports, estimated where they are None.
    """

    call: str
    label: str
    alias: str
    kind: Literal["member", "explorer", "merger"]
    status: SeatStatus
    seconds: float
    answer: str = ""
    error: str = ""
    tokens_in: int | None = None
    tokens_out: int | None = None
    usage: TokenUsage = field(default_factory=TokenUsage)
    error_kind: str = ""
    """A failure's kind (the upstream taxonomy; `gateway` for a bug of ours), for `/metrics`; else empty."""
    served_as: str | None = None
    """The model the reply named when it was not the one asked (`core.served_model`); else None."""
    attempts: int = 1
    """Times the seat was asked: 2 when an empty answer cut at the token limit was asked again."""

    def as_bench(self) -> dict[str, Any]:
        """The seat's entry in `bench.seats`; `served_as` and `attempts` only when they say something,
        so the entry stays what Benchwarmers 0.3 clients read."""
        entry: dict[str, Any] = {
            "call": self.call,
            "seat": self.label,
            "alias": self.alias,
            "status": self.status,
            "seconds": round(self.seconds, 2),
            "answer": self.answer,
            "error": self.error,
            "usage": self.usage.as_bench(),
        }
        if self.served_as is not None:
            entry["served_as"] = self.served_as
        if self.attempts > 1:
            entry["attempts"] = self.attempts
        return entry


# ---- the engine's event stream -------------------------------------------------
#
# Every event carries `text`: the piece of reply content a streaming format
# appends when it sees the event (empty when there is nothing to show). The
# engine decides the pieces, so streamed and whole replies come from the same
# words and no format knows the markdown rules.


@dataclass(frozen=True)
class Seated:
    """The panel is seated: every later event belongs to this panel."""

    panel: str
    collection: str
    plan: SeatPlan
    reply: ReplyMode
    text: str = ""


@dataclass(frozen=True)
class SeatDone:
    result: SeatResult
    text: str = ""


@dataclass(frozen=True)
class MergeDelta:
    """A piece of the merger's answer as it is written."""

    text: str


@dataclass(frozen=True)
class MergeDone:
    """The merge ended; `result` is the merger seat (None when never called),
    `note` is set when the reply fell back to every answer."""

    result: SeatResult | None
    note: str = ""
    text: str = ""


@dataclass(frozen=True)
class Heartbeat:
    """Nothing happened for a keep-alive interval."""

    text: str = ""


@dataclass(frozen=True)
class Failed:
    """The panel could not finish after the reply started."""

    status: int
    message: str
    text: str = ""


@dataclass(frozen=True)
class PanelTimes:
    """How long a panel took, in seconds from when it began seating: for the APIs whose replies say
    (Ollama's durations, from which clients work out tokens per second)."""

    seated_s: float = 0.0
    """The seats were chosen."""
    first_answer_s: float = 0.0
    """The first seat was done (answered or failed): its section is the reply's first piece."""
    total_s: float = 0.0
    """The panel was finished and recorded."""


@dataclass(frozen=True)
class Finished:
    """The panel is complete and recorded.

    `content` is the whole reply (seats in seat order) for formats that answer
    at once; `text` is the last streamed piece (the footer); `bench` is the
    reply field; `usage` is every seat's and the merger's summed, for each API's own usage fields.
    """

    content: str
    bench: dict[str, Any]
    text: str = ""
    times: PanelTimes = field(default_factory=PanelTimes)
    usage: TokenUsage = field(default_factory=TokenUsage)


PanelEvent = Seated | SeatDone | MergeDelta | MergeDone | Heartbeat | Failed | Finished
