"""The small contract every inbound API adapter implements.

An adapter turns its API's request body into the canonical `PanelRequest`,
and the engine's `PanelEvent`s into its API's whole reply or stream; it also
shapes errors the way that API's official client expects to raise them. It
never knows how seats are chosen, and the engine never knows which API was
spoken.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence
from typing import Any, Protocol

from panelgate.core.errors import GatewayError
from panelgate.core.types import Finished, PanelEvent, PanelRequest, Seated
from panelgate.formats.route_protocol import RouteFormat


class InboundFormat(Protocol):
    name: str
    stream_media_type: str

    def decode(self, body: dict[str, Any], *, caller: str) -> PanelRequest:
        """Read a request body; raise a `GatewayError` for anything refused."""
        ...

    def render(self, request: PanelRequest, events: Sequence[PanelEvent]) -> dict[str, Any]:
        """The whole reply once the panel finished (the last event is `Finished`)."""
        ...

    def stream(self, request: PanelRequest, events: AsyncIterator[PanelEvent]) -> AsyncIterator[bytes]:
        """The reply as the events come, ending after `Finished` or `Failed`."""
        ...

    def error_body(self, error: GatewayError) -> dict[str, Any]:
        """This API's error body for a refusal."""
        ...

    def reply_headers(self, events: Sequence[PanelEvent]) -> dict[str, str]:
        """Headers for the whole reply, for an API whose body has no room for `bench`."""
        ...


class ApiAdapter(InboundFormat, RouteFormat, Protocol):
    """One inbound API both ways: a panel (`InboundFormat`) and a route turn (`RouteFormat`).

    Each API's package (`formats/<api>/`) has one class of this shape, made of
    its `panel` and `route` halves, and its HTTP routes hold that one object.
    """


class BenchInBody:
    """For the APIs whose replies carry `bench` in the body: no extra headers."""

    def reply_headers(self, events: Sequence[PanelEvent]) -> dict[str, str]:
        return {}


def finished_panel(events: Sequence[PanelEvent]) -> tuple[Finished, str]:
    """The `Finished` event that ends a completed run, and the panel's id (from `Seated`)."""
    finished = events[-1]
    assert isinstance(finished, Finished), "render is only called on a run that finished"
    return finished, next(e.panel for e in events if isinstance(e, Seated))
