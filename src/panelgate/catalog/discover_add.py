"""Adding a Discover row: which route it takes onto the bench, under which alias, or why it cannot.

Refusals say what to do: a pair the catalogs do not offer (404, with the
reason when they list it but Discover leaves it out), an endpoint that is
not one of the row's routes (400, naming the routes), a model already on
the bench or waiting in the queue, or one no endpoint serves yet (409: add
an endpoint for its provider, or connect it, then add it again).

The alias is the served id's own (as onboarding gives it) unless another
model has it; then the provider's name is added, then a number. Pure.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Mapping

from panelgate.catalog.discover import Key
from panelgate.catalog.discover_reach import Route, Row
from panelgate.core.naming import valid_alias
from panelgate.store.errors import Conflict, Invalid, NotFound

MAX_ALIAS = 64
NOT_ALIAS = re.compile(r"[^A-Za-z0-9._-]+")


def route_for(
    key: Key,
    rows: Mapping[Key, Row],
    left_out: Mapping[Key, str],
    endpoint: str | None,
    endpoints: Collection[str],
) -> Route:
    """The route the model takes onto the bench (the one asked for, else the first)."""
    provider, model = key
    row = rows.get(key)
    if row is None:
        why = left_out.get(key)
        raise NotFound(
            f"`{provider}/{model}` is not offered: {why}"
            if why
            else f"no model `{model}` of provider `{provider}` in the catalogs; check the spelling "
            "(GET /api/discover lists them) or refresh the catalogs",
            field="model",
        )
    if row.queued:  # before the bench: onboarding's first step puts the model there, ad hoc
        raise Conflict(f"`{provider}/{model}` is waiting in the onboarding queue already", field="model")
    if row.on_bench:
        raise Conflict(f"`{provider}/{model}` is on the bench already as `{row.on_bench[0]}`", field="model")
    if endpoint is not None:
        return _asked(row, endpoint, endpoints)
    if not row.routes:
        raise Conflict(_no_route(row), field="provider")
    return row.routes[0]


def _asked(row: Row, endpoint: str, endpoints: Collection[str]) -> Route:
    if endpoint not in endpoints:
        known = ", ".join(sorted(endpoints)) or "none yet"
        raise NotFound(f"no endpoint named `{endpoint}`; endpoints: {known}", field="endpoint")
    found = next((route for route in row.routes if route.endpoint == endpoint), None)
    if found is not None:
        return found
    served_by = ", ".join(f"`{route.endpoint}`" for route in row.routes)
    offer = row.offer
    raise Invalid(
        f"`{endpoint}` does not serve `{offer.provider}/{offer.model}`; "
        + (f"it is served through {served_by}" if served_by else _no_route(row)),
        field="endpoint",
    )


def _no_route(row: Row) -> str:
    offer = row.offer
    said = f"no endpoint serves `{offer.provider}/{offer.model}`"
    if row.unlisted:
        said += f" ({', '.join(row.unlisted)} does not list it)"
    return f"{said}: {what_to_do(row)}, then add the model again"


def what_to_do(row: Row) -> str:
    """How a person reaches a row no route leads to yet (empty when one does, or it is on the bench)."""
    if row.routes or row.on_bench:
        return ""
    offer = row.offer
    if offer.api is None:
        return (
            f"add an endpoint for {offer.provider} (its API is not one the gateway is known to speak), "
            "or a hub that serves it"
        )
    where = f" at {offer.base_url}" if offer.base_url else ""
    return (
        f"add an endpoint for {offer.provider}{where} ({offer.api} API) with its key, or connect it "
        "(Endpoints → Add endpoint or Connect)"
    )


def free_alias(wanted: str, provider: str, taken: Collection[str]) -> str:
    """`wanted` made a valid alias that no model has; `taken` is lower-cased."""
    base = _valid(wanted)
    if base.lower() not in taken:
        return base
    with_provider = _valid(f"{base}-{provider}")
    if with_provider.lower() not in taken:
        return with_provider
    number = 2
    while True:
        suffix = f"-{number}"
        candidate = with_provider[: MAX_ALIAS - len(suffix)] + suffix
        if candidate.lower() not in taken:
            return candidate
        number += 1


def _valid(text: str) -> str:
    alias = NOT_ALIAS.sub("-", text).strip("-._")[:MAX_ALIAS]
    return alias if valid_alias(alias) else f"m-{alias}"[:MAX_ALIAS]
