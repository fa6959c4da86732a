"""Every task the suite knows: the starter pack shipped in the package, and the data folder's own.

A fresh install has an empty data folder, and a suite with nothing in it
would be a feature nobody sees, so the starter pack (`starter/`, written
about panelgate's own code) is always read. A person's tasks live in
`<data folder>/suite/tasks/<id>/`; one with the same id as a starter task
replaces it, so a starter task can be corrected without editing the
package. Bad folders are reported next to the tasks that loaded.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from panelgate.suite.task import Task
from panelgate.suite.task_file import TaskProblem, read_task

STARTER_DIR = Path(__file__).parent / "starter"
STARTER = "starter"
DATA = "data"


def tasks_dir(data_dir: Path) -> Path:
    """Where a person's tasks live in the data folder."""
    return data_dir / "suite" / "tasks"


@dataclass(frozen=True)
class Catalogue:
    tasks: dict[str, Task]
    """By id, in id order."""
    problems: tuple[TaskProblem, ...]

    def runnable(self) -> list[Task]:
        """The tasks a run covers when none are named: every task that is not a draft."""
        return [task for task in self.tasks.values() if not task.draft]


def load_catalogue(data_tasks: Path, starter: Path = STARTER_DIR) -> Catalogue:
    """The starter pack and then the data folder's tasks (which win on the same id)."""
    found: dict[str, Task] = {}
    problems: list[TaskProblem] = []
    for folder, origin in ((starter, STARTER), (data_tasks, DATA)):
        for task in _read_folder(folder, origin, problems):
            found[task.id] = task
    return Catalogue({task_id: found[task_id] for task_id in sorted(found)}, tuple(problems))


def _read_folder(folder: Path, origin: str, problems: list[TaskProblem]) -> list[Task]:
    if not folder.is_dir():
        return []
    try:
        entries = sorted(folder.iterdir())
    except OSError as error:
        problems.append(TaskProblem(str(folder), None, f"cannot be listed: {error.strerror or error}"))
        return []
    tasks = []
    for entry in entries:
        if not entry.is_dir() or entry.name.startswith("."):
            continue
        read = read_task(entry, origin)
        if isinstance(read, TaskProblem):
            problems.append(read)
        else:
            tasks.append(read)
    return tasks
