"""Spend limits per gateway key: tokens and US dollars per UTC day and month.

A key at or over a budget is refused with 429, `Retry-After` and the reset
time, in its caller's API shape; other keys go on. What was spent is read
from the usage ledger every few seconds, so the refusal may come a few
seconds after the calls that spent the budget, in every gateway process.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import httpx
import pytest

from tests.http.helpers import hello
from tests.http.key_helpers import ADMIN_TOKEN, get, keyed_bench, make_key, post, refused
from tests.support.gateway import Gateway
from tests.support.upstream import FakeUpstream

CALL = (1000, 100)
"""Tokens in and out each seat reports: a panel of `core` spends three of these."""
SEEN_WITHIN_S = 10.0
"""How long a budget may take to be seen spent: the ledger is written each second, read every two."""


@pytest.fixture
def keyed(tmp_path: Path, upstream: FakeUpstream) -> Iterator[Gateway]:
    if seconds_to_midnight_utc() < 30:  # a test's spend and its refusal fall in one UTC day
        time.sleep(seconds_to_midnight_utc() + 1)
    with keyed_bench(tmp_path / "home", upstream) as server:
        for model in ("m1", "m2", "m3"):
            upstream.behave(model, usage=CALL)
        yield server


def spend(gateway: Gateway, key: str) -> None:
    """One panel of `core`, answered: 3,300 tokens."""
    answered = post(gateway, "/v1/chat/completions", hello(), key)
    assert answered.status_code == 200, answered.text


def refused_within(gateway: Gateway, key: str) -> httpx.Response:
    """The first refusal of `key` on a route that spends nothing, waiting for the spend to be read."""
    deadline = time.monotonic() + SEEN_WITHIN_S
    while True:
        listing = get(gateway, "/v1/models", key)
        if listing.status_code != 200 or time.monotonic() > deadline:
            return listing
        time.sleep(0.2)


def seconds_to_midnight_utc() -> float:
    now = datetime.now(UTC)
    return 86_400 - (now - now.replace(hour=0, minute=0, second=0, microsecond=0)).total_seconds()


def test_a_key_over_its_tokens_per_day_is_429_with_when_it_resets(keyed: Gateway, upstream: FakeUpstream):
    key = make_key(keyed, tokens_per_day=2000)
    spend(keyed, key)
    over = refused_within(keyed, key)
    message = refused(over, 429)
    assert "2,000 tokens a day (UTC)" in message and "3,300 used" in message
    tomorrow = datetime.now(UTC).date().toordinal() + 1
    assert f"resets at {datetime.fromordinal(tomorrow):%Y-%m-%d} 00:00 UTC" in message
    assert abs(int(over.headers["retry-after"]) - seconds_to_midnight_utc()) <= 5
    assert over.json()["error"]["type"] == "rate_limit_error"
    asked = len(upstream.requests)
    assert post(keyed, "/v1/chat/completions", hello(), key).status_code == 429
    assert len(upstream.requests) == asked, "a refused request reaches no model"


def test_a_spent_key_is_refused_in_the_anthropic_shape(keyed: Gateway):
    key = make_key(keyed, tokens_per_day=2000)
    spend(keyed, key)
    assert refused_within(keyed, key).status_code == 429
    body = {"model": "bench/core", "max_tokens": 100, "messages": [{"role": "user", "content": "hi"}]}
    over = httpx.post(f"{keyed.url}/v1/messages", json=body, headers={"x-api-key": key}, timeout=60)
    assert over.status_code == 429 and int(over.headers["retry-after"]) >= 1
    reply = over.json()
    assert reply["type"] == "error" and reply["error"]["type"] == "rate_limit_error"
    assert "resets at" in reply["error"]["message"]


def test_other_keys_go_on_when_one_is_spent(keyed: Gateway):
    spent = make_key(keyed, name="spent", tokens_per_day=2000)
    budgeted = make_key(keyed, name="budgeted", tokens_per_day=2000)
    unlimited = make_key(keyed, name="unlimited")
    for _ in range(3):
        spend(keyed, unlimited)
    spend(keyed, spent)
    assert refused_within(keyed, spent).status_code == 429
    assert get(keyed, "/v1/models", unlimited).status_code == 200, "a key without budgets is never refused"
    assert post(keyed, "/v1/chat/completions", hello(), budgeted).status_code == 200


def test_a_cost_per_month_budget_refuses_at_the_catalogs_prices(keyed: Gateway):
    for model in ("m1", "m2", "m3"):  # $1.10 a seat: 1,000 in and 100 out at $1,000 per million
        keyed.api("PUT", f"/api/models/{model}/facts", {"price": {"input": 1000, "output": 1000}}, expect=200)
    key = make_key(keyed, cost_per_month=3.0)
    spend(keyed, key)
    message = refused(refused_within(keyed, key), 429)
    assert "$3.00 a month (UTC): $3.3000 used" in message
    now = datetime.now(UTC)
    first = datetime(now.year + now.month // 12, now.month % 12 + 1, 1, tzinfo=UTC)
    assert f"resets at {first:%Y-%m-%d} 00:00 UTC" in message
    (shown,) = keyed.api("GET", "/api/keys")["keys"]
    assert shown["cost_per_month"] == 3.0 and shown["spent"]["month"]["cost"] == pytest.approx(3.3)


def test_budgets_set_and_lifted_later_take_effect(keyed: Gateway):
    made = keyed.api("POST", "/api/keys", {"name": "later"}, expect=201)
    key, path = made["key"], f"/api/keys/{made['id']}"
    spend(keyed, key)
    time.sleep(1.5)  # the ledger is written each second
    keyed.api("PATCH", path, {"tokens_per_day": 1000}, expect=200)
    assert refused_within(keyed, key).status_code == 429
    keyed.api("PATCH", path, {"tokens_per_day": None}, expect=200)
    assert get(keyed, "/v1/models", key).status_code == 200
    assert keyed.api("PATCH", path, {"tokens_per_day": 0}, expect=400)


def test_a_budget_holds_across_two_gateway_processes(keyed: Gateway):
    key = make_key(keyed, tokens_per_day=2000)
    second = Gateway(keyed.home, env=keyed.extra_env, in_process=False).start()
    try:
        assert get(second, "/v1/models", key).status_code == 200
        spend(keyed, key)
        over = refused_within(second, key)
        assert over.status_code == 429 and int(over.headers["retry-after"]) >= 1
    finally:
        second.close()


def test_the_settings_page_shows_each_keys_budgets_and_what_it_spent(keyed: Gateway):
    key = make_key(keyed, tokens_per_day=2000, cost_per_month=5.0)
    make_key(keyed, name="unlimited")
    spend(keyed, key)
    assert refused_within(keyed, key).status_code == 429
    page = httpx.get(f"{keyed.url}/settings", headers={"Authorization": f"Bearer {ADMIN_TOKEN}"}, timeout=30)
    assert page.status_code == 200
    text = " ".join(page.text.split())
    assert "today: 3,300 of 2,000 tokens" in text and "this month: $0.00 of $5.00" in text
    assert text.count("no limit</td>") == 3, "no rpm on either key, no budget on the unlimited one"


def test_limits_refuse_a_typo_a_bad_amount_and_a_revoked_key(keyed: Gateway):
    made = keyed.api("POST", "/api/keys", {"name": "typo"}, expect=201)
    path = f"/api/keys/{made['id']}"
    assert (
        "tokens_per_week" in keyed.api("PATCH", path, {"tokens_per_week": 5}, expect=400)["error"]["message"]
    )
    assert (
        "cost_per_day" in keyed.api("PATCH", path, {"cost_per_day": "lots"}, expect=400)["error"]["message"]
    )
    keyed.api("POST", f"{path}/revoke", expect=200)
    keyed.api("PATCH", path, {"rpm": 5}, expect=409)
    assert keyed.api("PATCH", "/api/keys/999", {"rpm": 5}, expect=404)
