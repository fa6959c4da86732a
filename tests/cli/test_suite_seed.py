"""`panelgate suite seed`: register a repository and seed it through a running server."""

from __future__ import annotations

import json

from tests.cli.runner import panelgate
from tests.suite.seeding import SAMPLE_REPO
from tests.support.gateway import Gateway


def test_seed_registers_the_folder_and_prints_the_pairs_it_wrote(gateway: Gateway) -> None:
    run = panelgate(
        "suite", "seed", "--repo", "sample", "--path", str(SAMPLE_REPO), "--count", "2", "--seed", "3",
        url=gateway.url,
    )  # fmt: skip
    assert run.returncode == 0, run.stderr
    assert "wrote 2 of 2 pairs from sample (seed 3)" in run.stdout
    assert '"draft": false' in run.stderr
    listed = {task["id"] for task in gateway.api("GET", "/api/suite/tasks", expect=200)["tasks"]}
    seeded = {task_id for task_id in listed if task_id.startswith("seeded-sample-")}
    assert len(seeded) == 4
    assert all(task_id in run.stdout for task_id in seeded)
    assert gateway.api("GET", "/api/suite/repos", expect=200)["repos"][0]["name"] == "sample"


def test_seed_with_json_kinds_and_ready_prints_the_server_s_answer(gateway: Gateway) -> None:
    gateway.api("PUT", "/api/suite/repos/sample", {"path": str(SAMPLE_REPO)}, expect=200)
    run = panelgate(
        "suite", "seed", "--repo", "sample", "--kind", "number,break-continue", "--count", "2", "--ready",
        "--json", url=gateway.url,
    )  # fmt: skip
    assert run.returncode == 0, run.stderr
    answer = json.loads(run.stdout)
    assert sorted(pair["kind"] for pair in answer["written"]) == ["break-continue", "number"]
    assert not any(pair["draft"] for pair in answer["written"])
    assert isinstance(answer["seed"], int)


def test_a_refused_seeding_exits_with_the_server_s_reason(gateway: Gateway) -> None:
    run = panelgate("suite", "seed", "--repo", "nowhere", url=gateway.url)
    assert run.returncode == 1
    assert "no repository is registered as `nowhere`" in run.stderr
    bad = panelgate("suite", "seed", "--repo", "sample", "--path", "/no/such/folder", url=gateway.url)
    assert bad.returncode == 1 and "`/no/such/folder` is not a folder on the server's machine" in bad.stderr
