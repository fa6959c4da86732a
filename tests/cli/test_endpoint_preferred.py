"""`panelgate endpoint add --preferred` and `panelgate endpoint prefer NAME [--off]`."""

from __future__ import annotations

import json

import httpx

from tests.cli.runner import panelgate
from tests.support.gateway import Gateway
from tests.support.upstream import FakeUpstream


def preferred(gateway: Gateway) -> dict[str, bool]:
    return {e["name"]: e["preferred"] for e in gateway.api("GET", "/api/endpoints")["endpoints"]}


def test_an_endpoint_is_marked_preferred_on_adding_and_unmarked_later(
    gateway: Gateway, upstream: FakeUpstream
):
    added = panelgate(
        "endpoint", "add", "fav", "--base", upstream.url, "--no-key", "--preferred", url=gateway.url
    )
    assert added.returncode == 0, added.stderr
    gateway.add_endpoint("plain", upstream.url)
    assert preferred(gateway) == {"fav": True, "plain": False}
    listed = panelgate("endpoint", "list", url=gateway.url)
    assert "preferred" in listed.stdout
    off = panelgate("endpoint", "prefer", "fav", "--off", "--json", url=gateway.url)
    assert off.returncode == 0 and json.loads(off.stdout)["preferred"] is False
    on = panelgate("endpoint", "prefer", "plain", url=gateway.url)
    assert on.returncode == 0 and "plain is preferred" in on.stdout
    assert preferred(gateway) == {"fav": False, "plain": True}
    missing = panelgate("endpoint", "prefer", "nowhere", url=gateway.url)
    assert missing.returncode == 1 and "no endpoint named `nowhere`" in missing.stderr


def test_the_preferred_mark_survives_a_config_export_and_import(gateway: Gateway, upstream: FakeUpstream):
    gateway.add_endpoint("fav", upstream.url, preferred=True)
    exported = httpx.get(f"{gateway.url}/api/config").text
    assert "preferred: true" in exported
    gateway.api("PUT", "/api/endpoints/fav/preferred", {"preferred": False}, expect=200)
    gateway.api("POST", "/api/config", {"yaml": exported}, expect=200)
    assert preferred(gateway) == {"fav": True}
