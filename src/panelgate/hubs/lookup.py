"""Which adapter talks to an endpoint: chosen by the endpoint's `hub` field, with its admin key.

The admin key is the secret stored under the endpoint's `admin_key_name`;
LiteLLM and Open WebUI fall back to the endpoint's own key (often the
proxy's master key or an admin's API key), CLI Proxy API never does: its
management key is a different secret, and a wrong one counts towards a ban.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from panelgate.hubs.base import AdminHub
from panelgate.hubs.cliproxy import CliProxy
from panelgate.hubs.errors import NotAHub
from panelgate.hubs.litellm import LiteLLM
from panelgate.hubs.open_webui import OpenWebUI
from panelgate.hubs.refused_keys import RefusedKeys
from panelgate.hubs.wire import AdminApi, AdminKey
from panelgate.store import EndpointRecord
from panelgate.upstream import KeyStore

if TYPE_CHECKING:
    import httpx

ADAPTERS: dict[str, type[AdminHub]] = {"litellm": LiteLLM, "openwebui": OpenWebUI, "cliproxy": CliProxy}
"""One adapter per value of an endpoint's `hub` (`store.rules.HUBS`)."""


def admin_key(endpoint: EndpointRecord, keys: KeyStore, fallback: bool) -> AdminKey | None:
    """The admin key an adapter sends, with the name it is kept under; None when none is stored."""
    names = [endpoint.admin_key_name] + ([endpoint.key_name] if fallback else [])
    for name in names:
        secret = keys.get(name) if name else None
        if name and secret:
            return AdminKey(name, secret)
    return None


def hub_for(
    endpoint: EndpointRecord, keys: KeyStore, http: httpx.AsyncClient, refused: RefusedKeys
) -> AdminHub:
    """The adapter for `endpoint`'s hub, or `NotAHub` when it has none."""
    adapter = ADAPTERS.get(endpoint.hub or "")
    if adapter is None:
        raise NotAHub(
            f"endpoint `{endpoint.name}` is not a hub (its `hub` is not set); hubs: {', '.join(ADAPTERS)}",
            field="endpoint",
        )
    api = AdminApi(
        http,
        adapter.root_of(endpoint.base_url),
        endpoint=endpoint.name,
        program=adapter.PROGRAM,
        key=admin_key(endpoint, keys, adapter.KEY_FALLBACK),
        refused=refused,
        key_header=adapter.KEY_HEADER,
    )
    return adapter(endpoint, api)
