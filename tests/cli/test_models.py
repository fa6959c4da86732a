"""`panelgate model`: register with facts, list, rename, role, ad hoc, retire (asked first) and restore."""

from __future__ import annotations

import json

from tests.cli.runner import panelgate
from tests.support.gateway import Gateway
from tests.support.upstream import FakeUpstream


def test_model_add_sends_the_given_facts_and_list_shows_them(bench: Gateway, upstream: FakeUpstream):
    upstream.serve("org/big:free")
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


def test_model_add_without_an_endpoint_puts_it_on_the_default_one(bench: Gateway, upstream: FakeUpstream):
    upstream.serve("org/big:free")
    run = panelgate("model", "add", "org/big:free", url=bench.url)
    assert run.returncode == 0, run.stderr
    assert "added big-free (org/big:free on up)" in run.stdout
    assert bench.api("GET", "/api/models/big-free", expect=200)["model"]["endpoint"] == "up"


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


def test_model_rename_role_and_ad_hoc_change_what_the_server_holds(bench: Gateway, upstream: FakeUpstream):
    renamed = panelgate("model", "rename", "m3", "coder", url=bench.url)
    assert renamed.returncode == 0, renamed.stderr
    assert bench.api("GET", "/api/collections/core")["collection"]["members"] == ["m1", "m2", "coder"]
    assert panelgate("model", "role", "coder", "code", url=bench.url).returncode == 0
    assert panelgate("model", "ad-hoc", "m2", url=bench.url).returncode == 0
    models = {m["alias"]: m for m in bench.api("GET", "/api/models", expect=200)["models"]}
    assert (models["coder"]["role"], models["m2"]["ad_hoc"]) == ("code", True)
    assert panelgate("model", "ad-hoc", "m2", "--off", url=bench.url).returncode == 0
    assert bench.api("GET", "/api/models/m2", expect=200)["model"]["ad_hoc"] is False


def test_model_role_refuses_an_unknown_role_with_the_servers_reason(bench: Gateway, upstream: FakeUpstream):
    run = panelgate("model", "role", "m1", "wizard", url=bench.url)
    assert run.returncode == 1 and "role" in run.stderr
    assert bench.api("GET", "/api/models/m1", expect=200)["model"]["role"] == "general"


def test_model_add_refuses_an_id_the_endpoint_does_not_list_and_names_the_closest(
    bench: Gateway, upstream: FakeUpstream
):
    upstream.serve("qwen3-coder")
    run = panelgate("model", "add", "qwen3-codr", "--endpoint", "up", url=bench.url)
    assert run.returncode == 1
    assert "`up` does not serve `qwen3-codr`" in run.stderr and "did you mean `qwen3-coder`?" in run.stderr
    assert "--unlisted" in run.stderr
    bench.api("GET", "/api/models/qwen3-codr", expect=404)


def test_model_add_unlisted_puts_an_id_the_listing_lacks_on_the_bench(bench: Gateway, upstream: FakeUpstream):
    run = panelgate("model", "add", "nosuch", "--endpoint", "up", "--unlisted", url=bench.url)
    assert run.returncode == 0, run.stderr
    assert bench.api("GET", "/api/models/nosuch", expect=200)["model"]["served_id"] == "nosuch"


def test_model_add_refuses_while_the_listing_does_not_answer_unless_unlisted(
    bench: Gateway, upstream: FakeUpstream
):
    upstream.require_key = "sk-only-this-one"  # the listing now answers 401
    refused = panelgate("model", "add", "m4", "--endpoint", "up", url=bench.url)
    assert refused.returncode == 1
    assert "could not read the models `up` lists" in refused.stderr and "--unlisted" in refused.stderr
    added = panelgate("model", "add", "m4", "--endpoint", "up", "--unlisted", url=bench.url)
    assert added.returncode == 0, added.stderr


def test_model_list_on_an_80_column_terminal_leaves_out_facts_rather_than_cut_words(
    bench: Gateway, upstream: FakeUpstream
):
    upstream.serve("deepseek/deepseek-chat-v3.1:free")
    bench.api(
        "POST",
        "/api/models",
        {"served_id": "deepseek/deepseek-chat-v3.1:free", "endpoint": "up", "context_window": 131072},
        expect=201,
    )
    run = panelgate("model", "list", url=bench.url, env={"COLUMNS": "80"})
    assert run.returncode == 0, run.stderr
    lines = run.stdout.splitlines()
    assert max(len(line) for line in lines) <= 80
    (row,) = [line for line in lines if line.startswith("deepseek-chat-v3.1-free ")]
    cells = [cell.strip() for cell in row.split("│")]
    assert cells == ["deepseek-chat-v3.1-free", "deepseek/deepseek-chat-v3.1:free", "up", "general"]
    assert "left out to fit 80 columns: ad hoc, context, max output, vision, tools" in run.stderr
    at_100 = panelgate("model", "list", url=bench.url, env={"COLUMNS": "100"})
    (row,) = [line for line in at_100.stdout.splitlines() if line.startswith("deepseek-chat-v3.1-free ")]
    assert " 131072 " in row and "left out to fit 100 columns: max output, vision, tools" in at_100.stderr
    wide = panelgate("model", "list", url=bench.url, env={"COLUMNS": "200"})
    assert "max output" in wide.stdout and "left out" not in wide.stderr
