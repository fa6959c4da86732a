"""What one caller may use: its name, its collections, whether it may seat ad hoc models.

A gateway key with a collection scope may ask only those collections, sees
only them in every listing, and can judge or read back only their calls.
Without a key (loopback, keys not required) or with an unscoped key,
everything is open. The rules live here once, so the HTTP routes and the
MCP tools refuse the same things with the same words.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from panelgate.core.errors import BadRequest, Forbidden
from panelgate.core.types import ModelInfo


@dataclass(frozen=True)
class CallerScope:
    name: str = "local"
    """Who is asking, as recorded on panels and verdicts: the key's name, or `local`."""
    collections: frozenset[str] | None = None
    """The collections the caller may use; None for every one."""
    ad_hoc: bool = True
    """Whether `with` may seat ad hoc models."""
    key_id: int | None = None
    """The gateway key's id; None without a key. Names are shown, ids decide whose panels are whose."""

    def allows(self, collection: str | None) -> bool:
        return self.collections is None or collection in self.collections

    def visible(self, names: Iterable[str]) -> list[str]:
        """The names of `names` this caller may use, sorted."""
        return sorted(name for name in names if self.allows(name))

    def check_collection(self, collection: str | None) -> None:
        """Refuse (403) a collection outside the scope, before anything is asked of a model.

        A scoped caller that names no collection is told its own collections
        here, since the engine's refusal would list every collection there is.
        """
        if self.collections is None or collection in self.collections:
            return
        names = ", ".join(f"bench/{name}" for name in sorted(self.collections))
        if collection is None:
            raise BadRequest(
                f"name a collection as the model: this gateway key may use {names}", param="model"
            )
        raise Forbidden(f"this gateway key may use {names} only, not bench/{collection}", param="model")

    def record_of(self, collection: str | None) -> str | None:
        """The collection a record read is about: all of them (None) for an open scope that names none.

        A scoped caller sees only its own collections' verdicts, so naming
        none means its one collection, and with several it must choose.
        """
        if self.collections is not None and collection is None:
            if len(self.collections) != 1:
                listed = ", ".join(f"bench/{c}" for c in sorted(self.collections))
                asked = f"name one of this key's collections: ?collection= {listed}"
                raise BadRequest(asked, param="collection")
            collection = next(iter(self.collections))
        self.check_collection(collection)
        return collection

    def check_nominees(self, nominees: Sequence[str], roster: Mapping[str, ModelInfo]) -> None:
        """Refuse (403) seating ad hoc models through `with` for a caller not allowed to."""
        if self.ad_hoc or not nominees:
            return
        ad_hoc = [alias for alias in nominees if alias in roster and roster[alias].ad_hoc]
        if ad_hoc:
            named = ", ".join(f"`{alias}`" for alias in ad_hoc)
            raise Forbidden(
                f"{named} is ad hoc: seating it with `with` needs a gateway key made with ad_hoc allowed",
                param="with",
            )


OPEN_SCOPE = CallerScope()
"""A caller without a key: loopback with keys not required."""
