"""A stand-in for a LiteLLM proxy in database mode: the admin endpoints panelgate's adapter uses.

The real proxy (`litellm[proxy]`, started in tests in config mode) cannot
keep models in a database here: that needs Prisma, which downloads its
engines. So adding a deployment is tested against this stand-in of what
LiteLLM 1.108 documents and answers: `/health/readiness` (`db`),
`/health/readiness/details` (`litellm_version`), `/model/info` (header
values masked as LiteLLM masks them), `POST /model/new` (refused without a
database, or with `store_model_in_db` off, in LiteLLM's words), and the
OpenAI `/v1/models` and `/v1/chat/completions` a gateway calls (with the
master key or one of `virtual_keys`).
"""

from __future__ import annotations

import copy
import uuid
from typing import Any

from tests.support.json_hub import HubCall, JsonHub, Reply, bearer, chat_answer

NO_DB = (
    "{'error': \"No DB Connected. Here's how to do it - https://docs.litellm.ai/docs/proxy/virtual_keys\"}"
)
NO_STORE = "{'error': \"Set `'STORE_MODEL_IN_DB='True'` in your env to enable this feature.\"}"


def masked(value: str) -> str:
    """A header value as LiteLLM's /model/info shows a secret-looking one."""
    return value[:4] + "*" * max(len(value) - 8, 3) + value[-4:]


class LiteLLMHub(JsonHub):
    def __init__(
        self,
        master_key: str,
        deployments: list[dict[str, Any]],
        *,
        version: str = "1.108.7",
        database: bool = True,
        store_models: bool = True,
        secret_headers: tuple[str, ...] = ("authorization", "x-api-key"),
        virtual_keys: tuple[str, ...] = (),
    ) -> None:
        super().__init__()
        self.master_key = master_key
        self.deployments = copy.deepcopy(deployments)
        self.version = version
        self.database = database
        self.store_models = store_models
        self.secret_headers = secret_headers
        self.virtual_keys = virtual_keys

    def answer(self, call: HubCall) -> Reply:
        if (call.method, call.path) == ("GET", "/health/readiness"):
            return 200, {"status": "healthy", "db": "connected" if self.database else "Not connected"}, {}
        if call.path.startswith("/v1/") and bearer(call) in self.virtual_keys:
            return self._models(call) if call.method == "GET" else chat_answer(call)
        if bearer(call) != self.master_key:
            message = "Authentication Error, Invalid proxy server token passed."
            return 401, {"error": {"message": message, "type": "auth_error", "code": "401"}}, {}
        route = {
            ("GET", "/health/readiness/details"): self._details,
            ("GET", "/model/info"): self._info,
            ("POST", "/model/new"): self._new,
            ("GET", "/v1/models"): self._models,
            ("POST", "/v1/chat/completions"): chat_answer,
        }.get((call.method, call.path))
        return route(call) if route else (404, {"detail": "Not Found"}, {})

    def _details(self, call: HubCall) -> Reply:
        db = "connected" if self.database else "Not connected"
        return 200, {"status": "healthy", "db": db, "litellm_version": self.version}, {}

    def _info(self, call: HubCall) -> Reply:
        shown = copy.deepcopy(self.deployments)
        for deployment in shown:
            params = deployment["litellm_params"]
            params.pop("api_key", None)
            headers = params.get("extra_headers") or {}
            for name in headers:
                if name.lower() in self.secret_headers:
                    headers[name] = masked(headers[name])
        return 200, {"data": shown}, {}

    def _new(self, call: HubCall) -> Reply:
        if not self.database:
            return 500, {"error": {"message": NO_DB, "type": "auth_error", "code": "500"}}, {}
        if not self.store_models:
            return 500, {"error": {"message": NO_STORE, "type": "auth_error", "code": "500"}}, {}
        body = call.body
        model_id = uuid.uuid4().hex
        info = {**(body.get("model_info") or {}), "id": model_id, "db_model": True}
        self.deployments.append(
            {"model_name": body["model_name"], "litellm_params": body["litellm_params"], "model_info": info}
        )
        return 200, {"model_id": model_id, "model_name": body["model_name"]}, {}

    def _models(self, call: HubCall) -> Reply:
        names = sorted({d["model_name"] for d in self.deployments})
        return 200, {"object": "list", "data": [{"id": n, "object": "model"} for n in names]}, {}
