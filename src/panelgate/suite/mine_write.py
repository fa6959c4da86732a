"""Writing a mined task's folder (`task.json` and its fixtures), or leaving the one already there alone.

A task already in the data folder under the same id was mined from the same
panel and claim before, and a person may have edited it since (reworded the
claim, cleared the draft flag), so it is never overwritten. A folder is
built under a dot-name (which the task library skips) and renamed into
place, so a run never sees a task without its fixtures. Fixture text is
written as UTF-8 bytes with no newline translation: the fixture is the file
as sent.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

from panelgate.suite.mine_tasks import MinedTask
from panelgate.suite.task_file import FIXTURES, TASK_FILE


def write_mined(target: Path, task: MinedTask) -> bool:
    """Write the task's folder under `target`; False when a task with its id is already there."""
    final = target / task.id
    if final.exists():
        return False
    target.mkdir(parents=True, exist_ok=True)
    temporary = target / f".mining-{task.id}"
    shutil.rmtree(temporary, ignore_errors=True)
    try:
        temporary.mkdir()
        for path, text in task.fixtures.items():
            file = temporary / FIXTURES / path
            file.parent.mkdir(parents=True, exist_ok=True)
            file.write_bytes(text.encode("utf-8"))
        text = json.dumps(task.document, indent=2, ensure_ascii=False) + "\n"
        (temporary / TASK_FILE).write_text(text, encoding="utf-8")
        try:
            os.rename(temporary, final)
        except OSError:
            if final.exists():  # written meanwhile by another mining of the same panel
                return False
            raise
    finally:
        shutil.rmtree(temporary, ignore_errors=True)
    return True
