"""CLI Proxy API: one openai-compatibility provider's model list merged and written back.

A connection is one `openai-compatibility` provider, by its `name`; it
serves each model under its alias (or its name), behind the provider's
`prefix/` when it has one. Adding `model` appends `{name, alias}` to that
provider's `models` as read and writes the list back with one `PATCH`
(only `models`: the provider's keys are never read back or sent). Just
before writing, the list is read again: if someone changed it since, or
the provider is gone, nothing is written.

The management API takes the management key and nothing else: without one
nothing is sent, and a refused key is reported once and never sent again,
because the hub bans an address for 30 minutes after five refusals. A 404
means the management API is off (no secret key in its config), a 403 that
remote management is disabled (or the address is banned).

Checked against the management API of CLI Proxy API 7.2 (its handlers and
MANAGEMENT_API.md) through a loopback stand-in: it is a Go program, not on
PyPI.
"""

from __future__ import annotations

from typing import Any, ClassVar

from panelgate.hubs.base import AdminHub, pick_connection, served_elsewhere
from panelgate.hubs.errors import HubDenied, HubRefused, HubUnreachable
from panelgate.hubs.protocol import Connection, HubRequest, Plan, is_checked, version_note
from panelgate.hubs.wire import AdminApi, Answer
from panelgate.store import EndpointRecord

PROVIDERS = "/v0/management/openai-compatibility"


def served_id(provider: dict[str, Any], entry: dict[str, Any]) -> str:
    """The id clients call an entry by: its alias (else its name), behind the provider's prefix."""
    own = str(entry.get("alias") or entry.get("name") or "")
    prefix = str(provider.get("prefix") or "").strip("/")
    return f"{prefix}/{own}" if prefix else own


class CliProxy(AdminHub):
    PROGRAM = "CLI Proxy API"
    SUPPORTS = (
        "adds a model to one openai-compatibility provider's models list (read, merged, re-read, "
        "written back); management key only, never retried"
    )
    CHECKED = ("7.2",)
    KEY_FALLBACK: ClassVar[bool] = False
    KEY_HEADER: ClassVar[str] = "X-Management-Key"

    def __init__(self, endpoint: EndpointRecord, api: AdminApi) -> None:
        super().__init__(endpoint, api)
        self._version: str | None = None
        """Read from the `X-CPA-VERSION` header of the last management answer."""

    async def version(self) -> str | None:
        if self._version is None:
            await self._providers()
        return self._version

    async def connections(self) -> list[Connection]:
        return [_connection(p) for p in await self._providers()]

    async def plan(self, model: str, connection: str) -> Plan:
        providers = await self._providers()
        connections = [_connection(p) for p in providers]
        chosen = pick_connection(connections, connection, self.PROGRAM)
        provider = providers[connections.index(chosen)]
        entries = [e for e in provider.get("models") or [] if isinstance(e, dict)]
        served = served_id(provider, {"name": model})
        already = any(model in (e.get("name"), e.get("alias")) for e in entries) or served in chosen.models
        other = served_elsewhere(connections, served, connection)
        if other is not None and not already:
            raise HubRefused(
                f"`{served}` is served by CLI Proxy API's provider `{other}` already; a second provider "
                "under that id would share its calls: use that one, or give this provider a prefix",
                field="model",
            )
        body = {"name": connection, "value": {"models": [*entries, {"name": model, "alias": model}]}}
        return Plan(
            hub="cliproxy",
            endpoint=self.endpoint.name,
            model=model,
            connection=connection,
            served_id=served,
            requests=(HubRequest("PATCH", PROVIDERS, body),),
            notes=version_note(self.PROGRAM, self._version, self.CHECKED),
            already=already,
            version=self._version,
            checked=is_checked(self._version, self.CHECKED),
        )

    async def before_sending(self, plan: Plan) -> None:
        """Read the provider's list again: stop if it changed since the plan read it, or is gone."""
        wanted = plan.requests[0].body
        now = {str(p.get("name")): p for p in await self._providers()}
        if plan.connection not in now:
            raise self._gone(plan.connection)
        if [e for e in now[plan.connection].get("models") or [] if isinstance(e, dict)] != wanted["value"][
            "models"
        ][:-1]:
            raise HubRefused(
                f"the models of `{plan.connection}` changed while the gateway was adding `{plan.model}` "
                "(someone else edited them); nothing was written: look at the plan again",
                field="connection",
            )

    def write_failed(self, answer: Answer, request: HubRequest) -> Exception:
        if answer.status == 404:
            return self._gone(str(request.body.get("name")))
        return self._refusal(answer) or super().write_failed(answer, request)

    async def _providers(self) -> list[dict[str, Any]]:
        if self.api.key is None:
            raise self.denied_without_key()
        answer = await self.api.call("GET", PROVIDERS)
        self._version = answer.headers.get("X-CPA-VERSION") or self._version
        refusal = self._refusal(answer)
        if refusal is not None:
            raise refusal
        self.expect(answer, "reading its openai-compatibility providers")
        found = answer.body.get("openai-compatibility") if isinstance(answer.body, dict) else None
        if not isinstance(found, list):
            raise HubUnreachable("CLI Proxy API answered without an `openai-compatibility` list")
        return [p for p in found if isinstance(p, dict) and p.get("name")]

    def _refusal(self, answer: Answer) -> HubDenied | None:
        if answer.status == 401:
            return self.api.denied(answer)
        if answer.status == 404:
            return HubDenied(
                f"CLI Proxy API at {self.api.root} has its management API off (404): set "
                "remote-management.secret-key in its config.yaml and restart it",
                field="endpoint",
            )
        if answer.status == 403:
            return HubDenied(
                f"CLI Proxy API at {self.api.root} refused management from this address "
                f"({self.api.said(answer)}): remote management is disabled unless "
                "remote-management.allow-remote is true in its config (or the address is banned after "
                "refused keys)",
                field="endpoint",
            )
        return None

    def _gone(self, name: str) -> HubRefused:
        return HubRefused(
            f"CLI Proxy API no longer has the provider `{name}` (it was removed since the gateway looked); "
            "nothing was written",
            field="connection",
        )


def _connection(provider: dict[str, Any]) -> Connection:
    entries = [e for e in provider.get("models") or [] if isinstance(e, dict)]
    served = sorted({served_id(provider, e) for e in entries} - {""})
    return Connection(str(provider["name"]), str(provider.get("base-url") or ""), tuple(served))
