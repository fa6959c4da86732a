"""Filling a configured panelgate store with a long record: panels, seats, evidence and verdicts.

The growth benchmark needs a store that looks like a year of real use, not
an empty one, and it needs it in minutes: so rows go straight into the real
tables (`panelgate.store.tables`) with SQLAlchemy core executemany, one
transaction per batch of panels, instead of through the gateway. Each row
copies what a real 3-seat panel writes (`benchmarks/growth.py` runs one
first): ids in the gateway's own form, times spread over `days` up to now,
a mix of shapes, callers and statuses, answers of a few hundred characters,
and verdicts on a third of the seats, given some minutes after the panel —
fewer on the last two days' panels, so recent panels still owe verdicts.
Only the columns a panel must write are named, so columns added later with
a default keep working. Verdicts written this way pass by the counts the
gateway keeps as each one is written, so the fill ends by counting them
afresh (`store/verdict_tallies.recount`).
"""

from __future__ import annotations

import argparse
import random
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncConnection, create_async_engine

from panelgate.store.tables import evidence, models, panels, seats, verdicts
from panelgate.store.verdict_tallies import recount

SHAPE_WEIGHTS = {
    "general": 30,
    "code": 25,
    "review": 15,
    "prose": 10,
    "quick": 10,
    "design": 5,
    "enumeration": 5,
}
USEFUL_SHARE = {"m1": 0.7, "m2": 0.55, "m3": 0.4}
"""How often each member's judged answers are useful, so the record's ranking has something to rank."""
KEYED_CALLERS = {1: "ci-agent", 2: "claude-code"}
"""Gateway keys that ask besides the keyless `local` caller (`panels.caller_key_id` is no foreign key)."""
PROMPTS = (
    "Review this diff for races in the connection pool and say which lock is missing",
    "Write a function that merges overlapping intervals and explain its complexity",
    "Which of these three designs for the job queue survives a restart mid-run?",
    "List every place the settings are read after start-up",
    "Summarise the incident report in five sentences for the status page",
    "Why does the test pass alone and fail in the full suite?",
)
RARE_PROMPT = "Port the billing export to the new ledger schema"
RARE_SHARE = 0.001
"""A task one panel in a thousand asked for: the record filtered by its words reads that many, not all."""
ANSWER_TEXT = (
    "the pool keeps one connection per host and the lock is taken before the read, so a second "
    "caller waits; the fix is to release it before awaiting the reply and to count the waiters, "
    "which also bounds the queue when the upstream is slow and keeps the tail short under load"
)
RECENT = timedelta(days=2)
RECENT_VERDICT_SHARE = 0.1
"""Share of the last two days' seats that already have a verdict: the rest are still owed."""


@dataclass(frozen=True)
class FillPlan:
    panels: int
    days: float
    batch: int
    collection: str
    seed: int = 23


@dataclass
class FillResult:
    panels: int
    seats: int
    verdicts: int
    seconds: float


def add_fill_arguments(parser: argparse.ArgumentParser) -> None:
    """The store and the fill's size, shared by the benchmarks that fill one (`growth.py`,
    `upgrade_words.py`)."""
    parser.add_argument("--panels", type=int, default=1_000_000, help="panels to fill the store with")
    parser.add_argument("--days", type=float, default=90.0, help="days the filled panels are spread over")
    parser.add_argument("--batch", type=int, default=5_000, help="panels per insert transaction")
    parser.add_argument(
        "--database-url", default="", help="an empty PostgreSQL database (default: SQLite in a temp folder)"
    )


def answer_pool(rng: random.Random, count: int = 64) -> list[str]:
    """Answers of 200–600 characters, made once: 3,000,000 fresh strings would cost more than inserts."""
    words = ANSWER_TEXT.split()
    pool = []
    for n in range(count):
        words = [rng.choice(words) for _ in range(rng.randint(40, 110))]
        pool.append(f"Answer {n}: " + " ".join(words) + ".")
    return pool


def panel_times(plan: FillPlan, now: datetime, rng: random.Random) -> list[datetime]:
    """`plan.panels` times, oldest first, spread evenly at random over the last `plan.days` days."""
    span = plan.days * 86400.0
    offsets = sorted((rng.random() * span for _ in range(plan.panels)), reverse=True)
    return [now - timedelta(seconds=offset) for offset in offsets]


class RowMaker:
    """The rows of one panel at a time, in the shape a real 3-seat panel leaves them."""

    def __init__(self, plan: FillPlan, aliases: dict[str, int], now: datetime, rng: random.Random) -> None:
        self.plan = plan
        self.aliases = sorted(aliases.items())
        self.now = now
        self.rng = rng
        self.answers = answer_pool(rng)
        self.shapes = list(SHAPE_WEIGHTS)
        self.weights = list(SHAPE_WEIGHTS.values())

    def panel(self, number: int, at: datetime, rows: dict[str, list[dict[str, Any]]]) -> None:
        rng = self.rng
        pid = f"p{at:%Y%m%d-%H%M%S}-{number % 65536:04x}"
        shape = rng.choices(self.shapes, self.weights)[0]
        key_id = rng.choice((None, None, None, 1, 2))
        rows["panels"].append(
            {
                "id": pid,
                "collection": self.plan.collection,
                "at": at,
                "caller": "local" if key_id is None else KEYED_CALLERS[key_id],
                "caller_key_id": key_id,
                "shape": shape,
                "shape_by": "rules",
                "reply": "all",
                "note": "",
                "skipped": [],
                "prompt_preview": RARE_PROMPT if rng.random() < RARE_SHARE else rng.choice(PROMPTS),
                "seats": len(self.aliases),
                "owes_verdicts": rng.random() >= 0.1,  # a chat UI's background tasks owe none
                "options": {},
            }
        )
        verdict_share = RECENT_VERDICT_SHARE if self.now - at < RECENT else 0.36
        for position, (alias, model_id) in enumerate(self.aliases):
            call = f"{pid}.member{position + 1}"
            failed = rng.random() < 0.03
            status = "error" if failed else "ok"
            rows["seats"].append(
                {
                    "call": call,
                    "panel": pid,
                    "position": position,
                    "label": "member",
                    "kind": "member",
                    "model_id": model_id,
                    "alias": alias,
                    "status": status,
                    "seconds": round(rng.uniform(0.8, 25.0), 3),
                    "answer": "" if failed else rng.choice(self.answers),
                    "error": "upstream answered HTTP 503" if failed else "",
                    "tokens_in": rng.randint(200, 4000),
                    "tokens_out": None if failed else rng.randint(60, 900),
                }
            )
            rows["evidence"].append(
                {
                    "call": call,
                    "model_id": model_id,
                    "source": "panel",
                    "collection": self.plan.collection,
                    "shape": shape,
                    "at": at,
                    "status": status,
                }
            )
            if not failed and rng.random() < verdict_share:
                rows["verdicts"].append(self.verdict(call, alias, at))

    def verdict(self, call: str, alias: str, at: datetime) -> dict[str, Any]:
        rng = self.rng
        useful = rng.random() < USEFUL_SHARE.get(alias, 0.5)
        return {
            "call": call,
            "useful": useful,
            "note": "" if rng.random() < 0.7 else ("right and complete" if useful else "missed the lock"),
            "real_claims": [],
            "false_claims": [],
            "at": min(self.now, at + timedelta(minutes=rng.uniform(1, 90))),
            "actor": "local",
            "source": "claude-code" if rng.random() < 0.3 else None,
        }


def batches(
    plan: FillPlan, maker: RowMaker, times: list[datetime]
) -> Iterator[dict[str, list[dict[str, Any]]]]:
    for start in range(0, len(times), plan.batch):
        rows: dict[str, list[dict[str, Any]]] = {"panels": [], "seats": [], "evidence": [], "verdicts": []}
        for number in range(start, min(start + plan.batch, len(times))):
            maker.panel(number, times[number], rows)
        yield rows


async def member_ids(connection: AsyncConnection) -> dict[str, int]:
    found = await connection.execute(select(models.c.alias, models.c.id))
    return {alias: int(model_id) for alias, model_id in found.all()}


async def fill(url: str, plan: FillPlan, say: Callable[[str], None]) -> FillResult:
    """Insert `plan.panels` panels into the store at `url` (already migrated and configured)."""
    engine = create_async_engine(url)
    rng = random.Random(plan.seed)
    now = datetime.now(UTC)
    started = time.monotonic()
    counted = FillResult(0, 0, 0, 0.0)
    tables = (("panels", panels), ("seats", seats), ("evidence", evidence), ("verdicts", verdicts))
    try:
        async with engine.connect() as connection:
            aliases = await member_ids(connection)
        maker = RowMaker(plan, aliases, now, rng)
        for rows in batches(plan, maker, panel_times(plan, now, rng)):
            async with engine.begin() as connection:
                for name, table in tables:
                    if rows[name]:
                        await connection.execute(table.insert(), rows[name])
            counted.panels += len(rows["panels"])
            counted.seats += len(rows["seats"])
            counted.verdicts += len(rows["verdicts"])
            if counted.panels % max(plan.batch, 100_000) < plan.batch:
                say(f"filled {counted.panels:,} panels in {time.monotonic() - started:.0f} s")
        async with engine.begin() as connection:  # the counts the gateway keeps as verdicts are written
            await recount(connection)
        if engine.dialect.name == "postgresql":
            async with engine.begin() as connection:  # as autovacuum would, some minutes later
                await connection.exec_driver_sql("ANALYZE")
    finally:
        await engine.dispose()
    counted.seconds = time.monotonic() - started
    return counted
