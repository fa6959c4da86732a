"""Which model roles each shape of work admits.

A shape names the kind of work a prompt asks for; a model's role names what
it is good at. Explorer seats are only filled by models whose role the
panel's shape admits, so a quick question never rotates in a heavyweight
code model and a text prompt never seats an image maker.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

from panelgate.core.types import Role, Shape

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
