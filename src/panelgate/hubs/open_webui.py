"""Open WebUI: a model id added to one OpenAI connection's model list, and the model's record.

A connection is one of Open WebUI's OpenAI API base URLs, named by its host
(`host#2` for a second one on the same host); what it serves is read from
`/api/models`, whose entries carry the connection's index (`urlIdx`) and
its `prefix_id`. Adding `model`:

- the connection's "Model IDs" list is changed only when it is in use (not
  empty): an empty list means "whatever the upstream lists", and adding one
  id would hide every other. The whole config is written back exactly as
  read with that one list longer, so it must hold the connection keys as
  they are: when Open WebUI hands them back masked, nothing is written.
- a model record (public, tagged with the connection's tags) is created
  when none exists, so every user can pick it.
- an id another connection already serves is refused: two connections
  under one id would make Open WebUI pick one silently.

Checked against the endpoints Open WebUI 0.12.4 documents and serves
(`/api/version`, `/openai/config`, `/openai/config/update`, `/api/models`,
`/api/v1/models/model`, `/api/v1/models/create`), through a loopback
stand-in: the real package needs gigabytes of dependencies.
"""

from __future__ import annotations

import asyncio
import copy
import re
import time
from typing import Any, ClassVar
from urllib.parse import urlsplit

from panelgate.hubs.base import AdminHub, pick_connection, served_elsewhere
from panelgate.hubs.errors import HubRefused, HubUnreachable
from panelgate.hubs.protocol import Connection, HubRequest, Plan, is_checked, version_note

MASKED = re.compile(r"\*{3,}|•{3,}|…")
PUBLIC = [{"principal_type": "user", "principal_id": "*", "permission": "read"}]
KEYS_SHOWN = "[the connection keys as read, unchanged]"


class OpenWebUI(AdminHub):
    PROGRAM = "Open WebUI"
    SUPPORTS = (
        "adds a model id to an OpenAI connection's Model IDs list when that list is in use, and "
        "creates the model's public record"
    )
    CHECKED = ("0.12",)
    LISTED_WAIT_S: ClassVar[float] = 20.0

    @staticmethod
    def root_of(base_url: str) -> str:
        return base_url.rstrip("/").removesuffix("/v1").removesuffix("/api")

    async def version(self) -> str | None:
        answer = await self.api.call("GET", "/api/version")
        body = answer.body if answer.ok and isinstance(answer.body, dict) else {}
        found = body.get("version")
        return found if isinstance(found, str) else None

    async def connections(self) -> list[Connection]:
        return _connections(await self._config(), await self._listed())

    async def plan(self, model: str, connection: str) -> Plan:
        config, listed = await self._config(), await self._listed()
        connections = _connections(config, listed)
        chosen = pick_connection(connections, connection, self.PROGRAM)
        index = connections.index(chosen)
        configs = config.get("OPENAI_API_CONFIGS") or {}
        slot = str(index) if str(index) in configs else chosen.detail
        settings = configs.get(slot) or {}
        prefix = settings.get("prefix_id") or ""
        served = f"{prefix}.{model}" if prefix else model
        other = served_elsewhere(connections, served, connection)
        if other is not None:
            raise HubRefused(
                f"`{served}` is served by Open WebUI's connection `{other}` already; a second connection "
                "under that id would be picked silently: use that one",
                field="model",
            )
        requests: list[HubRequest] = []
        notes: list[str] = []
        blocked: str | None = None
        model_ids = list(settings.get("model_ids") or [])
        if not model_ids:
            notes.append(
                f"`{connection}` lists every model its upstream serves: its Model IDs list stays empty"
            )
            if served not in chosen.models:
                blocked = (
                    f"`{connection}` lists every model its upstream serves and `{model}` is not among "
                    "them: its upstream does not serve that id"
                )
        elif model not in model_ids:
            requests.append(_config_write(config, slot, [*model_ids, model]))
            if any(MASKED.search(str(key)) for key in config.get("OPENAI_API_KEYS") or []):
                blocked = (
                    "Open WebUI handed its connection keys back masked; writing its config back would "
                    f"replace them with the masks, so nothing is written: add `{model}` to the Model IDs "
                    f"of `{connection}` in its admin settings"
                )
        if not await self._has_record(served):
            requests.append(HubRequest("POST", "/api/v1/models/create", _record(served, model, settings)))
        version = await self.version()
        return Plan(
            hub="openwebui",
            endpoint=self.endpoint.name,
            model=model,
            connection=connection,
            served_id=served,
            requests=tuple(requests),
            notes=(*notes, *version_note(self.PROGRAM, version, self.CHECKED)),
            already=not requests,
            blocked=blocked,
            version=version,
            checked=is_checked(version, self.CHECKED),
        )

    async def after_sending(self, plan: Plan) -> None:
        """Wait (a while) until Open WebUI lists the id: it caches its model list."""
        deadline = time.monotonic() + self.LISTED_WAIT_S
        while time.monotonic() < deadline:
            if any(m.get("id") == plan.served_id for m in await self._listed()):
                return
            await asyncio.sleep(0.5)

    async def _config(self) -> dict[str, Any]:
        answer = self.expect(await self.api.call("GET", "/openai/config"), "reading its OpenAI connections")
        if not isinstance(answer.body, dict) or not isinstance(answer.body.get("OPENAI_API_BASE_URLS"), list):
            raise HubUnreachable("Open WebUI answered /openai/config without its OPENAI_API_BASE_URLS")
        return answer.body

    async def _listed(self) -> list[dict[str, Any]]:
        answer = self.expect(await self.api.call("GET", "/api/models"), "listing its models")
        data = answer.body.get("data") if isinstance(answer.body, dict) else None
        return [m for m in data if isinstance(m, dict)] if isinstance(data, list) else []

    async def _has_record(self, served: str) -> bool:
        answer = await self.api.call("GET", "/api/v1/models/model", params={"id": served})
        if answer.status == 404:
            return False
        return self.expect(answer, "reading the model's record").body is not None


def _connections(config: dict[str, Any], listed: list[dict[str, Any]]) -> list[Connection]:
    urls = [str(url) for url in config.get("OPENAI_API_BASE_URLS") or []]
    hosts = [urlsplit(url).netloc or url for url in urls]
    found = []
    for index, url in enumerate(urls):
        name = hosts[index] if hosts.count(hosts[index]) == 1 else f"{hosts[index]}#{index}"
        served = sorted(str(m["id"]) for m in listed if m.get("urlIdx") == index and m.get("id"))
        found.append(Connection(name, url, tuple(served)))
    return found


def _config_write(config: dict[str, Any], slot: str, model_ids: list[str]) -> HubRequest:
    """The config as read with one connection's Model IDs replaced; keys shown as a placeholder."""
    written = copy.deepcopy(config)
    written["OPENAI_API_CONFIGS"][slot]["model_ids"] = model_ids
    shown = {**written, "OPENAI_API_KEYS": KEYS_SHOWN}
    return HubRequest("POST", "/openai/config/update", shown, sent=written)


def _record(served: str, model: str, settings: dict[str, Any]) -> dict[str, Any]:
    tags = [t for t in settings.get("tags") or [] if isinstance(t, dict) and t.get("name")]
    return {
        "id": served,
        "base_model_id": None,
        "name": model,
        "meta": {"description": None, "tags": tags},
        "params": {},
        "access_grants": PUBLIC,
        "is_active": True,
    }
