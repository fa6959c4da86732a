"""An acknowledged panel or verdict survives the server being killed at once."""

from __future__ import annotations

import pytest

from tests.http.helpers import ask, hello
from tests.support.gateway import Gateway
from tests.support.upstream import FakeUpstream

pytestmark = pytest.mark.slow


def test_panel_survives_sigkill_right_after_its_200(crashable_bench: Gateway, upstream: FakeUpstream):
    panel = ask(crashable_bench, hello()).json()["bench"]
    crashable_bench.kill()
    crashable_bench.start()
    recorded = crashable_bench.api("GET", f"/api/panels/{panel['panel']}", expect=200)
    assert [s["call"] for s in recorded["seats"]] == [s["call"] for s in panel["seats"]]
    assert [s["answer"] for s in recorded["seats"]] == [s["answer"] for s in panel["seats"]]


def test_streamed_panel_survives_sigkill_right_after_its_last_chunk(
    crashable_bench: Gateway, upstream: FakeUpstream
):
    raw = ask(crashable_bench, hello(stream=True)).text
    panel_id = raw.split('"panel":"', 1)[1].split('"', 1)[0]
    crashable_bench.kill()
    crashable_bench.start()
    assert len(crashable_bench.api("GET", f"/api/panels/{panel_id}", expect=200)["seats"]) == 3


def test_verdict_survives_sigkill_right_after_its_200(crashable_bench: Gateway, upstream: FakeUpstream):
    call = ask(crashable_bench, hello()).json()["bench"]["seats"][0]["call"]
    crashable_bench.api(
        "POST", "/bench/verdict", {"call": call, "useful": True, "note": "checked"}, expect=200
    )
    crashable_bench.kill()
    crashable_bench.start()
    record = crashable_bench.api("GET", "/bench/record?collection=bench/core", expect=200)
    assert record["aliases"]["m1"]["useful"] == 1 and record["aliases"]["m1"]["judged"] == 1
    assert crashable_bench.api("POST", "/bench/pending", {"calls": [call]})["pending"] == []
