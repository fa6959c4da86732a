"""`panelgate settings`: shows the gateway's limits and changes only the ones given."""

from __future__ import annotations

import json

from tests.cli.runner import panelgate
from tests.support.gateway import Gateway
from tests.support.upstream import FakeUpstream


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


def test_settings_names_a_decision_model_and_an_empty_one_clears_it(bench: Gateway, upstream: FakeUpstream):
    named = panelgate("settings", "--decision-model", "m1", url=bench.url)
    assert named.returncode == 0, named.stderr
    assert bench.api("GET", "/api/settings/gateway", expect=200)["gateway"]["decision_model"] == "m1"
    cleared = panelgate("settings", "--decision-model", "", url=bench.url)
    assert cleared.returncode == 0, cleared.stderr
    assert "none: the shape rules decide" in cleared.stdout


def test_settings_refuses_a_decision_model_not_on_the_bench(bench: Gateway, upstream: FakeUpstream):
    run = panelgate("settings", "--decision-model", "ghost", url=bench.url)
    assert run.returncode == 1 and "`ghost` is not a model on the bench" in run.stderr


def test_settings_choose_the_explorer_rule_and_floor(gateway: Gateway):
    shown = panelgate("settings", url=gateway.url)
    assert "explorer rule              evidence" in shown.stdout
    assert "0: as many panels as the bench has models to explore, at least 10" in shown.stdout
    run = panelgate("settings", "--explorer-rule", "stalest", "--explorer-floor", "25", url=gateway.url)
    assert run.returncode == 0, run.stderr
    saved = gateway.api("GET", "/api/settings/gateway", expect=200)["gateway"]
    assert (saved["explorer_rule"], saved["explorer_floor"]) == ("stalest", 25)
    refused = panelgate("settings", "--explorer-rule", "random", url=gateway.url)
    assert refused.returncode == 1 and "explorer_rule" in refused.stderr and "stalest" in refused.stderr
