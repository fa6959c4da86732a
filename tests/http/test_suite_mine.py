"""`POST /api/suite/mine`: a judged panel's verified claims become draft tasks, fixtures the files sent."""

from __future__ import annotations

from typing import Any

import httpx

from panelgate.suite.mine_tasks import NO_FILES
from tests.http.helpers import ask, hello
from tests.support.gateway import Gateway
from tests.support.upstream import FakeUpstream

FILES = {"src/loop.py": "def total(n):\n    return sum(range(n + 1))\n", "notes.md": "# why\r\nsums\n"}


def judged_panel(bench: Gateway, real: list[str], false: list[str]) -> dict[str, Any]:
    """A panel asked of `core`, its first seat judged with these claims."""
    panel: dict[str, Any] = ask(bench, hello()).json()["bench"]
    verdict = {"call": panel["seats"][0]["call"], "useful": True, "real": real, "false": false}
    bench.api("POST", "/bench/verdict", verdict, expect=200)
    return panel


def mining(bench: Gateway, body: dict[str, Any]) -> httpx.Response:
    return httpx.post(f"{bench.url}/api/suite/mine", json=body, timeout=30)


def test_mining_writes_a_draft_per_claim_that_runs_only_when_named(bench: Gateway, upstream: FakeUpstream):
    panel = judged_panel(bench, ["total counts n itself"], ["total skips zero"])
    mined = bench.api("POST", "/api/suite/mine", {"panel": panel["panel"], "files": FILES}, expect=200)
    assert mined["panel"] == panel["panel"] and mined["collection"] == "core"
    assert sorted((t["claim"], t["truth"]) for t in mined["written"]) == [
        ("total counts n itself", "TRUE"),
        ("total skips zero", "FALSE"),
    ]
    assert all(t["draft"] and t["call"] == panel["seats"][0]["call"] for t in mined["written"])
    assert mined["existing"] == [] and mined["warnings"] == [] and mined["fixtures"] == list(FILES)
    ids = {t["id"] for t in mined["written"]}
    for task_id in ids:
        fixtures = bench.home / "suite" / "tasks" / task_id / "fixtures"
        assert {p: (fixtures / p).read_bytes() for p in FILES} == {p: t.encode() for p, t in FILES.items()}
    listed = {t["id"]: t for t in bench.api("GET", "/api/suite/tasks", expect=200)["tasks"]}
    assert all(listed[i]["draft"] and listed[i]["origin"] == "data" for i in ids)
    assert all(listed[i]["attach"] == list(FILES) for i in ids)

    unnamed = bench.api("POST", "/api/suite/run", {"models": ["m1"], "dry_run": True}, expect=200)
    assert not ids & {p["task"] for p in unnamed["planned"]}, "drafts are skipped unless named"
    named = bench.api(
        "POST", "/api/suite/run", {"models": ["m1"], "tasks": sorted(ids), "dry_run": True}, expect=200
    )
    assert {p["task"] for p in named["planned"]} == ids
    sent = named["planned"][0]["messages"][0]["content"]
    assert "===== FILE: src/loop.py =====\ndef total(n):\n    return sum(range(n + 1))\n" in sent


def test_mining_again_writes_nothing_new(bench: Gateway, upstream: FakeUpstream):
    panel = judged_panel(bench, ["total counts n itself"], [])
    first = bench.api("POST", "/api/suite/mine", {"panel": panel["panel"], "files": FILES}, expect=200)
    again = bench.api("POST", "/api/suite/mine", {"panel": panel["panel"], "files": FILES}, expect=200)
    assert again["written"] == [] and again["existing"] == first["written"]
    mined = [t for t in bench.api("GET", "/api/suite/tasks")["tasks"] if t["id"].startswith("mined-")]
    assert len(mined) == 1


def test_mining_refuses_what_cannot_become_tasks(bench: Gateway, upstream: FakeUpstream):
    unknown = mining(bench, {"panel": "p20260101-000000-abcd", "files": FILES})
    assert unknown.status_code == 404
    assert unknown.json()["error"] == {
        "message": "no panel `p20260101-000000-abcd` is recorded; use the id a reply's bench.panel names",
        "field": "panel",
    }
    plain = ask(bench, hello()).json()["bench"]["panel"]
    no_claims = mining(bench, {"panel": plain, "files": FILES})
    assert no_claims.status_code == 400 and "no verdict with checked claims" in no_claims.text
    judged = judged_panel(bench, ["a claim"], [])["panel"]
    for files in ({}, None):
        no_files = mining(bench, {"panel": judged} if files is None else {"panel": judged, "files": files})
        assert no_files.status_code == 400
        assert no_files.json()["error"] == {"message": NO_FILES, "field": "files"}
    bad = mining(bench, {"panel": "../etc", "files": FILES})
    assert bad.status_code == 400 and bad.json()["error"]["field"] == "panel"
    wrong = mining(bench, {"panel": judged, "files": {"a.py": 3}})
    assert wrong.status_code == 400 and "files" in wrong.json()["error"]["field"]
    assert not (bench.home / "suite" / "tasks").exists(), "nothing was written"


def test_fixtures_past_40000_characters_are_mined_with_a_warning(bench: Gateway, upstream: FakeUpstream):
    judged = judged_panel(bench, ["a claim"], [])["panel"]
    large = bench.api("POST", "/api/suite/mine", {"panel": judged, "files": {"big.py": "x = 1\n" * 7000}})
    assert len(large["written"]) == 1
    assert any("42,000 characters (more than 40,000)" in w for w in large["warnings"])
