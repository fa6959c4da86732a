"""`panelgate model`: register with facts, list, retire (asked first) and restore."""

from __future__ import annotations

import json

from tests.cli.runner import panelgate
from tests.support.gateway import Gateway
from tests.support.upstream import FakeUpstream


def test_model_add_sends_the_given_facts_and_list_shows_them(bench: Gateway, upstream: FakeUpstream):
    run = panelgate(
        "model",
        "add",
        "org/big:free",
        "--endpoint",
        "up",
        "--role",
        "code",
        "--context-window",
        "8192",
        "--no-vision",
        "--ad-hoc",
        url=bench.url,
    )
    assert run.returncode == 0, run.stderr
    model = bench.api("GET", "/api/models/big-free", expect=200)["model"]
    assert (model["served_id"], model["role"], model["context_window"], model["vision"], model["ad_hoc"]) == (
        "org/big:free",
        "code",
        8192,
        False,
        True,
    )
    assert model["tools"] is None
    listed = panelgate("model", "list", url=bench.url)
    row = next(line for line in listed.stdout.splitlines() if line.startswith("big-free "))
    assert "org/big:free" in row and "8192" in row


def test_model_retire_asks_first_then_restore_puts_it_back(bench: Gateway, upstream: FakeUpstream):
    unconfirmed = panelgate("model", "retire", "m2", url=bench.url)
    assert unconfirmed.returncode == 2 and "--yes" in unconfirmed.stderr
    assert panelgate("model", "retire", "m2", "--reason", "withdrawn", "--yes", url=bench.url).returncode == 0
    on_bench = json.loads(panelgate("models", "--json", url=bench.url).stdout)["models"]
    assert [m["alias"] for m in on_bench] == ["m1", "m3"]
    everyone = panelgate("model", "list", "--all", url=bench.url).stdout
    assert "withdrawn" in next(line for line in everyone.splitlines() if line.startswith("m2 "))
    restored = panelgate("model", "restore", "m2", url=bench.url)
    assert restored.returncode == 0, restored.stderr
    assert bench.api("GET", "/api/collections/core")["collection"]["members"] == ["m1", "m2", "m3"]
