"""`panelgate collection`: save changes only what it is told; rm asks first."""

from __future__ import annotations

import json
import re

from tests.cli.runner import panelgate, panelgate_answering
from tests.support.gateway import Gateway
from tests.support.upstream import FakeUpstream


def shown(bench: Gateway, name: str) -> dict:
    return dict(bench.api("GET", f"/api/collections/{name}", expect=200)["collection"])


def test_collection_save_keeps_unspecified_fields(bench: Gateway, upstream: FakeUpstream):
    bench.api("PATCH", "/api/collections/core", {"tags": ["daily"], "reply": "merged"}, expect=200)
    run = panelgate("collection", "save", "core", "--description", "the usual three", url=bench.url)
    assert run.returncode == 0, run.stderr
    core = shown(bench, "core")
    assert core["description"] == "the usual three"
    assert core["members"] == ["m1", "m2", "m3"]
    assert core["tags"] == ["daily"] and core["reply"] == "merged"


def test_collection_save_add_and_remove_edit_the_members_and_keep_every_other_field(
    bench: Gateway, upstream: FakeUpstream
):
    upstream.serve("m4")
    bench.add_model("m4")
    bench.api(
        "PATCH", "/api/collections/core", {"tags": ["daily"], "reply": "merged", "merger": "m3"}, expect=200
    )
    before = shown(bench, "core")
    run = panelgate("collection", "save", "core", "--add", "m4", "--remove", "m1", url=bench.url)
    assert run.returncode == 0, run.stderr
    assert re.search(r"^members\s+m2, m3, m4$", run.stdout, re.MULTILINE)
    after = shown(bench, "core")
    assert after["members"] == ["m2", "m3", "m4"]
    for field in ("description", "tags", "shape", "reply", "merger"):
        assert after[field] == before[field], field


def test_collection_save_sets_what_panels_do_with_offered_tools_and_who_owes_verdicts(
    bench: Gateway, upstream: FakeUpstream
):
    run = panelgate(
        "collection", "save", "core", "--offered-tools", "refuse", "--verdicts-owed", "chats", url=bench.url
    )
    assert run.returncode == 0, run.stderr
    assert re.search(r"^offered tools\s+refuse$", run.stdout, re.MULTILINE)
    assert re.search(r"^verdicts owed\s+chats$", run.stdout, re.MULTILINE)
    core = shown(bench, "core")
    assert (core["offered_tools"], core["verdicts_owed"], core["members"]) == (
        "refuse",
        "chats",
        ["m1", "m2", "m3"],
    )
    wrong = panelgate("collection", "save", "core", "--verdicts-owed", "some", url=bench.url)
    assert wrong.returncode == 1 and "verdicts_owed" in wrong.stderr


def test_collection_show_prints_its_fields_and_json_is_the_servers_answer(
    bench: Gateway, upstream: FakeUpstream
):
    run = panelgate("collection", "show", "core", url=bench.url)
    assert run.returncode == 0, run.stderr
    assert re.search(r"^members\s+m1, m2, m3$", run.stdout, re.MULTILINE)
    assert re.search(r"^description\s+three models$", run.stdout, re.MULTILINE)
    as_json = panelgate("collection", "show", "core", "--json", url=bench.url)
    assert json.loads(as_json.stdout) == bench.api("GET", "/api/collections/core", expect=200)
    missing = panelgate("collection", "show", "nowhere", url=bench.url)
    assert missing.returncode == 1 and "nowhere" in missing.stderr


def test_collection_save_creates_a_collection_from_its_members(bench: Gateway, upstream: FakeUpstream):
    run = panelgate(
        "collection",
        "save",
        "pair",
        "--members",
        "m1,m2",
        "--tags",
        "quick,cheap",
        "--shape",
        "quick",
        "--reply",
        "merged",
        url=bench.url,
    )
    assert run.returncode == 0, run.stderr
    pair = shown(bench, "pair")
    assert (pair["members"], pair["tags"], pair["shape"], pair["reply"]) == (
        ["m1", "m2"],
        ["quick", "cheap"],
        "quick",
        "merged",
    )
    listed = panelgate("collections", url=bench.url)
    assert {line.split()[0] for line in listed.stdout.splitlines()[2:]} == {"core", "pair"}


def test_collection_save_of_a_new_collection_without_members_exits_2(bench: Gateway, upstream: FakeUpstream):
    run = panelgate("collection", "save", "pair", "--add", "m1", url=bench.url)
    assert run.returncode == 2
    assert "--members" in run.stderr
    bench.api("GET", "/api/collections/pair", expect=404)


def test_collection_refusal_exits_1_with_the_servers_message(bench: Gateway, upstream: FakeUpstream):
    run = panelgate("collection", "save", "core", "--add", "nobody", url=bench.url)
    assert run.returncode == 1
    assert "nobody" in run.stderr
    assert shown(bench, "core")["members"] == ["m1", "m2", "m3"]


def test_collection_rm_without_a_terminal_or_yes_exits_2_and_removes_nothing(
    bench: Gateway, upstream: FakeUpstream
):
    run = panelgate("collection", "rm", "core", url=bench.url)
    assert run.returncode == 2
    assert "--yes" in run.stderr
    shown(bench, "core")
    assert panelgate("collection", "rm", "core", "--yes", url=bench.url).returncode == 0
    bench.api("GET", "/api/collections/core", expect=404)


def test_collection_rm_on_a_terminal_asks_and_removes_only_on_yes(bench: Gateway, upstream: FakeUpstream):
    question = "Remove collection `core`?"
    code, said = panelgate_answering(
        "collection", "rm", "core", url=bench.url, prompt=question, answer="n", hidden=False
    )
    assert code == 1 and "nothing changed" in said
    shown(bench, "core")
    code, said = panelgate_answering(
        "collection", "rm", "core", url=bench.url, prompt=question, answer="y", hidden=False
    )
    assert code == 0 and "removed collection core" in said
    bench.api("GET", "/api/collections/core", expect=404)
