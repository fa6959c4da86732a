"""What every adapter shares: its endpoint and admin API, and `add` as "plan again, then send the plan"."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Iterable
from typing import ClassVar

from panelgate.hubs.errors import HubDenied, HubRefused, NoSuchConnection
from panelgate.hubs.protocol import Added, Connection, HubRequest, Plan
from panelgate.hubs.wire import AdminApi, Answer
from panelgate.store import EndpointRecord


class AdminHub(ABC):
    PROGRAM: ClassVar[str]
    SUPPORTS: ClassVar[str]
    CHECKED: ClassVar[tuple[str, ...]]
    KEY_FALLBACK: ClassVar[bool] = True
    """Whether the endpoint's own key is tried when no admin key is stored (never for CLI Proxy API)."""
    KEY_HEADER: ClassVar[str] = "Authorization"

    def __init__(self, endpoint: EndpointRecord, api: AdminApi) -> None:
        self.endpoint = endpoint
        self.api = api

    @staticmethod
    def root_of(base_url: str) -> str:
        """The admin API's root, from the endpoint's model API base (`…/v1` by default)."""
        return base_url.rstrip("/").removesuffix("/v1")

    @abstractmethod
    async def version(self) -> str | None: ...

    @abstractmethod
    async def connections(self) -> list[Connection]: ...

    @abstractmethod
    async def plan(self, model: str, connection: str) -> Plan: ...

    async def add(self, model: str, connection: str) -> Added:
        """Plan from fresh reads, refuse what the plan blocks, send the rest in order."""
        plan = await self.plan(model, connection)
        if plan.already:
            return Added(plan)
        if plan.blocked is not None:
            raise HubRefused(plan.blocked, field="endpoint")
        await self.before_sending(plan)
        for request in plan.requests:
            answer = await self.api.call(request.method, request.path, request.wire_body)
            if not answer.ok:
                raise self.write_failed(answer, request)
        await self.after_sending(plan)
        return Added(plan, plan.requests)

    async def before_sending(self, plan: Plan) -> None:
        """A last check just before the first write (CLI Proxy API re-reads its list here)."""
        return None

    async def after_sending(self, plan: Plan) -> None:
        """What follows the writes (Open WebUI waits for the model to be listed)."""
        return None

    def write_failed(self, answer: Answer, request: HubRequest) -> Exception:
        if answer.status in (401, 403):
            return self.api.denied(answer)
        return self.api.failed(answer, f"sending {request.method} {request.path}")

    def expect(self, answer: Answer, doing: str) -> Answer:
        """`answer` when it succeeded, else the error that says why, for a read."""
        if answer.ok:
            return answer
        if answer.status in (401, 403):
            raise self.api.denied(answer)
        raise self.api.failed(answer, doing)

    def denied_without_key(self) -> HubDenied:
        return HubDenied(
            f"{self.PROGRAM} needs an admin key and `{self.endpoint.name}` has none stored; "
            "set one on the endpoint (`admin_key`)",
            field="admin_key",
        )


def pick_connection(found: Iterable[Connection], name: str, program: str) -> Connection:
    """The connection called `name`, or a refusal listing the ones there are."""
    connections = list(found)
    for connection in connections:
        if connection.name == name:
            return connection
    known = ", ".join(c.name for c in connections) or "none"
    raise NoSuchConnection(
        f"{program} has no connection `{name}`; its connections: {known}", field="connection"
    )


def served_elsewhere(connections: Iterable[Connection], served_id: str, mine: str) -> str | None:
    """The other connection that already serves `served_id`, if one does."""
    for connection in connections:
        if connection.name != mine and served_id in connection.models:
            return connection.name
    return None
