"""Checking a batch of models a person asked to onboard, all or nothing, before any is queued.

Every refusal names the item and field at fault (`items[2].served_id`) and
says what to do instead. In order: the batch's own shape (not empty, at
most `MAX_ITEMS`, no model or alias twice); each endpoint exists; the model
is not on the bench already, nor retired from that endpoint (Restore brings
that one back), nor waiting in the queue; its alias is free. Last, and
only when all that passed, each endpoint's listing is asked once: a served
id it does not list is refused with the closest ids it does list. An
endpoint whose listing does not answer is given the benefit of the doubt:
the probe will tell.

A model on the bench whose onboarding ended without being done (it did not
answer, or it was stopped) may be onboarded again under its alias: its
register step then finds it on the bench, and the probe runs anew.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence

from panelgate.engine.onboarding_candidates import served_ids
from panelgate.engine.served_check import listing_hint
from panelgate.store import Database, EndpointRecord, ModelRecord
from panelgate.store.errors import Invalid
from panelgate.store.onboarding_book import NewItem
from panelgate.store.rules import check_alias
from panelgate.upstream import UpstreamClient, UpstreamError

MAX_ITEMS = 50


async def check_batch(db: Database, client: UpstreamClient, items: Sequence[NewItem]) -> None:
    """Raise `Invalid` for the first item that cannot be onboarded; return when every one can."""
    if not items:
        raise Invalid("`items` is empty: name at least one model to onboard", field="items")
    if len(items) > MAX_ITEMS:
        raise Invalid(
            f"`items` holds {len(items)} models; onboard at most {MAX_ITEMS} at once", field="items"
        )
    _refuse_twice(items)
    endpoints = {e.name: e for e in await db.endpoints.list()}
    models = await db.models.list(include_retired=True)
    waiting = {(item.endpoint, item.served_id): item for item in await db.onboarding.waiting()}
    waiting_aliases = {item.alias.lower(): item for item in waiting.values()}
    for index, item in enumerate(items):
        at = f"items[{index}]"
        check_alias(item.alias, f"{at}.alias")
        if item.endpoint not in endpoints:
            known = ", ".join(sorted(endpoints)) or "none yet; add one first"
            raise Invalid(f"no endpoint named `{item.endpoint}`; endpoints: {known}", field=f"{at}.endpoint")
        if (queued := waiting.get((item.endpoint, item.served_id))) is not None:
            raise Invalid(
                f"`{item.served_id}` on `{item.endpoint}` is in the onboarding queue already "
                f"(item {queued.id}, {queued.state})",
                field=f"{at}.served_id",
            )
        await _refuse_on_bench(db, item, models, at)
        _refuse_taken_alias(item, models, at)
        if (other := waiting_aliases.get(item.alias.lower())) is not None:
            raise Invalid(
                f"alias `{item.alias}` is taken by `{other.served_id}` waiting in the onboarding queue; "
                "give another alias",
                field=f"{at}.alias",
            )
    await _refuse_unlisted(client, items, endpoints)


def _refuse_twice(items: Sequence[NewItem]) -> None:
    seen: dict[tuple[str, str], int] = {}
    aliases: dict[str, int] = {}
    for index, item in enumerate(items):
        key = (item.endpoint, item.served_id)
        if key in seen:
            raise Invalid(
                f"`{item.served_id}` on `{item.endpoint}` is asked for twice (items {seen[key]} and {index})",
                field=f"items[{index}].served_id",
            )
        if (first := aliases.get(item.alias.lower())) is not None:
            raise Invalid(
                f"alias `{item.alias}` is asked for twice (items {first} and {index}); give one of them "
                "another `alias`",
                field=f"items[{index}].alias",
            )
        seen[key] = index
        aliases[item.alias.lower()] = index


async def _refuse_on_bench(db: Database, item: NewItem, models: Sequence[ModelRecord], at: str) -> None:
    for model in models:
        if (model.endpoint, model.served_id) != (item.endpoint, item.served_id) or model.endpoint_gone:
            continue
        if model.retired:
            raise Invalid(
                f"`{item.served_id}` on `{item.endpoint}` was retired from the bench as `{model.alias}`; "
                f"restore it instead (POST /api/models/{model.alias}/restore), which keeps its record",
                field=f"{at}.served_id",
            )
        last = await db.onboarding.last_for_model(model.id)
        if last is None or not last.finished or last.state == "done":
            raise Invalid(
                f"`{item.served_id}` on `{item.endpoint}` is on the bench already as `{model.alias}`",
                field=f"{at}.served_id",
            )
        if item.alias != model.alias:
            raise Invalid(
                f"`{item.served_id}` on `{item.endpoint}` is on the bench as `{model.alias}` from an "
                f"onboarding that ended {last.state}; onboard it again as `{model.alias}` (alias)",
                field=f"{at}.alias",
            )


def _refuse_taken_alias(item: NewItem, models: Sequence[ModelRecord], at: str) -> None:
    lowered = item.alias.lower()
    for model in models:
        ours = (model.endpoint, model.served_id) == (item.endpoint, item.served_id) and not model.retired
        if ours:
            continue
        if model.alias.lower() == lowered:
            where = "a retired model" if model.retired else f"`{model.served_id}` on `{model.endpoint}`"
            raise Invalid(
                f"alias `{item.alias}` is taken by {where}; give another alias", field=f"{at}.alias"
            )
        if lowered in (former.lower() for former in model.former_aliases):
            raise Invalid(
                f"alias `{item.alias}` is an earlier name of `{model.alias}` and keeps pointing at it; "
                "give another alias",
                field=f"{at}.alias",
            )


async def _refuse_unlisted(
    client: UpstreamClient, items: Sequence[NewItem], endpoints: dict[str, EndpointRecord]
) -> None:
    names = sorted({item.endpoint for item in items})
    listings = await asyncio.gather(*(_listed(client, endpoints[name]) for name in names))
    listed = dict(zip(names, listings, strict=True))
    for index, item in enumerate(items):
        served = listed[item.endpoint]
        if served is None or item.served_id in served:
            continue
        hint = listing_hint(item.served_id, served)
        raise Invalid(
            f"`{item.endpoint}` does not serve `{item.served_id}` (its model listing does not name it){hint}",
            field=f"items[{index}].served_id",
        )


async def _listed(client: UpstreamClient, endpoint: EndpointRecord) -> set[str] | None:
    try:
        return set(await served_ids(client, endpoint))
    except UpstreamError:
        return None
