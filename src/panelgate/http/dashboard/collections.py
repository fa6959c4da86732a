"""What the Collections page shows: the collections, the bench's models and the gateway limits.

The editor opens with each collection as an export shows it and the models
a collection may take as members: the bench only, since a retired model is
not offered.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from panelgate.core.types import CollectionInfo, GatewayLimits
from panelgate.http.services import Services
from panelgate.store.collections import public
from panelgate.store.records import ModelRecord


@dataclass(frozen=True)
class Collections:
    collections: list[CollectionInfo]
    models: list[ModelRecord]
    limits: GatewayLimits
    editor: dict[str, Any]
    """What the editor's script starts from: each collection by name, and the members it may offer."""


async def read_collections(services: Services) -> Collections:
    collections = await services.db.collections.list()
    models = await services.db.models.list()
    editor = {
        "collections": {c.name: public(c) for c in collections},
        "models": [{"alias": m.alias, "served_id": m.served_id, "endpoint": m.endpoint} for m in models],
    }
    return Collections(collections, models, await services.db.gateway.limits(), editor)
