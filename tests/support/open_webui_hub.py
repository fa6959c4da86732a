"""A stand-in for Open WebUI 0.12: the endpoints its admin API documents, for the hub adapter's tests.

The real package pulls in torch and gigabytes more, so it does not start
within CI's budget. This stand-in keeps the shapes 0.12.4 serves:
`/api/version`; `/openai/config` and `/openai/config/update` (admin only;
the connection keys come back as stored, or masked with `mask_keys`);
`/api/models`, built as Open WebUI builds it (a connection's Model IDs list
when it is not empty, else everything its upstream lists; `prefix_id.` in
front; `urlIdx`); `/api/v1/models/model?id=` (404 when missing) and
`/api/v1/models/create`; and `/api/chat/completions`.
"""

from __future__ import annotations

import copy
from typing import Any

from tests.support.json_hub import HubCall, JsonHub, Reply, bearer, chat_answer


class OpenWebUIHub(JsonHub):
    def __init__(
        self,
        admin_key: str,
        config: dict[str, Any],
        upstream_models: dict[int, list[str]],
        *,
        user_key: str = "",
        version: str = "0.12.4",
        mask_keys: bool = False,
    ) -> None:
        super().__init__()
        self.admin_key = admin_key
        self.user_key = user_key
        self.config = copy.deepcopy(config)
        self.upstream_models = upstream_models
        self.version = version
        self.mask_keys = mask_keys
        self.records: dict[str, dict[str, Any]] = {}

    def answer(self, call: HubCall) -> Reply:
        if (call.method, call.path) == ("GET", "/api/version"):
            return 200, {"version": self.version, "deployment_id": "loopback"}, {}
        key = bearer(call)
        if key not in (self.admin_key, self.user_key) or not key:
            return (
                401,
                {"detail": "Your session has expired or the token is invalid. Please sign in again."},
                {},
            )
        if (call.method, call.path) == ("GET", "/api/models"):
            return 200, {"data": self.listed()}, {}
        if (call.method, call.path) == ("POST", "/api/chat/completions"):
            return chat_answer(call)
        if key != self.admin_key:
            return 401, {"detail": "You do not have permission to access this resource."}, {}
        route = {
            ("GET", "/openai/config"): self._config,
            ("POST", "/openai/config/update"): self._update,
            ("GET", "/api/v1/models/model"): self._record,
            ("POST", "/api/v1/models/create"): self._create,
        }.get((call.method, call.path))
        return route(call) if route else (404, {"detail": "Not Found"}, {})

    def listed(self) -> list[dict[str, Any]]:
        found = []
        configs = self.config["OPENAI_API_CONFIGS"]
        for index, _url in enumerate(self.config["OPENAI_API_BASE_URLS"]):
            settings = configs.get(str(index), {})
            ids = settings.get("model_ids") or self.upstream_models.get(index, [])
            prefix = settings.get("prefix_id")
            for model in ids:
                served = f"{prefix}.{model}" if prefix else model
                found.append({"id": served, "name": served, "owned_by": "openai", "urlIdx": index})
        return found

    def _config(self, call: HubCall) -> Reply:
        shown = copy.deepcopy(self.config)
        if self.mask_keys:
            shown["OPENAI_API_KEYS"] = [k[:3] + "*****" if k else "" for k in shown["OPENAI_API_KEYS"]]
        return 200, shown, {}

    def _update(self, call: HubCall) -> Reply:
        form = call.body
        self.config = {
            "ENABLE_OPENAI_API": form.get("ENABLE_OPENAI_API"),
            "OPENAI_API_BASE_URLS": form["OPENAI_API_BASE_URLS"],
            "OPENAI_API_KEYS": form["OPENAI_API_KEYS"],
            "OPENAI_API_CONFIGS": form["OPENAI_API_CONFIGS"],
        }
        return 200, copy.deepcopy(self.config), {}

    def _record(self, call: HubCall) -> Reply:
        found = self.records.get(call.query.get("id", ""))
        return (
            (200, found, {})
            if found
            else (404, {"detail": "We could not find what you're looking for :/"}, {})
        )

    def _create(self, call: HubCall) -> Reply:
        form = call.body
        if form["id"] in self.records:
            return (
                401,
                {"detail": "Uh-oh! This id is already registered. Please choose another id string."},
                {},
            )
        self.records[form["id"]] = form
        return 200, form, {}
