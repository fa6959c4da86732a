"""A seeding run on the server: read the registered repository, plant the pairs, write their task folders.

New pairs are drafts unless the person says otherwise. A one-token change
can leave behaviour as it was (a `<` that became `<=` where the two values
are never equal, a `+ 1` on a number nobody reads), and a bug task whose
key says `FAULT` for code that is still right would count a careful model's
`NO FAULT` as an invention. A draft is left out of runs until a person has
read the pair and set `"draft": false` in its `task.json`; `draft=False`
at seeding time is for a person who accepts that risk knowingly.

Each task folder is written under a temporary dot-name (which the task
library skips) and renamed into place, so a run never sees half a task.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

from panelgate.store.errors import Conflict, Invalid
from panelgate.suite.library import STARTER_DIR, tasks_dir
from panelgate.suite.seed import SeededPair, SeedPlan, seed_pairs
from panelgate.suite.seed_repo import read_modules
from panelgate.suite.seed_repos import folder_of, repos_file
from panelgate.suite.task_file import TASK_FILE


def seed_into(data_dir: Path, plan: SeedPlan) -> list[SeededPair]:
    """Plant `plan.count` pairs from the registered repository into the data folder's tasks.

    Returns the pairs written: fewer than asked when the code offers no more places.
    """
    folder = folder_of(repos_file(data_dir), plan.repo)
    modules = read_modules(folder)
    if not modules:
        raise Invalid(
            f"repository `{plan.repo}` ({folder}) holds no Python modules to seed from", field="repo"
        )
    target = tasks_dir(data_dir)
    pairs = seed_pairs(modules, plan, taken=frozenset(ids_in(target) | ids_in(STARTER_DIR)))
    for pair in pairs:
        write_task(target, pair.bug)
        write_task(target, pair.control)
    return pairs


def write_task(target: Path, task: dict[str, object]) -> Path:
    """Write one task folder (`<target>/<id>/task.json`) whole, or refuse when the id is taken."""
    task_id = str(task["id"])
    final = target / task_id
    temporary = target / f".seeding-{task_id}"
    target.mkdir(parents=True, exist_ok=True)
    shutil.rmtree(temporary, ignore_errors=True)
    temporary.mkdir()
    try:
        text = json.dumps(task, indent=2, ensure_ascii=False) + "\n"
        (temporary / TASK_FILE).write_text(text, encoding="utf-8")
        if final.exists():
            raise Conflict(f"a task `{task_id}` already exists in {target}", field="repo")
        os.rename(temporary, final)
    finally:
        shutil.rmtree(temporary, ignore_errors=True)
    return final


def ids_in(folder: Path) -> set[str]:
    """The ids of the task folders in `folder` (none when it is not there)."""
    return {entry.name for entry in folder.iterdir() if entry.is_dir()} if folder.is_dir() else set()
