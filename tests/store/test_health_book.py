"""Evidence for health: calls from the usage ledger, probes, restores, and what endpoints list."""

from __future__ import annotations

from dataclasses import replace
from datetime import timedelta

from panelgate.store import Database
from panelgate.store.health_book import ProbeRecord
from panelgate.store.usage_book import UsageEntry

from .conftest import T0, later

ALPHA = ("local", "org/alpha-7b")


def call(at_minutes: int, status: str = "ok", kind: str | None = None, purpose: str = "panel") -> UsageEntry:
    return UsageEntry(
        at=later(at_minutes), endpoint="local", served_id="org/alpha-7b", alias="alpha", caller="local",
        purpose=purpose, call=None, status=status, error_kind=kind, attempts=1, tokens_in=None,
        tokens_out=None, tokens_reasoning=None, seconds=1.0,
    )  # fmt: skip


def probe(at_minutes: int, status: str, kind: str | None = None, model_id: int = 1) -> ProbeRecord:
    return ProbeRecord(at=later(at_minutes), model_id=model_id, alias="alpha", endpoint="local",
                       served_id="org/alpha-7b", probe="ready", status=status, error_kind=kind)  # fmt: skip


async def test_failures_after_the_last_answer_are_the_evidence(bench: Database) -> None:
    for entry in (call(0, "error", "other"), call(10), call(20, "error", "structural"), call(30, "empty")):
        bench.usage.note(entry)
    history = (await bench.health.calls({ALPHA: T0}))[ALPHA]
    assert history.last_answer == later(10)
    assert [(f.at, f.failure) for f in history.failures] == [(later(20), "structural"), (later(30), "empty")]
    assert history.latest is not None and history.latest.at == later(30)


async def test_calls_before_the_start_do_not_count(bench: Database) -> None:
    bench.usage.note(call(0, "error", "structural"))
    history = (await bench.health.calls({ALPHA: later(5)}))[ALPHA]
    assert (history.failures, history.latest) == ((), None)


async def test_probes_count_once_from_the_probes_table(bench: Database) -> None:
    alpha = await bench.models.get("alpha")
    assert alpha is not None
    bench.usage.note(call(0, "error", "structural", purpose="probe"))  # the ledger's row of the same probe
    await bench.health.add_probe(probe(0, "error", "structural", alpha.id))
    await bench.health.add_probe(probe(5, "refused", "capacity", alpha.id))
    history = (await bench.health.calls({ALPHA: T0}))[ALPHA]
    assert [(f.purpose, f.failure) for f in history.failures] == [
        ("probe", "structural"),
        ("probe", "capacity"),
    ]


async def test_a_speed_or_capability_probe_failing_is_not_held_against_the_model(bench: Database) -> None:
    alpha = await bench.models.get("alpha")
    assert alpha is not None
    for kind in ("speed-large", "tools"):
        await bench.health.add_probe(replace(probe(0, "error", "other", alpha.id), probe=kind))
    assert (await bench.health.calls({ALPHA: T0}))[ALPHA].failures == ()


async def test_a_probe_that_answered_is_an_answer(bench: Database) -> None:
    alpha = await bench.models.get("alpha")
    assert alpha is not None
    bench.usage.note(call(0, "error", "other"))
    await bench.health.add_probe(probe(5, "ok", model_id=alpha.id))
    history = (await bench.health.calls({ALPHA: T0}))[ALPHA]
    assert (history.last_answer, history.failures) == (later(5), ())


async def test_the_newest_probe_of_each_kind(bench: Database) -> None:
    alpha = await bench.models.get("alpha")
    assert alpha is not None
    for minutes, status in ((0, "error"), (5, "ok")):
        await bench.health.add_probe(probe(minutes, status, model_id=alpha.id))
    newest = await bench.health.latest_probes([alpha.id], T0)
    assert newest[alpha.id]["ready"].status == "ok"
    assert [p.at for p in await bench.health.recent_probes(alpha.id)] == [later(5), later(0)]


async def test_a_restore_is_found_under_the_alias_it_had(bench: Database) -> None:
    await bench.models.retire("alpha", "gone", actor="t")
    await bench.models.restore("alpha", actor="t")
    await bench.models.rename("alpha", "alpha2", actor="t")
    restored = await bench.health.restored_at(["alpha2", "alpha"])
    assert set(restored) == {"alpha"}


async def test_a_model_left_out_of_the_listing_is_missing_since_it_was_first_left_out(
    bench: Database,
) -> None:
    bench_ids = ["org/alpha-7b", "org/beta-7b"]
    await bench.health.note_listing("local", bench_ids, ["org/alpha-7b", "org/beta-7b"], T0)
    await bench.health.note_listing("local", bench_ids, ["org/alpha-7b"], later(60))
    await bench.health.note_listing("local", bench_ids, ["org/alpha-7b"], later(60) + timedelta(days=1))
    assert await bench.health.missing() == {("local", "org/beta-7b"): later(60)}
    await bench.health.note_listing("local", bench_ids, bench_ids, later(60) + timedelta(days=2))
    assert await bench.health.missing() == {}
