"""Mining a judged panel: its seats' verified claims become draft claim tasks in the data folder.

The gateway keeps no prompt, so the files the panel was sent come from the
caller (the CLI keeps what `panelgate ask -f` sent, see `cli/asked_files`);
the claims come from the record: each seat's current verdict. The order of
refusals follows what a person has to fix first: a panel that is not on
record, then one nobody has checked claims on, then the missing files.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from panelgate.core.errors import NotFound
from panelgate.store import Database
from panelgate.suite.library import tasks_dir
from panelgate.suite.mine_tasks import JudgedSeat, MinedTask, mine
from panelgate.suite.mine_write import write_mined


@dataclass(frozen=True)
class MineReport:
    panel: str
    collection: str
    written: tuple[MinedTask, ...]
    existing: tuple[MinedTask, ...]
    """Mined from this panel before: left as they are (a person may have edited them)."""
    warnings: tuple[str, ...]


async def mine_panel(db: Database, data_dir: Path, panel: str, files: Mapping[str, str]) -> MineReport:
    """Write one draft claim task per verified claim of `panel`, its fixtures the files sent."""
    found = await db.panels.get(panel)
    if found is None:
        raise NotFound(
            f"no panel `{panel}` is recorded; use the id a reply's bench.panel names", param="panel"
        )
    record, seats = found
    verdicts = await db.verdicts.current_of([seat.call for seat in seats])
    judged = [
        JudgedSeat(seat.call, seat.alias, verdict.real, verdict.false, verdict.actor, verdict.at)
        for seat in seats
        if (verdict := verdicts.get(seat.call)) is not None
    ]
    mining = mine(panel, judged, files)
    target = tasks_dir(data_dir)
    written: list[MinedTask] = []
    existing: list[MinedTask] = []
    for task in mining.tasks:
        fresh = await asyncio.to_thread(write_mined, target, task)
        (written if fresh else existing).append(task)
    return MineReport(panel, record.collection, tuple(written), tuple(existing), mining.warnings)
