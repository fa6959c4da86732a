"""The review suite's desk, made when a scheduled pass or an onboarding run first asks for it.

Most gateway processes never ask the suite anything: the scheduler is off by
default, only the process holding its lease runs the nightly pass, and
onboarding runs the suite only when a person adds a model. The desk, its
task library, planning and scoring cost an idle process about half a MiB
(docs/benchmarks.md), so the app holds this instead and the suite's modules
are imported by the first call to `desk()`.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from panelgate.store import Database

if TYPE_CHECKING:
    from panelgate.engine.suite_call import SuiteClient
    from panelgate.suite.desk import SuiteDesk


class SuiteOnDemand:
    def __init__(self, db: Database, client: SuiteClient, data_dir: Path) -> None:
        self._db = db
        self._client = client
        self._data_dir = data_dir
        self._desk: SuiteDesk | None = None

    def desk(self) -> SuiteDesk:
        """The process's one desk, made (and the suite imported) on the first call."""
        if self._desk is None:
            from panelgate.suite.desk import SuiteDesk

            self._desk = SuiteDesk(self._db, self._client, self._data_dir)
        return self._desk
