"""LiteLLM proxy: a new deployment through its admin API, copying a sibling's connection settings.

A connection is where a deployment's calls go: its `api_base` host, or its
provider prefix when it has none (`anthropic/…`). Adding `model` to one
sends a single `POST /model/new` whose settings are a sibling deployment's
on that connection (api_base, api_version, credential name, headers) and
whose tag names the connection; a key is never sent: the sibling's key
reaches the new deployment through its named credential, or LiteLLM's
environment. Headers the proxy shows masked are left out and named in the
plan, since sending the mask would replace the real value.

`/model/new` only works with the proxy's database and `STORE_MODEL_IN_DB`;
the readiness probe says whether a database is connected, and a proxy that
keeps its models in config.yaml says so when asked to add one: both are
refused with what to change. Checked against LiteLLM 1.108.7 and 1.110.2
(config mode, for reads and refusals) and a loopback stand-in of the documented database-
mode endpoints (for the add itself).
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any
from urllib.parse import urlsplit

from panelgate.hubs.base import AdminHub, pick_connection, served_elsewhere
from panelgate.hubs.errors import HubRefused, HubUnreachable
from panelgate.hubs.protocol import Connection, HubRequest, Plan, is_checked, version_note
from panelgate.hubs.wire import Answer

COPIED = ("api_base", "api_version", "litellm_credential_name", "custom_llm_provider")
"""Connection settings copied from the sibling as they are (none of them a secret)."""
HEADER_FIELDS = ("extra_headers", "headers")
MASK = "***"


def connection_of(deployment: dict[str, Any]) -> str:
    """The connection a deployment calls: its api_base's host, else its provider."""
    params = deployment.get("litellm_params") or {}
    base = params.get("api_base")
    if isinstance(base, str) and base:
        return urlsplit(base).netloc or base
    return provider_of(deployment)


def provider_of(deployment: dict[str, Any]) -> str:
    model = str((deployment.get("litellm_params") or {}).get("model") or "")
    if "/" in model:
        return model.split("/", 1)[0]
    return str((deployment.get("model_info") or {}).get("litellm_provider") or "openai")


def copied_settings(sibling: dict[str, Any], model: str) -> tuple[dict[str, Any], list[str]]:
    """The new deployment's `litellm_params` from its sibling's, and notes on what was left out."""
    params = sibling.get("litellm_params") or {}
    settings: dict[str, Any] = {"model": f"{provider_of(sibling)}/{model}"}
    settings.update({k: params[k] for k in COPIED if isinstance(params.get(k), str) and params[k]})
    notes: list[str] = []
    for field in HEADER_FIELDS:
        headers = params.get(field)
        if not isinstance(headers, dict) or not headers:
            continue
        masked = sorted(name for name, value in headers.items() if MASK in str(value))
        kept = {name: value for name, value in headers.items() if name not in masked}
        if kept:
            settings[field] = kept
        if masked:
            notes.append(
                f"headers {', '.join(masked)} left out: LiteLLM shows their values masked; "
                "set them on the new deployment by hand if it needs them"
            )
    if "litellm_credential_name" not in settings:
        notes.append(
            "the sibling names no credential, and no key is ever sent: the new deployment uses the "
            "key LiteLLM finds in its own environment for the provider, if any"
        )
    return settings, notes


class LiteLLM(AdminHub):
    PROGRAM = "LiteLLM proxy"
    SUPPORTS = (
        "adds a deployment (POST /model/new) to a connection that already has one, copying its "
        "api_base, credential name and unmasked headers; needs the proxy's database"
    )
    CHECKED = ("1.108", "1.110")

    async def version(self) -> str | None:
        return (await self._readiness()).get("litellm_version")

    async def connections(self) -> list[Connection]:
        return _grouped(await self._deployments())

    async def plan(self, model: str, connection: str) -> Plan:
        deployments = await self._deployments()
        connections = _grouped(deployments)
        chosen = pick_connection(connections, connection, self.PROGRAM)
        other = served_elsewhere(connections, model, connection)
        if other is not None:
            raise HubRefused(
                f"`{model}` is served by the LiteLLM proxy through `{other}` already; another deployment "
                "under that name would share its traffic: pick that connection or another model",
                field="model",
            )
        readiness = await self._readiness()
        version = readiness.get("litellm_version")
        sibling = next(d for d in deployments if connection_of(d) == connection)
        settings, notes = copied_settings(sibling, model)
        body = {"model_name": model, "litellm_params": settings, "model_info": {"tags": [connection]}}
        if all(not (d.get("model_info") or {}).get("db_model") for d in deployments):
            notes.append(
                "every deployment on this proxy comes from its config file; it takes new ones only "
                "with STORE_MODEL_IN_DB=True"
            )
        return Plan(
            hub="litellm",
            endpoint=self.endpoint.name,
            model=model,
            connection=connection,
            served_id=model,
            requests=(HubRequest("POST", "/model/new", body),),
            notes=(*notes, *version_note(self.PROGRAM, version, self.CHECKED)),
            already=model in chosen.models,
            blocked=self._no_database(readiness, model),
            version=version,
            checked=is_checked(version, self.CHECKED),
        )

    def write_failed(self, answer: Answer, request: HubRequest) -> Exception:
        said = self.api.said(answer)
        if "STORE_MODEL_IN_DB" in said:
            return HubRefused(
                f"the LiteLLM proxy at {self.api.root} keeps its models in its config file "
                "(STORE_MODEL_IN_DB is not True), so /model/new was refused; set STORE_MODEL_IN_DB=True "
                "and restart it, or add the deployment to its config.yaml by hand",
                field="endpoint",
            )
        if "no db connected" in said.lower():
            return HubRefused(self._no_database({"db": "Not connected"}, "the model") or "", field="endpoint")
        return super().write_failed(answer, request)

    def _no_database(self, readiness: dict[str, Any], model: str) -> str | None:
        db = readiness.get("db")
        if db == "connected":
            return None
        return (
            f"the LiteLLM proxy at {self.api.root} has no database (its readiness says db: {db}), and "
            f"/model/new keeps deployments there: give it one (DATABASE_URL) with STORE_MODEL_IN_DB=True, "
            f"or add `{model}` to its config.yaml by hand"
        )

    async def _deployments(self) -> list[dict[str, Any]]:
        answer = self.expect(await self.api.call("GET", "/model/info"), "listing its deployments")
        data = answer.body.get("data") if isinstance(answer.body, dict) else None
        if not isinstance(data, list):
            raise HubUnreachable(f"{self.PROGRAM} answered /model/info without a `data` list")
        return [d for d in data if isinstance(d, dict) and isinstance(d.get("model_name"), str)]

    async def _readiness(self) -> dict[str, Any]:
        """The readiness probe (db), with the version from its detailed form when the short one lacks it."""
        public = await self.api.call("GET", "/health/readiness")
        found = dict(public.body) if isinstance(public.body, dict) else {}
        if "litellm_version" not in found:
            details = await self.api.call("GET", "/health/readiness/details")
            if details.status in (401, 403):
                raise self.api.denied(details)
            if isinstance(details.body, dict):
                found.update(details.body)
        return found


def _grouped(deployments: list[dict[str, Any]]) -> list[Connection]:
    models: dict[str, set[str]] = defaultdict(set)
    detail: dict[str, str] = {}
    for deployment in deployments:
        name = connection_of(deployment)
        models[name].add(deployment["model_name"])
        base = (deployment.get("litellm_params") or {}).get("api_base")
        detail.setdefault(name, base if isinstance(base, str) and base else f"provider {name}")
    return [Connection(name, detail[name], tuple(sorted(models[name]))) for name in sorted(models)]
