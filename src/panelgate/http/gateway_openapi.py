"""The model APIs in the app's OpenAPI document, written from the table the gateway front serves.

FastAPI documents only the routes it serves itself (the admin API, `/bench/`),
so the model APIs' operations are added here from `GatewayTable`: a route
added to the table is documented by that alone. Their bodies are the APIs'
own (OpenAI's, Anthropic's, Gemini's, Ollama's), documented by those
vendors; the document names each operation, its path parameters, and that a
refusal comes back in the API's own error shape.
"""

from __future__ import annotations

import re
from typing import Any

from fastapi import FastAPI

from panelgate.http.gateway_table import Api, GatewayRoute, GatewayTable

_PARAMETER = re.compile(r"\{(\w+)(?::\w+)?\}")
_ANY_JSON: dict[str, Any] = {"application/json": {"schema": {}}}


def describe_gateway(app: FastAPI, table: GatewayTable) -> None:
    """Make `app.openapi()` include every route of `table`, built once like the rest of the document."""
    document_without_gateway = app.openapi

    def openapi() -> dict[str, Any]:
        if app.openapi_schema is None:
            document = document_without_gateway()
            paths: dict[str, Any] = document.setdefault("paths", {})
            for api in table.apis:
                for route in api.routes:
                    path = _PARAMETER.sub(r"{\1}", route.path)
                    paths.setdefault(path, {})[route.method.lower()] = _operation(api, route)
            app.openapi_schema = document
        return app.openapi_schema

    app.openapi = openapi  # type: ignore[method-assign]  # FastAPI's documented way to extend the document


def _operation(api: Api, route: GatewayRoute) -> dict[str, Any]:
    operation: dict[str, Any] = {
        "tags": [api.name],
        "summary": route.summary,
        "operationId": f"{route.method.lower()}_{re.sub(r'[^a-z0-9]+', '_', route.path.lower()).strip('_')}",
        "responses": {
            "200": {"description": f"the reply, as {api.name} writes it", "content": _ANY_JSON},
            "4XX": {"description": f"a refusal, in {api.name}'s error shape", "content": _ANY_JSON},
        },
    }
    names = [match.group(1) for match in _PARAMETER.finditer(route.path)]
    if names:
        operation["parameters"] = [
            {"name": name, "in": "path", "required": True, "schema": {"type": "string"}} for name in names
        ]
    if route.method in {"POST", "PUT", "PATCH"}:
        operation["requestBody"] = {
            "required": True,
            "content": {"application/json": {"schema": {"type": "object"}}},
        }
    return operation
