"""Real fixed bugs through the admin API: imported from fixture records, then run and scored like any task."""

from __future__ import annotations

import functools
import threading
from collections.abc import Iterator
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

from tests.suite.realbug_fixtures import PROJECT, RECORDS
from tests.support.gateway import Gateway
from tests.support.upstream import FakeUpstream

RIGHT = "FAULT: line 19\nThe reorder level itself should call for a reorder, so `<` must be `<=`."


def imported(gateway: Gateway, **body: Any) -> Any:
    return gateway.api("POST", "/api/suite/import-bugs", body, expect=200)


def test_imported_real_bugs_load_run_and_score_through_the_suite(bench: Gateway, upstream: FakeUpstream):
    found = imported(bench, file=str(RECORDS), checkout=str(PROJECT), ready=True)
    assert (found["read"], len(found["written"]), len(found["rejected"])) == (9, 2, 7)
    first = found["written"][0]
    assert (bench.home / "suite" / "tasks" / first["bug"] / "task.json").is_file()
    listed = bench.api("GET", "/api/suite/tasks", expect=200)
    assert listed["problems"] == []
    assert {t["id"]: t["shape"] for t in listed["tasks"]}[first["control"]] == "control"

    upstream.behave("m1", answer=RIGHT)
    answers = bench.api(
        "POST", "/api/suite/run", {"models": ["m1"], "tasks": [first["bug"], first["control"]]}, expect=200
    )["answers"]
    scored = {a["task"]: a for a in answers}
    assert scored[first["bug"]]["right"] is True and scored[first["bug"]]["found"] == ["FAULT: line 19"]
    assert scored[first["control"]]["right"] is False, "naming a fault in the fixed code is a false alarm"
    prompts = [r.body["messages"][0]["content"] for r in upstream.requests_for("m1")]
    assert any(" 19 |     return item.count < item.reorder_at" in p for p in prompts)
    assert any(" 19 |     return item.count <= item.reorder_at" in p for p in prompts)


def test_an_import_needs_a_file_or_a_url_and_names_a_missing_checkout(gateway: Gateway):
    neither = gateway.api("POST", "/api/suite/import-bugs", {"ready": True}, expect=400)
    assert "give `file`" in str(neither)
    found = imported(gateway, file=str(RECORDS))
    assert [r["kind"] for r in found["rejected"] if r["record"].endswith("101")] == ["no-source"]
    assert [w["record"] for w in found["written"]] == ["shelfkeeper__shelfkeeper-102"], "it carries the file"


@pytest.fixture
def records_site() -> Iterator[str]:
    """The fixture records served over loopback HTTP, as a dataset service would serve a file."""
    handler = functools.partial(SimpleHTTPRequestHandler, directory=str(RECORDS.parent))
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


def test_records_are_fetched_from_a_url_only_when_one_is_given(gateway: Gateway, records_site: str):
    found = imported(gateway, url=f"{records_site}/{RECORDS.name}", checkout=str(PROJECT))
    assert [w["record"] for w in found["written"]] == [
        "shelfkeeper__shelfkeeper-101",
        "shelfkeeper__shelfkeeper-102",
    ]
    closed = gateway.api("POST", "/api/suite/import-bugs", {"url": "http://127.0.0.1:9/records.jsonl"})
    assert "could not fetch" in str(closed) and "import the file instead" in str(closed)
