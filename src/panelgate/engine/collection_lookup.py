"""Finding the collection a request names, or saying which ones there are."""

from __future__ import annotations

from collections.abc import Mapping

from panelgate.core.errors import BadRequest, NotFound
from panelgate.core.types import CollectionInfo


def find_collection(name: str | None, collections: Mapping[str, CollectionInfo]) -> CollectionInfo:
    """The collection called `name`; a refusal listing every collection when there is none."""
    if name is not None and name in collections:
        return collections[name]
    listing = sorted(collections.values(), key=lambda c: c.name)
    offer = (
        "; ".join(
            f"bench/{c.name}"
            + (f" — {c.description}" if c.description else "")
            + (f" [{', '.join(c.tags)}]" if c.tags else "")
            for c in listing
        )
        or "none yet (make one with `panelgate collection save` or PUT /api/collections/<name>)"
    )
    if name is None:
        raise BadRequest(
            f"name a collection as the model, e.g. bench/<name>. Collections: {offer}", param="model"
        )
    raise NotFound(f"no collection named `{name}`. Collections: {offer}", param="model")
