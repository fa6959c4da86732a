"""The one way in: a request is read as a panel or a route turn, its caller's scope checked, its run started.

Every API's HTTP handler and the MCP `ask` tool start their work here, so a
scoped gateway key is refused the same things with the same words whichever
way it comes, and the panel-or-route decision is made in one place. An API
adapter hands over an `Asked`: the model it names, the body's `bench.reply`
if any, and how to read the body as either kind of request, since a route
turn is read differently from a panel (its tools pass to the member).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

from panelgate.core.caller_scope import CallerScope
from panelgate.core.route import RouteRequest
from panelgate.core.types import PanelRequest, ReplyMode
from panelgate.engine.panel import PanelRun, PanelRunner
from panelgate.engine.reply_mode import reply_mode
from panelgate.engine.route import RouteRun, RouteRunner
from panelgate.store import Database


@dataclass(frozen=True)
class Asked:
    """A request as its API adapter read it, before the gateway has decided how to answer it."""

    model: str
    """The model the request names (the path's, for APIs that put it there)."""
    reply: ReplyMode | None
    """The body's `bench.reply`, when it sets one."""
    as_panel: Callable[[str], PanelRequest]
    """Reads the request as a panel, for the caller named."""
    as_route: Callable[[str], RouteRequest] | None = None
    """Reads it as a route turn; None where only panels are asked (the MCP tool, countTokens)."""


@dataclass(frozen=True)
class StartedPanel:
    request: PanelRequest
    run: PanelRun


@dataclass(frozen=True)
class StartedTurn:
    request: RouteRequest
    run: RouteRun


class Entry:
    def __init__(self, db: Database, panels: PanelRunner, routes: RouteRunner) -> None:
        self.db = db
        self.panels = panels
        self.routes = routes

    async def start(self, asked: Asked, scope: CallerScope) -> StartedPanel | StartedTurn:
        """The run `asked` stands for, started once `scope` allows it; raises a `GatewayError` if not."""
        if asked.as_route is not None and await reply_mode(self.db, asked.model, asked.reply) == "route":
            turn = asked.as_route(scope.name)
            await self.admit(scope, turn.collection)
            return StartedTurn(turn, await self.routes.start(turn))
        panel = asked.as_panel(scope.name)
        if scope.key_id is not None:  # the adapters name the caller; its key's id is the scope's to add
            panel = replace(panel, caller_key_id=scope.key_id)
        await self.admit(scope, panel.collection, panel.nominees)
        return StartedPanel(panel, await self.panels.start(panel))

    async def admit(self, scope: CallerScope, collection: str | None, nominees: Sequence[str] = ()) -> None:
        """Refuse what `scope` may not use: a collection outside it, or ad hoc models named in `with`.

        Also for requests that start no run (counting tokens) but must not
        tell a scoped caller about a collection it cannot use.
        """
        scope.check_collection(collection)
        if nominees and not scope.ad_hoc:
            scope.check_nominees(nominees, (await self.db.bench.snapshot()).roster)
