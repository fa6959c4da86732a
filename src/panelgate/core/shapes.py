"""Which model roles each shape of work admits, and a shape as a caller names it.

A shape names the kind of work a prompt asks for; a model's role names what
it is good at. Explorer seats are only filled by models whose role the
panel's shape admits, so a quick question never rotates in a heavyweight
code model and a text prompt never seats an image maker.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

from panelgate.core.errors import BadRequest
from panelgate.core.types import SHAPES, Role, Shape

ROLES_FOR_SHAPE: Mapping[Shape, tuple[Role, ...]] = MappingProxyType(
    {
        "general": ("general",),
        "design": ("general",),
        "prose": ("general",),
        "review": ("general", "code"),
        "code": ("general", "code"),
        "enumeration": ("general", "code", "light"),
        "quick": ("general", "light"),
        "vision": ("general", "light", "vision"),
        "image": ("image",),
    }
)


def admits(shape: Shape, role: Role) -> bool:
    """True when a model of `role` may take an explorer seat on a `shape` panel."""
    return role in ROLES_FOR_SHAPE[shape]


def checked_shape(shape: str | None) -> str | None:
    """The shape a record read names (None, left out or blank: every shape); a 400 naming the shapes
    when it is none of them, the same words from the API, the dashboard and MCP."""
    asked = (shape or "").strip() or None
    if asked is not None and asked not in SHAPES:
        raise BadRequest(f"`{asked}` is no shape; shapes are {', '.join(SHAPES)}", param="shape")
    return asked
