"""How long the first start after 0029 waits: the task filter's word index built on a long record.

    .venv/bin/python benchmarks/upgrade_words.py                  # SQLite, 1,000,000 panels
    .venv/bin/python benchmarks/upgrade_words.py --database-url postgresql://u@127.0.0.1:5432/empty_db
    .venv/bin/python benchmarks/upgrade_words.py --panels 100000  # a quick look

A gateway migrates its database before it serves, so a store kept before
revision 0029 gets its word index (`store/task_words.py`) on the first start
after the upgrade, and that start waits for it. This brings an empty store
to 0028, fills it with `growth_fill.py` as `growth.py` does, times the
upgrade to 0029 alone, checks that the index finds what a scan finds, and
reports the store's size before and after. The report goes to stdout and
to `benchmarks/reports/upgrade-words-<database>-<timestamp>.md`.
"""

from __future__ import annotations

import argparse
import asyncio
import shlex
import shutil
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from growth import async_url, save
from growth_fill import RARE_PROMPT, USEFUL_SHARE, FillPlan, FillResult, add_fill_arguments, fill
from harness import git_describe
from report import machine_lines
from sqlalchemy import Connection, func, insert, select
from sqlalchemy.ext.asyncio import AsyncEngine, create_async_engine

from panelgate.store.migrate import alembic_config
from panelgate.store.tables import models, panels
from panelgate.store.task_words import prompts_holding

BEFORE = "0028"
WORD_INDEX = "0029"
WORD = RARE_PROMPT.split()[-2].lower()
"""A word of the fill's rare prompt (`ledger`): the index must find the panels a scan finds."""


@dataclass
class Upgraded:
    filled: FillResult
    seconds: float
    size_before: int
    size_after: int
    by_index: int
    by_scan: int


def say(message: str) -> None:
    print(f"[{datetime.now():%H:%M:%S}] {message}", file=sys.stderr, flush=True)


def migrate_to(revision: str) -> Callable[[Connection], None]:
    def upgrade(connection: Connection) -> None:
        from alembic import command

        command.upgrade(alembic_config(connection), revision)

    return upgrade


async def store_size(engine: AsyncEngine, url: str) -> int:
    if engine.dialect.name == "postgresql":
        async with engine.connect() as connection:
            return int(await connection.scalar(select(func.pg_database_size(func.current_database()))) or 0)
    database = Path(url.split("///", 1)[1])
    return sum(path.stat().st_size for path in database.parent.glob(database.name + "*"))


async def add_members(engine: AsyncEngine) -> None:
    """The fill's members as model rows (the fill looks their ids up); no endpoint is needed."""
    now = datetime.now(UTC)
    rows = [
        {"alias": alias, "served_id": f"org/{alias}", "role": "general", "ad_hoc": False, "options": {},
         "retired_why": "", "created_at": now}
        for alias in USEFUL_SHARE
    ]  # fmt: skip
    async with engine.begin() as connection:
        await connection.execute(insert(models), rows)


async def run(args: argparse.Namespace, url: str) -> Upgraded:
    engine = create_async_engine(url)
    try:
        async with engine.begin() as connection:
            await connection.run_sync(migrate_to(BEFORE))
        await add_members(engine)
        say(f"store at {BEFORE}; filling {args.panels:,} panels")
        filled = await fill(url, FillPlan(args.panels, args.days, args.batch, "trio"), say)
        size_before = await store_size(engine, url)
        say(f"filled in {filled.seconds:.0f} s; upgrading to {WORD_INDEX}")
        started = time.monotonic()
        async with engine.begin() as connection:
            await connection.run_sync(migrate_to(WORD_INDEX))
        seconds = time.monotonic() - started
        size_after = await store_size(engine, url)
        async with engine.connect() as connection:
            indexed = prompts_holding(engine.dialect.name, WORD).subquery()
            by_index = await connection.scalar(select(func.count()).select_from(indexed)) or 0
            scanned = select(func.count()).where(func.lower(panels.c.prompt_preview).contains(WORD))
            by_scan = await connection.scalar(scanned) or 0
    finally:
        await engine.dispose()
    return Upgraded(filled, seconds, size_before, size_after, by_index, by_scan)


def render(args: argparse.Namespace, url: str, upgraded: Upgraded) -> str:
    database = "PostgreSQL" if "postgresql" in url else "SQLite"
    filled = upgraded.filled
    before, after = upgraded.size_before / 1_000_000, upgraded.size_after / 1_000_000
    found = f"{upgraded.by_index:,} / {upgraded.by_scan:,}"
    lines = [
        f"# Upgrading a long record to {WORD_INDEX} (the task filter's word index): {database}",
        "",
        f"- run: {datetime.now().astimezone():%Y-%m-%d %H:%M %Z}; command: "
        f"`{shlex.join(['benchmarks/upgrade_words.py', *sys.argv[1:]])}`; panelgate tree at {git_describe()}",
        f"- store at {BEFORE}, filled with {filled.panels:,} panels, {filled.seats:,} seats and"
        f" {filled.verdicts:,} verdicts over {args.days:g} days (`growth_fill.py`) in {filled.seconds:.0f} s",
        *machine_lines(),
        "",
        "| measure | value |",
        "|---|---|",
        f"| upgrade {BEFORE} → {WORD_INDEX} (the first start's wait) | {upgraded.seconds:.1f} s |",
        f"| store size before / after | {before:,.0f} MB / {after:,.0f} MB |",
        f"| panels whose prompt holds `{WORD}`, by index / by scan | {found} |",
    ]
    return "\n".join(lines)


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    add_fill_arguments(parser)
    return parser.parse_args()


def main() -> int:
    args = parse_args()
    workdir = Path(tempfile.mkdtemp(prefix="panelgate-upgrade-"))
    url = async_url(args.database_url) if args.database_url else f"sqlite+aiosqlite:///{workdir / 'store.db'}"
    try:
        upgraded = asyncio.run(run(args, url))
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    if upgraded.by_index != upgraded.by_scan:
        say(f"the index found {upgraded.by_index:,} panels where a scan finds {upgraded.by_scan:,}")
        return 1
    text = render(args, url, upgraded)
    print(text)
    say(f"saved {save(text, url, 'upgrade-words')}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
