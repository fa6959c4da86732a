"""Judging from the dashboard: `POST /api/verdicts`, and the verdicts `/api/panels` shows per seat."""

from __future__ import annotations

from pathlib import Path

import httpx

from tests.http.helpers import ask, hello
from tests.http.key_helpers import ADMIN_TOKEN, keyed_bench, make_key
from tests.support.gateway import Gateway
from tests.support.upstream import FakeUpstream


def test_a_dashboard_verdict_shows_on_its_seat_and_in_the_record(bench: Gateway, upstream: FakeUpstream):
    panel = ask(bench, hello()).json()["bench"]
    first, second = panel["seats"][0]["call"], panel["seats"][1]["call"]
    judged = bench.api(
        "POST",
        "/api/verdicts",
        {"call": first, "useful": False, "false": ["the loop never ends"]},
        expect=200,
    )
    assert judged == {"call": first, "useful": False, "result": "created"}
    bench.api("POST", "/api/verdicts", {"call": second, "useful": True, "note": "right"}, expect=200)
    shown = bench.api("GET", "/api/panels?limit=1")["panels"][0]["seats"]
    verdicts = {seat["call"]: seat["verdict"] for seat in shown}
    assert verdicts[first]["useful"] is False and verdicts[first]["false"] == ["the loop never ends"]
    assert (verdicts[second]["useful"], verdicts[second]["note"]) == (True, "right")
    assert verdicts[panel["seats"][2]["call"]] is None
    one = bench.api("GET", f"/api/panels/{panel['panel']}")["seats"]
    assert [seat["verdict"] is not None for seat in one] == [True, True, False]
    record = bench.api("GET", "/bench/record?collection=bench/core")["aliases"]
    assert (record["m1"]["notUseful"], record["m2"]["useful"]) == (1, 1)


def test_a_dashboard_verdict_is_refused_like_a_bench_verdict(bench: Gateway, upstream: FakeUpstream):
    unknown = bench.api("POST", "/api/verdicts", {"call": "p20260101-000000-abcd.member1", "useful": True})
    assert "no seat has the call id" in unknown["error"]["message"]
    bad = bench.api("POST", "/api/verdicts", {"call": "x", "useful": "yes"})
    assert bad["error"] == {"message": "`useful` must be true or false", "field": "useful"}


def test_dashboard_verdicts_need_the_admin_not_a_gateway_key(tmp_path: Path, upstream: FakeUpstream):
    with keyed_bench(tmp_path / "home", upstream) as gateway:
        key = make_key(gateway)
        call = httpx.post(
            f"{gateway.url}/v1/chat/completions",
            json=hello(),
            headers={"Authorization": f"Bearer {key}"},
            timeout=60,
        ).json()["bench"]["seats"][0]["call"]
        body = {"call": call, "useful": True}
        with_key = httpx.post(
            f"{gateway.url}/api/verdicts", json=body, headers={"Authorization": f"Bearer {key}"}
        )
        as_admin = httpx.post(
            f"{gateway.url}/api/verdicts", json=body, headers={"Authorization": f"Bearer {ADMIN_TOKEN}"}
        )
    assert with_key.status_code == 401
    assert as_admin.status_code == 200
    change = as_admin.json()
    assert change["result"] == "created"


def test_the_panel_list_can_leave_the_answers_out(bench: Gateway, upstream: FakeUpstream):
    ask(bench, hello())
    whole = bench.api("GET", "/api/panels?limit=1")["panels"][0]["seats"]
    light = bench.api("GET", "/api/panels?limit=1&answers=false")["panels"][0]["seats"]
    assert [s["answer"] for s in whole] == ["answer from m1", "answer from m2", "answer from m3"]
    assert [s["answer"] for s in light] == ["", "", ""]
    assert [s["call"] for s in light] == [s["call"] for s in whole]


def test_a_dashboard_verdict_on_a_failed_seat_is_refused(bench: Gateway, upstream: FakeUpstream):
    upstream.behave("m1", status=400, error_message="nope")
    failed = ask(bench, hello()).json()["bench"]["seats"][0]["call"]
    refused = bench.api("POST", "/api/verdicts", {"call": failed, "useful": True})
    assert refused["error"]["field"] == "call"
    assert "health, not its usefulness" in refused["error"]["message"]
    bench.api("POST", "/api/verdicts", {"call": failed, "useful": True}, expect=400)


def test_the_panel_list_keeps_only_panels_still_owed_a_verdict_when_asked(
    bench: Gateway, upstream: FakeUpstream
):
    def panel(prompt: str) -> tuple[str, list[str]]:
        reply = ask(bench, hello(messages=[{"role": "user", "content": prompt}])).json()["bench"]
        return reply["panel"], [seat["call"] for seat in reply["seats"]]

    def judge(*calls: str) -> None:
        for call in calls:
            bench.api("POST", "/api/verdicts", {"call": call, "useful": True}, expect=200)

    judged, judged_calls = panel("every seat judged")
    judge(*judged_calls)
    half, half_calls = panel("one seat judged")
    judge(half_calls[0])
    upstream.behave("m1", status=400, error_message="nope")
    failed_left, failed_left_calls = panel("only the failed seat left")
    judge(*failed_left_calls[1:])
    upstream.behave("m1")
    bench.api("PATCH", "/api/collections/core", {"verdicts_owed": "none"}, expect=200)
    owes_none, _ = panel("owes no verdicts")
    bench.api("PATCH", "/api/collections/core", {"verdicts_owed": "all"}, expect=200)
    fresh, _ = panel("nothing judged")

    every = [p["id"] for p in bench.api("GET", "/api/panels?limit=10")["panels"]]
    owed = bench.api("GET", "/api/panels?limit=10&owed=true")["panels"]
    assert every == [fresh, owes_none, failed_left, half, judged]
    assert [p["id"] for p in owed] == [fresh, half]
    assert [s["verdict"] is not None for s in owed[1]["seats"]] == [True, False, False]
    assert [p["id"] for p in bench.api("GET", "/api/panels?limit=1&owed=true")["panels"]] == [fresh]
