"""Seeding's whole-file mode through the admin API and the CLI flag that asks for it."""

from __future__ import annotations

from tests.cli.runner import panelgate
from tests.suite.seeding import PANELGATE_SRC
from tests.support.gateway import Gateway


def test_whole_file_seeding_writes_pairs_that_show_a_whole_module(gateway: Gateway) -> None:
    gateway.api("PUT", "/api/suite/repos/core", {"path": str(PANELGATE_SRC / "core")}, expect=200)
    body = {"repo": "core", "count": 1, "seed": 5, "whole_file": True}
    (pair,) = gateway.api("POST", "/api/suite/seed", body, expect=200)["written"]
    assert pair["bug"].startswith("seeded-hard-core-")
    tasks = {t["id"]: t for t in gateway.api("GET", "/api/suite/tasks", expect=200)["tasks"]}
    assert tasks[pair["bug"]]["shape"] == "seeded" and tasks[pair["control"]]["shape"] == "control"
    run = panelgate("suite", "seed", "--repo", "core", "--count", "1", "--whole-file", url=gateway.url)
    assert run.returncode == 0, run.stderr
    assert "seeded-hard-core-" in run.stdout
