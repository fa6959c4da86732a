"""Records to JSON (dataclasses with datetimes become plain objects), and the checks every admin
request's fields and parameters share."""

from __future__ import annotations

import dataclasses
from datetime import datetime
from typing import Any

from starlette.requests import Request

from panelgate.core.errors import BadRequest
from panelgate.store.rules import storable


def plain(value: Any) -> Any:
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: plain(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, datetime):
        return value.isoformat()
    if isinstance(value, dict):
        return {k: plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [plain(v) for v in value]
    return value


def only_fields(body: dict[str, Any], allowed: set[str]) -> dict[str, Any]:
    """The body, refusing names the route does not take (a typo must not pass silently)."""
    unknown = sorted(set(body) - allowed)
    if unknown:
        raise BadRequest(
            f"unknown field `{unknown[0]}`; this route takes {', '.join(sorted(allowed))}", param=unknown[0]
        )
    return body


def text_field(body: dict[str, Any], name: str, *, required: bool = True) -> str | None:
    value = body.get(name)
    if value is None and not required:
        return None
    if not isinstance(value, str) or not value.strip():
        raise BadRequest(f"`{name}` must be a non-empty string", param=name)
    return value.strip()


def flag(body: dict[str, Any], name: str) -> bool:
    """A true/false field; left out or null is false (`"false"`, a string, must not read as true)."""
    value = body.get(name)
    if value is not None and not isinstance(value, bool):
        raise BadRequest(f"`{name}` must be true or false", param=name)
    return bool(value)


async def storable_parameters(request: Request) -> None:
    """Refuse a path or query value no database can look up (a NUL character: PostgreSQL fails on it),
    naming the parameter, instead of failing in the store."""
    for name, value in (*request.path_params.items(), *request.query_params.multi_items()):
        if not storable(str(value)):
            raise BadRequest(f"`{name}` must not contain the NUL character (\\x00)", param=name)
