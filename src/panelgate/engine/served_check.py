"""Whether an endpoint serves a model id, asked of its listing before the id goes on the bench.

A typo in a served id (`gpt-4o-mnii`) would otherwise surface at the first
panel, as a seat failing `structural`. The endpoint's listing is the cheap
witness onboarding already asks: an id it does not list is refused with the
listed ids closest to it. Some endpoints serve models they do not list
(deployments behind a router, fine-tunes), so a person who knows better adds
the id as *unlisted*, which skips the check. When the listing does not
answer, nothing can be said either way; `model add` refuses then too, since
it runs no probe that would tell later, and offers the same way around.
"""

from __future__ import annotations

import difflib
from collections.abc import Collection

from panelgate.engine.onboarding_candidates import served_ids
from panelgate.store import EndpointRecord
from panelgate.store.errors import Conflict, Invalid
from panelgate.upstream import UpstreamClient, UpstreamError

UNLISTED_HINT = 'add it as unlisted (`--unlisted`; API: `"unlisted": true`)'


def listing_hint(served_id: str, listed: Collection[str]) -> str:
    """`; did you mean `a`, `b`?` with up to three listed ids close to `served_id`, or a few it lists."""
    close = difflib.get_close_matches(served_id, sorted(listed), n=3, cutoff=0.5)
    if close:
        return f"; did you mean {', '.join(f'`{c}`' for c in close)}?"
    if not listed:
        return "; its listing is empty"
    shown = sorted(listed)[:3]
    more = f" and {len(listed) - len(shown)} more" if len(listed) > len(shown) else ""
    return f"; it lists {', '.join(f'`{s}`' for s in shown)}{more}"


async def require_listed(client: UpstreamClient, endpoint: EndpointRecord, served_id: str) -> None:
    """Return when `endpoint` lists `served_id`; raise `Invalid` when it does not, `Conflict` when
    its listing does not answer."""
    try:
        listed = await served_ids(client, endpoint)
    except UpstreamError as exc:
        raise Conflict(
            f"could not read the models `{endpoint.name}` lists ({exc.kind}: {exc.message}). "
            f"If you know it serves `{served_id}`, {UNLISTED_HINT}",
            field="endpoint",
        ) from None
    if served_id not in listed:
        said = f"`{endpoint.name}` does not serve `{served_id}` (its model listing does not name it)"
        said += listing_hint(served_id, listed)
        said += "" if said.endswith("?") else "."
        raise Invalid(f"{said} If it serves `{served_id}` all the same, {UNLISTED_HINT}", field="served_id")
