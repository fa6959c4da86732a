"""Seeding through the admin API: register a repository on the server's machine, seed it, list the pair."""

from __future__ import annotations

from typing import get_args

from panelgate.http.admin.suite_seed import KindName
from panelgate.suite.mutations import Kind
from tests.suite.seeding import SAMPLE_REPO
from tests.support.gateway import Gateway


def test_a_seeded_pair_is_written_to_the_data_folder_and_listed(gateway: Gateway) -> None:
    shown = gateway.api("PUT", "/api/suite/repos/sample", {"path": str(SAMPLE_REPO)}, expect=200)
    assert shown == {"name": "sample", "path": str(SAMPLE_REPO.resolve())}
    assert gateway.api("GET", "/api/suite/repos", expect=200) == {"repos": [shown]}

    body = {"repo": "sample", "count": 1, "kinds": ["removed-call"], "seed": 7}
    seeded = gateway.api("POST", "/api/suite/seed", body, expect=200)
    (pair,) = seeded["written"]
    assert (seeded["repo"], seeded["seed"], seeded["asked"]) == ("sample", 7, 1)
    assert pair["kind"] == "removed-call" and len(pair["fault_lines"]) == 2 and pair["draft"] is True
    assert (gateway.home / "suite" / "tasks" / pair["bug"] / "task.json").is_file()

    listed = gateway.api("GET", "/api/suite/tasks", expect=200)
    tasks = {task["id"]: task for task in listed["tasks"]}
    bug, control = tasks[pair["bug"]], tasks[pair["control"]]
    assert (bug["shape"], control["shape"]) == ("seeded", "control")
    assert (bug["origin"], bug["draft"], control["draft"]) == ("data", True, True)
    above, below = pair["fault_lines"]
    assert bug["must_find"] == [f"FAULT: line {above} | FAULT: line {below}"]
    assert control["must_find"] == ["NO FAULT"]
    assert listed["problems"] == []

    again = gateway.api("POST", "/api/suite/seed", body, expect=200)
    assert again["written"][0]["bug"] != pair["bug"], "the same seed passes over the pairs already written"


def test_bad_seeding_requests_are_refused_in_the_admin_shape(gateway: Gateway) -> None:
    unknown = gateway.api("POST", "/api/suite/seed", {"repo": "nowhere"}, expect=404)
    assert unknown["error"]["field"] == "repo"
    assert "no repository is registered as `nowhere`" in unknown["error"]["message"]

    gateway.api("PUT", "/api/suite/repos/sample", {"path": str(SAMPLE_REPO)}, expect=200)
    bad_kind = gateway.api("POST", "/api/suite/seed", {"repo": "sample", "kinds": ["typo"]}, expect=400)
    assert bad_kind["error"]["field"] == "kinds.0" and "comparison" in bad_kind["error"]["message"]
    too_many = gateway.api("POST", "/api/suite/seed", {"repo": "sample", "count": 51}, expect=400)
    assert too_many["error"]["field"] == "count"

    relative = gateway.api("PUT", "/api/suite/repos/sample", {"path": "sample_repo"}, expect=400)
    assert relative["error"] == {
        "message": "`sample_repo` is not an absolute path on the server's machine",
        "field": "path",
    }
    bad_name = gateway.api("PUT", "/api/suite/repos/Bad%20Name", {"path": str(SAMPLE_REPO)}, expect=400)
    assert bad_name["error"]["field"] == "name"
    assert gateway.api("GET", "/api/suite/repos", expect=200)["repos"][0]["path"] == str(
        SAMPLE_REPO.resolve()
    )


def test_the_documented_kinds_are_the_kinds_seeding_plants() -> None:
    assert list(get_args(KindName)) == [kind.value for kind in Kind]
