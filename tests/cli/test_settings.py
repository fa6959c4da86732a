"""`panelgate settings`: shows the gateway's limits and changes only the ones given."""

from __future__ import annotations

import json

from tests.cli.runner import panelgate
from tests.support.gateway import Gateway


def test_settings_shows_the_limits(gateway: Gateway):
    run = panelgate("settings", url=gateway.url)
    assert run.returncode == 0, run.stderr
    assert "max calls" in run.stdout and "seat deadline s" in run.stdout


def test_settings_changes_only_what_is_given(gateway: Gateway):
    before = gateway.api("GET", "/api/settings/gateway", expect=200)["gateway"]
    run = panelgate("settings", "--max-calls", "3", "--json", url=gateway.url)
    assert run.returncode == 0, run.stderr
    after = gateway.api("GET", "/api/settings/gateway", expect=200)["gateway"]
    assert after == {**before, "max_calls": 3} == json.loads(run.stdout)["gateway"]


def test_settings_out_of_range_is_refused_with_the_servers_reason(gateway: Gateway):
    run = panelgate("settings", "--max-explorers", "9", url=gateway.url)
    assert run.returncode == 1 and "max_explorers" in run.stderr
    assert gateway.api("GET", "/api/settings/gateway", expect=200)["gateway"]["max_explorers"] != 9
