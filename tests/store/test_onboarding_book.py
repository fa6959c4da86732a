"""The onboarding queue's store: items in order, one worker at a time by lease, a stop, a clear, and
dismissed candidates."""

from __future__ import annotations

import pytest

from panelgate.store import Conflict, Database
from panelgate.store.onboarding_book import LeaseLost, NewItem, OnboardingItem, StepRecord

from .conftest import T0, later


async def queue(db: Database, *served_ids: str, batch: str = "b1") -> list[OnboardingItem]:
    items = [NewItem("local", served_id, served_id.replace("/", "-")) for served_id in served_ids]
    return await db.onboarding.enqueue(
        items, batch=batch, suite="full", probe_deadline_s=30, asked_by="ops", now=T0
    )


async def test_a_queued_batch_waits_in_order_with_every_step_pending(bench: Database) -> None:
    first, second = await queue(bench, "org/one", "org/two")
    assert (first.alias, first.state, first.step, first.starts) == ("org-one", "queued", "register", 0)
    assert [(step.name, step.state) for step in first.steps] == [
        ("register", "pending"),
        ("probe", "pending"),
        ("suite", "pending"),
    ]
    assert [item.id for item in await bench.onboarding.waiting()] == [first.id, second.id]
    next_item = await bench.onboarding.next_item()
    assert next_item is not None and next_item.id == first.id


async def test_a_model_waits_in_the_queue_once(bench: Database) -> None:
    await queue(bench, "org/one")
    with pytest.raises(Conflict, match="in the onboarding queue already"):
        await queue(bench, "org/two", "org/one", batch="b2")
    assert [item.served_id for item in await bench.onboarding.items()] == ["org/one"], "all or nothing"


async def test_one_worker_holds_the_lease_until_it_lapses(bench: Database) -> None:
    assert await bench.onboarding.take_lease("a", T0, 10)
    assert not await bench.onboarding.take_lease("b", later(0), 10)
    assert await bench.onboarding.take_lease("b", later(1), 10), "taken over once a's lease expired"
    lease = await bench.onboarding.lease()
    assert lease is not None and (lease.holder, lease.taken_at) == ("b", later(1))


async def test_a_worker_that_lost_the_lease_writes_nothing(bench: Database) -> None:
    (item,) = await queue(bench, "org/one")
    await bench.onboarding.take_lease("a", T0, 10)
    begun = await bench.onboarding.begin(item.id, "a", T0)
    assert (begun.state, begun.starts, begun.started_at) == ("running", 1, T0)
    await bench.onboarding.take_lease("b", later(1), 10)
    done = StepRecord("register", "done", "on the bench")
    with pytest.raises(LeaseLost):
        await bench.onboarding.progress(item.id, "a", later(1), step="register", steps=[done])
    with pytest.raises(LeaseLost):
        await bench.onboarding.finish(item.id, "a", later(1), state="done", why="", steps=[done])
    stored = await bench.onboarding.item(item.id)
    assert stored is not None and (stored.state, stored.step_record("register").state) == (
        "running",
        "pending",
    )


async def test_a_begun_item_is_resumed_before_the_queued_ones(bench: Database) -> None:
    first, second = await queue(bench, "org/one", "org/two")
    await bench.onboarding.take_lease("a", T0, 600)
    await bench.onboarding.finish(first.id, "a", T0, state="done", why="ok", steps=first.steps)
    await bench.onboarding.begin(second.id, "a", T0)
    await queue(bench, "org/three", batch="b2")
    resumed = await bench.onboarding.next_item()
    assert resumed is not None and (resumed.id, resumed.state) == (second.id, "running")
    again = await bench.onboarding.begin(second.id, "a", later(1))
    assert (again.starts, again.started_at) == (2, T0), "a second start, the first start's time kept"


async def test_stop_ends_the_queued_asks_the_running_and_clear_forgets_the_finished(bench: Database) -> None:
    first, *_ = await queue(bench, "org/one", "org/two", "org/three")
    await bench.onboarding.take_lease("a", T0, 600)
    await bench.onboarding.begin(first.id, "a", T0)
    assert await bench.onboarding.stop("ops", later(1)) == (2, 1)
    states = {item.served_id: (item.state, item.why) for item in await bench.onboarding.items()}
    assert states == {
        "org/one": ("stopping", "stopped by ops"),
        "org/two": ("stopped", "stopped by ops before it began"),
        "org/three": ("stopped", "stopped by ops before it began"),
    }
    assert await bench.onboarding.clear() == 2
    assert [item.id for item in await bench.onboarding.items()] == [first.id], "what runs stays"


async def test_dismissals_are_kept_audited_and_go_with_their_endpoint(bench: Database) -> None:
    assert await bench.onboarding.dismiss("local", ["x1", "x2"], "ops", T0) == ["x1", "x2"]
    assert await bench.onboarding.dismiss("local", ["x2"], "ops", T0) == []
    assert set(await bench.onboarding.dismissed()) == {("local", "x1"), ("local", "x2")}
    assert await bench.onboarding.undismiss("local", ["x1", "never"], "ops") == ["x1"]
    assert set(await bench.onboarding.dismissed()) == {("local", "x2")}
    actions = [(row.action, row.after or row.before) for row in await bench.audit.list(entity="candidate")]
    assert actions == [("undismiss", {"served_ids": ["x1"]}), ("dismiss", {"served_ids": ["x1", "x2"]})]
    for alias in ("alpha", "beta", "gamma"):
        await bench.models.retire(alias, "going", actor="ops")
    await bench.endpoints.remove("local", actor="ops")
    assert await bench.onboarding.dismissed() == {}
