"""A stand-in for CLI Proxy API's management API (7.2), which bans an address after five refused keys.

CLI Proxy API is a Go program, not on PyPI; this stand-in keeps what its
management handlers do for `/v0/management/openai-compatibility` (GET the
providers, PATCH one by name: `{"name", "value": {"models": [...]}}`, 404
"item not found" for an unknown one), the `X-CPA-VERSION` header, and its
gate: 404 everywhere when management is off, 403 "remote management
disabled" for a remote caller, 401 for a missing or wrong key, and after
five of those a 403 ban. `edit_after_reads(n, provider, models)` changes a
provider's models right after the n-th read, as a person editing at the
same moment would. `/v1/models` and `/v1/chat/completions` take a client
key, as the proxy's own API does.
"""

from __future__ import annotations

import copy
from typing import Any

from tests.support.json_hub import HubCall, JsonHub, Reply, bearer, chat_answer

MANAGEMENT = "/v0/management/"
PROVIDERS = "/v0/management/openai-compatibility"


class CliProxyHub(JsonHub):
    def __init__(
        self,
        management_key: str,
        providers: list[dict[str, Any]],
        *,
        client_key: str = "",
        version: str = "7.2.140",
        management_on: bool = True,
        remote_allowed: bool = True,
    ) -> None:
        super().__init__()
        self.management_key = management_key
        self.client_key = client_key
        self.providers = copy.deepcopy(providers)
        self.version = version
        self.management_on = management_on
        self.remote_allowed = remote_allowed
        self.failures = 0
        self.banned = False
        self.reads = 0
        self._edit: tuple[int, str, list[dict[str, Any]] | None] | None = None

    def edit_after_reads(self, reads: int, provider: str, models: list[dict[str, Any]] | None) -> None:
        """After the `reads`-th read, give `provider` these models (None: remove the provider)."""
        self._edit = (reads, provider, models)

    def answer(self, call: HubCall) -> Reply:
        if call.path.startswith(MANAGEMENT):
            return self._management(call)
        if bearer(call) != self.client_key:
            return 401, {"error": "Missing API key"}, {}
        if (call.method, call.path) == ("GET", "/v1/models"):
            data = [{"id": served, "object": "model"} for served in self.served()]
            return 200, {"object": "list", "data": data}, {}
        if (call.method, call.path) == ("POST", "/v1/chat/completions"):
            return chat_answer(call)
        return 404, {"error": "not found"}, {}

    def served(self) -> list[str]:
        found = []
        for provider in self.providers:
            prefix = provider.get("prefix")
            for entry in provider.get("models") or []:
                own = entry.get("alias") or entry["name"]
                found.append(f"{prefix}/{own}" if prefix else own)
        return sorted(found)

    def _management(self, call: HubCall) -> Reply:
        if not self.management_on:
            return 404, {"error": "not found"}, {}
        version = {"X-CPA-VERSION": self.version}
        if self.banned:
            return 403, {"error": "IP banned due to too many failed attempts. Try again in 30m0s"}, version
        if not self.remote_allowed:
            return 403, {"error": "remote management disabled"}, version
        given = call.headers.get("x-management-key") or bearer(call)
        if given != self.management_key:
            self.failures += 1
            self.banned = self.failures >= 5
            return 401, {"error": "invalid management key" if given else "missing management key"}, version
        if (call.method, call.path) == ("GET", PROVIDERS):
            shown = {"openai-compatibility": copy.deepcopy(self.providers)}
            self.reads += 1
            self._maybe_edit()
            return 200, shown, version
        if (call.method, call.path) == ("PATCH", PROVIDERS):
            return (*self._patch(call.body), version)
        return 404, {"error": "not found"}, version

    def _maybe_edit(self) -> None:
        if self._edit is None or self._edit[0] != self.reads:
            return
        _, name, models = self._edit
        if models is None:
            self.providers = [p for p in self.providers if p["name"] != name]
        else:
            for provider in self.providers:
                if provider["name"] == name:
                    provider["models"] = models

    def _patch(self, body: dict[str, Any]) -> tuple[int, Any]:
        for provider in self.providers:
            if provider["name"] == body.get("name"):
                if "models" in body["value"]:
                    provider["models"] = body["value"]["models"]
                return 200, {"status": "ok"}
        return 404, {"error": "item not found"}
