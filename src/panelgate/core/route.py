"""Route mode's canonical turn: what the caller asked, and the events of the answer.

Whatever API the caller speaks, its request is translated into one OpenAI
chat-completions body (`RouteRequest.body`: messages with tool calls and
tool results, tools, tool_choice, response_format, sampling fields), which
goes to one member as sent. The member's answer comes back as OpenAI chunks,
read once by the engine (`turn.TurnReader`) and handed to the caller's
format as `RouteChunk`s carrying both the chunk (chat completions relays it
as is) and its pieces (every other API writes those in its own words).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

from panelgate.core.turn import ToolCall, TurnPiece, TurnUsage
from panelgate.core.types import Heartbeat, ReplyMode

TOOL_FIELDS = frozenset({"tools", "tool_choice", "parallel_tool_calls"})
"""Body fields that offer tools to a member or steer its use of them."""
ROUTE_FIELDS_DROPPED = frozenset({"model", "stream", "stream_options", "bench", "with", "n"})
"""Body fields the gateway decides itself; everything else passes to the member as sent."""


@dataclass(frozen=True)
class RouteRequest:
    """One turn of an agent's conversation, as an OpenAI chat-completions body.

    `body` has no `model`, `stream`, `stream_options`, `bench` or `with`
    (see `ROUTE_FIELDS_DROPPED`); `model` is the name replies give:
    `bench/<collection>`. `reply`/`suffix_reply` are as in `PanelRequest`.
    """

    model: str
    collection: str | None
    body: dict[str, Any]
    stream: bool = False
    caller: str = "local"
    reply: ReplyMode | None = None
    suffix_reply: ReplyMode | None = None
    session: str | None = None
    """The agent session the client named (a header or body field), which keys the conversation."""

    @property
    def messages(self) -> list[dict[str, Any]]:
        messages = self.body.get("messages")
        return messages if isinstance(messages, list) else []

    @property
    def has_tools(self) -> bool:
        return bool(self.body.get("tools"))

    @property
    def has_tool_history(self) -> bool:
        """Tool calls or tool results in the conversation: the tools are in use, not just offered."""
        return any(
            isinstance(m, dict) and (m.get("role") == "tool" or m.get("tool_calls")) for m in self.messages
        )

    def without_tools(self) -> RouteRequest:
        """The same turn with its tools (and the fields that steer them) left out."""
        body = {k: v for k, v in self.body.items() if k not in TOOL_FIELDS}
        return replace(self, body=body)


@dataclass(frozen=True)
class RouteStarted:
    """The member that answers this turn, known once its first piece of answer arrived."""

    conversation: str
    call: str
    alias: str
    served_id: str


@dataclass(frozen=True)
class RouteChunk:
    """One chunk of the member's answer (its `model` renamed to what the caller asked) and its pieces."""

    chunk: dict[str, Any]
    pieces: tuple[TurnPiece, ...]


@dataclass(frozen=True)
class RouteEnded:
    """The turn is over and recorded. `bench` is the reply's `bench` field."""

    bench: dict[str, Any]
    finish_reason: str | None
    usage: TurnUsage
    text: str = ""
    reasoning: str = ""
    tool_calls: tuple[ToolCall, ...] = field(default_factory=tuple)


@dataclass(frozen=True)
class RouteBroken:
    """The member failed after part of its answer went out: the stream says so and ends."""

    message: str
    bench: dict[str, Any]


RouteEvent = RouteStarted | RouteChunk | RouteEnded | RouteBroken | Heartbeat
