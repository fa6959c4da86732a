"""The contract every inbound API implements for route mode.

Route mode hands the caller's request, translated into one OpenAI
chat-completions body, to one member, and relays the member's answer back in
the caller's API. A route format does both translations for its API; it
never knows which member answered or how failover went, beyond what the
events say.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence
from typing import Any, Protocol

from panelgate.core.route import RouteEvent, RouteRequest


class RouteFormat(Protocol):
    def decode_route(self, body: dict[str, Any], *, caller: str) -> RouteRequest:
        """This API's request body as a route turn; raise a `GatewayError` for anything refused."""
        ...

    def render_route(self, request: RouteRequest, events: Sequence[RouteEvent]) -> dict[str, Any]:
        """The whole reply; `events` hold one `RouteStarted` and end with `RouteEnded`."""
        ...

    def stream_route(self, request: RouteRequest, events: AsyncIterator[RouteEvent]) -> AsyncIterator[bytes]:
        """The reply as the events come: `RouteStarted` first, `RouteChunk`s and `Heartbeat`s,
        then `RouteEnded` (finish, usage, `bench`) or `RouteBroken` (an error in this API's
        stream form); nothing after either."""
        ...
