"""The sign-in records' rules, held in the database whatever process asks: a state works once, a pending
sign-in lives 15 minutes, a device poll waits its turn, and one holder renews a token at a time."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta

from panelgate.store import Database
from panelgate.store.signins import NewSignin

NOW = datetime(2026, 12, 2, 9, 0, tzinfo=UTC)


def pending(signin_id: str = "s1", **fields: object) -> NewSignin:
    values: dict[str, object] = {
        "id": signin_id,
        "state": "state-" + signin_id,
        "provider": "huggingface",
        "flow": "oauth",
        "endpoint": "huggingface",
        "client_id": "cid",
        "verifier": "verifier-" + signin_id,
        "redirect_uri": "http://gw/connect/callback",
    }
    return NewSignin(**(values | fields))  # type: ignore[arg-type]


async def test_a_state_is_claimed_once_when_two_callbacks_arrive_together(db: Database):
    await db.signins.start(pending(), NOW)
    claims = await asyncio.gather(*(db.signins.claim(NOW, state="state-s1") for _ in range(2)))
    won = [claim for claim in claims if claim is not None]
    assert len(won) == 1 and won[0].verifier == "verifier-s1"
    await db.signins.finish("s1", "connected", NOW)
    assert await db.signins.claim(NOW, state="state-s1") is None


async def test_a_pending_sign_in_expires_after_15_minutes_and_forgets_its_verifier(db: Database):
    await db.signins.start(pending(), NOW)
    later = NOW + timedelta(minutes=15)
    assert await db.signins.claim(later, state="state-s1") is None
    found = await db.signins.get("s1", later)
    assert found is not None and found.status == "expired"
    assert await db.signins.claim(NOW, state="state-s1") is None, "an expired sign-in stays expired"


async def test_a_device_poll_waits_for_its_interval_and_one_poller_at_a_time(db: Database):
    await db.signins.start(
        pending(flow="device", device_code="dc", next_poll_at=NOW + timedelta(seconds=5)), NOW
    )
    assert await db.signins.take_device_turn("s1", NOW) is None, "not before the interval"
    turns = await asyncio.gather(
        *(db.signins.take_device_turn("s1", NOW + timedelta(seconds=5)) for _ in range(2))
    )
    assert sum(turn is not None for turn in turns) == 1
    await db.signins.wait_again("s1", 10, NOW + timedelta(seconds=5))
    assert await db.signins.take_device_turn("s1", NOW + timedelta(seconds=14)) is None, "slowed down to 10 s"
    assert await db.signins.take_device_turn("s1", NOW + timedelta(seconds=15)) is not None


async def test_one_holder_renews_a_token_until_its_claim_lapses(db: Database):
    await db.endpoints.add("hf", "http://127.0.0.1:9/v1", key_name="hf", actor="test")
    await db.grants.save(
        "hf", provider="huggingface", client_id="cid", client_from="yours",
        expires_at=NOW + timedelta(minutes=2), refreshes=True, key_digest="d1", now=NOW, actor="test",
    )  # fmt: skip
    due = NOW + timedelta(minutes=5)
    hold = timedelta(minutes=2)
    assert await db.grants.claim_renewal("hf", "a", due_before=due, now=NOW, hold_for=hold) is not None
    assert await db.grants.claim_renewal("hf", "b", due_before=due, now=NOW, hold_for=hold) is None
    later = NOW + hold
    assert await db.grants.claim_renewal(
        "hf", "b", due_before=later + timedelta(minutes=5), now=later, hold_for=hold
    )
    renewed_until = later + timedelta(hours=1)
    await db.grants.renewed("hf", "b", expires_at=renewed_until, refreshes=True, key_digest="d2", now=later)
    assert await db.grants.due(later + timedelta(minutes=5)) == [], "renewed: not due for an hour"


async def test_removing_the_endpoint_takes_its_sign_in_record_along(db: Database):
    await db.endpoints.add("hf", "http://127.0.0.1:9/v1", actor="test")
    await db.grants.save(
        "hf", provider="huggingface", client_id=None, client_from="built-in",
        expires_at=None, refreshes=False, key_digest=None, now=NOW, actor="test",
    )  # fmt: skip
    await db.endpoints.remove("hf", actor="test")
    assert await db.grants.list() == []
