"""A provider answering with another model than the one asked: the seat says so, and a model that
keeps doing it raises an action-needed item until it answers as itself again."""

from __future__ import annotations

import json
import time
from typing import Any

import httpx

from tests.http.helpers import ask, hello
from tests.support.gateway import Gateway
from tests.support.upstream import FakeUpstream


def seats_of(reply: httpx.Response) -> dict[str, dict[str, Any]]:
    assert reply.status_code == 200, reply.text
    return {seat["alias"]: seat for seat in reply.json()["bench"]["seats"]}


def swap_alerts(gateway: Gateway) -> list[dict[str, Any]]:
    alerts = gateway.api("GET", "/api/alerts", expect=200)["alerts"]
    return [alert for alert in alerts if alert["kind"] == "swapped"]


def swap_alerts_once_settled(gateway: Gateway, expected: int) -> list[dict[str, Any]]:
    """The swap alerts, once `expected` of them are open or two seconds passed: a panel's models
    are checked just after its reply has gone."""
    deadline = time.monotonic() + 2
    while len(found := swap_alerts(gateway)) != expected and time.monotonic() < deadline:
        time.sleep(0.05)
    return found


def models_page(gateway: Gateway) -> str:
    page = httpx.get(f"{gateway.url}/models", headers={"accept": "text/html"}, timeout=30)
    assert page.status_code == 200
    return page.text


def test_a_seat_answered_by_another_model_names_it_in_the_reply_and_the_record(
    bench: Gateway, upstream: FakeUpstream
) -> None:
    upstream.behave("m2", served_as="cheap-model-7b")
    reply = ask(bench, hello())
    seats = seats_of(reply)
    assert seats["m2"]["served_as"] == "cheap-model-7b"
    assert "served_as" not in seats["m1"] and "served_as" not in seats["m3"]
    recorded = bench.api("GET", f"/api/panels/{reply.json()['bench']['panel']}", expect=200)["seats"]
    assert {s["alias"]: s["served_as"] for s in recorded} == {"m1": None, "m2": "cheap-model-7b", "m3": None}


def test_a_dated_snapshot_or_a_prefixed_name_of_the_asked_model_is_not_a_swap(
    bench: Gateway, upstream: FakeUpstream
) -> None:
    upstream.behave("m1", served_as="m1-2024-08-06")
    upstream.behave("m2", served_as="fake-provider/m2")
    upstream.behave("m3", served_as="m3-latest")
    seats = seats_of(ask(bench, hello()))
    assert not any("served_as" in seat for seat in seats.values())


def test_a_streamed_panel_names_the_swap_in_its_last_event(bench: Gateway, upstream: FakeUpstream) -> None:
    upstream.behave("m3", served_as="m3-mini")
    reply = httpx.post(f"{bench.url}/v1/chat/completions", json=hello(stream=True), timeout=60)
    assert reply.status_code == 200
    assert '"served_as":"m3-mini"' in reply.text.replace(" ", "")


def test_a_model_that_keeps_answering_as_another_needs_action_until_it_answers_as_itself(
    bench: Gateway, upstream: FakeUpstream
) -> None:
    upstream.behave("m2", served_as="cheap-model-7b")
    for _ in range(2):
        ask(bench, hello())
    assert swap_alerts_once_settled(bench, 1) == []  # two: a note on each seat, not yet a person's time
    ask(bench, hello())
    [alert] = swap_alerts_once_settled(bench, 1)
    assert alert["subject"] == "m2" and "`cheap-model-7b`" in alert["message"]
    assert "3 of its last 3" in alert["message"]

    upstream.behave("m2")
    ask(bench, hello())
    assert swap_alerts_once_settled(bench, 0) == []


def test_the_swap_alert_can_be_turned_off_while_seats_still_name_the_swap(
    bench: Gateway, upstream: FakeUpstream
) -> None:
    bench.gateway_settings(swap_alerts=False)
    upstream.behave("m2", served_as="cheap-model-7b")
    for _ in range(3):
        seats = seats_of(ask(bench, hello()))
    assert seats["m2"]["served_as"] == "cheap-model-7b"
    assert swap_alerts_once_settled(bench, 1) == []


def test_the_models_page_shows_what_a_model_last_answered_as(bench: Gateway, upstream: FakeUpstream) -> None:
    upstream.behave("m2", served_as="cheap-model-7b")
    ask(bench, hello())
    page = models_page(bench)
    assert page.count("last answered as") == 1
    assert "last answered as <code>cheap-model-7b</code>" in page

    upstream.behave("m2")
    ask(bench, hello())
    assert "last answered as" not in models_page(bench)


def test_a_whole_gemini_reply_names_the_swap_in_its_seats_header(
    bench: Gateway, upstream: FakeUpstream
) -> None:
    upstream.behave("m1", served_as="cheap-model-7b")
    body = {"contents": [{"role": "user", "parts": [{"text": "say hi"}]}]}
    reply = httpx.post(f"{bench.url}/v1beta/models/bench/core:generateContent", json=body, timeout=60)
    assert reply.status_code == 200, reply.text
    seats = {seat["alias"]: seat for seat in json.loads(reply.headers["X-Bench-Seats"])}
    assert seats["m1"]["served_as"] == "cheap-model-7b"
    assert "served_as" not in seats["m2"]
