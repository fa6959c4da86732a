"""A provider's quota or credit notice sent as a 200 answer fails the seat as the same notice sent as
an error status would: its kind, the model's health, and no verdict on it."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from tests.http.helpers import ask, hello
from tests.support.gateway import Gateway
from tests.support.upstream import FakeUpstream

CREDITS = "Insufficient credits. Add credits to your account to keep using this model."
QUOTA = "You exceeded your current quota, please check your plan and billing details."
RATE = "Rate limit reached for requests. Please try again in 20s."
ABOUT_QUOTAS = (
    "A rate limit caps how many requests you may send a minute; when the quota is exceeded the API"
    " answers 429. Two fixes:\n\n1. Wait and retry with backoff.\n2. Ask the provider for a higher tier."
)


def seats_of(reply: httpx.Response) -> dict[str, dict[str, Any]]:
    assert reply.status_code == 200, reply.text
    return {seat["alias"]: seat for seat in reply.json()["bench"]["seats"]}


def health(gateway: Gateway) -> dict[str, str]:
    return {m["alias"]: m["status"] for m in gateway.api("GET", "/api/health", expect=200)["models"]}


@pytest.mark.parametrize(
    ("notice", "kind", "status"),
    [(CREDITS, "paywalled", "no access"), (QUOTA, "paywalled", "no access"), (RATE, "capacity", "throttled")],
)
def test_a_notice_answered_as_a_200_fails_the_seat_with_its_kind(
    bench: Gateway, upstream: FakeUpstream, notice: str, kind: str, status: str
) -> None:
    upstream.behave("m2", answer=notice)
    seats = seats_of(ask(bench, hello()))
    assert seats["m2"]["status"] == "error" and seats["m2"]["answer"] == ""
    assert seats["m2"]["error"].startswith(f"{kind}: ")
    assert seats["m1"]["status"] == seats["m3"]["status"] == "ok"
    assert health(bench)["m2"] == status


def test_a_200_notice_counts_as_the_same_words_sent_as_a_402(bench: Gateway, upstream: FakeUpstream) -> None:
    upstream.behave("m1", answer=CREDITS)
    upstream.behave("m2", status=402, error_message=CREDITS)
    seats = seats_of(ask(bench, hello()))
    assert seats["m1"]["error"].split(":")[0] == seats["m2"]["error"].split(":")[0] == "paywalled"
    shown = health(bench)
    assert shown["m1"] == shown["m2"] == "no access"
    usage = bench.api("GET", "/api/usage?limit=50", expect=200)["recent"]
    noted = {row["alias"]: (row["status"], row["error_kind"]) for row in usage if row["purpose"] == "panel"}
    assert noted["m1"] == noted["m2"] == ("error", "paywalled")


def test_a_seat_that_answered_a_notice_cannot_be_judged(bench: Gateway, upstream: FakeUpstream) -> None:
    upstream.behave("m3", answer=CREDITS)
    m3 = seats_of(ask(bench, hello()))["m3"]
    refused = httpx.post(f"{bench.url}/bench/verdict", json={"call": m3["call"], "useful": True}, timeout=30)
    assert refused.status_code == 400
    assert "failed" in refused.json()["error"]["message"]


def test_a_real_answer_about_quotas_is_an_answer(bench: Gateway, upstream: FakeUpstream) -> None:
    upstream.behave("m1", answer=ABOUT_QUOTAS)
    upstream.behave("m2", answer="Quota: the share of something each person gets.")
    seats = seats_of(ask(bench, hello()))
    assert (seats["m1"]["status"], seats["m1"]["answer"]) == ("ok", ABOUT_QUOTAS)
    assert seats["m2"]["status"] == "ok"


def test_reading_notices_can_be_turned_off(bench: Gateway, upstream: FakeUpstream) -> None:
    bench.gateway_settings(detect_quota_notices=False)
    upstream.behave("m2", answer=CREDITS)
    m2 = seats_of(ask(bench, hello()))["m2"]
    assert (m2["status"], m2["answer"]) == ("ok", CREDITS)
