"""The route template a request was served by, as FastAPI's router leaves it in the ASGI scope.

Logs (and anything else counting requests by route) want the template,
`/api/panels/{panel_id}`, never the path asked, whose ids would make every
line different. FastAPI leaves the route in `scope["route"]`, but a route of
an included router knows its path without the router's prefix
(`/panels/{panel_id}`): the prefix is what the path asked has before the part
the route matched.
"""

from __future__ import annotations

from typing import Any

from starlette.types import Scope


def route_template(scope: Scope) -> str | None:
    """The template of the FastAPI route that served `scope`, prefix included; None if none did."""
    template: str | None = getattr(scope.get("route"), "path_format", None)
    if not template:
        return None
    params: dict[str, Any] = scope.get("path_params", {})
    try:
        matched = template.format(**params)
    except (KeyError, IndexError, ValueError):
        return template
    path: str = scope["path"]
    return path.removesuffix(matched) + template if path.endswith(matched) else template
