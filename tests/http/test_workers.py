"""`panelgate serve --workers 2`: two processes on one port behave as one gateway."""

from __future__ import annotations

from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import psutil
import pytest

from tests.conftest import arrange_bench
from tests.http.helpers import ask, hello
from tests.support.gateway import Gateway
from tests.support.upstream import FakeUpstream


@pytest.fixture
def two_workers(tmp_path: Path, upstream: FakeUpstream) -> Iterator[Gateway]:
    gateway = Gateway(tmp_path / "home", env={"PANELGATE_WORKERS": "2"}, in_process=False).start()
    try:
        yield arrange_bench(gateway, upstream)
    finally:
        gateway.close()


def test_two_workers_serve_one_port_and_never_repeat_a_panel_id(two_workers: Gateway):
    assert two_workers.process is not None
    workers = [
        child
        for child in psutil.Process(two_workers.process.pid).children()
        if "spawn_main" in " ".join(child.cmdline())
    ]
    assert len(workers) == 2

    with ThreadPoolExecutor(max_workers=12) as pool:
        replies = list(pool.map(lambda _: ask(two_workers, hello()), range(60)))
    assert [r.status_code for r in replies] == [200] * 60
    panels = [r.json()["bench"]["panel"] for r in replies]
    assert len(set(panels)) == 60
    recorded = two_workers.api("GET", "/api/panels?limit=200", expect=200)["panels"]
    assert {p["id"] for p in recorded} == set(panels)


def test_an_edit_through_one_worker_shows_at_once_on_the_other(two_workers: Gateway):
    for number in range(6):
        two_workers.save_collection(f"fresh{number}", ["m1", "m2"])
        asked = [ask(two_workers, hello(f"bench/fresh{number}")) for _ in range(4)]
        assert [r.status_code for r in asked] == [200] * 4, asked[-1].text
