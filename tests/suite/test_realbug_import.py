"""The real-bug importer on fixture records: which fixes make a bug/control pair, and why the rest do not."""

from __future__ import annotations

import json
from pathlib import Path

from panelgate.suite.library import load_catalogue, tasks_dir
from panelgate.suite.realbug_import import from_checkout, from_record, import_bugs, read_records
from panelgate.suite.realbug_screen import Rejection, fix_record, screen
from panelgate.suite.realbug_tasks import real_bug_pair
from tests.suite.realbug_fixtures import PROJECT, RECORDS

LISTED = "```python\n"


def records() -> list[tuple[str, object]]:
    return read_records(RECORDS.read_text())


def listed_lines(prompt: str) -> dict[int, str]:
    """The code in a task's prompt by the line number it is shown with."""
    block = prompt.split(LISTED, 1)[1].split("```", 1)[0]
    return {int(number): text for number, text in (line.split(" | ", 1) for line in block.splitlines())}


def test_each_fair_fix_becomes_a_pair_and_each_other_record_is_rejected_with_its_reason(tmp_path: Path):
    report = import_bugs(tmp_path, records(), [from_record, from_checkout(PROJECT)])
    assert report.read == 9
    assert [pair["record"] for pair in report.written] == [
        "shelfkeeper__shelfkeeper-101",
        "shelfkeeper__shelfkeeper-102",
    ]
    kinds = {r.record: r.kind for r in report.rejected}
    assert kinds == {
        "shelfkeeper__shelfkeeper-103": "multi-file",
        "shelfkeeper__shelfkeeper-104": "test-file",
        "shelfkeeper__shelfkeeper-105": "too-large",
        "shelfkeeper__shelfkeeper-106": "hunks",
        "shelfkeeper__shelfkeeper-107": "comments-only",
        "shelfkeeper__shelfkeeper-108": "does-not-apply",
        "line 9": "malformed",
    }
    why = {r.kind: r.why for r in report.rejected}
    assert "changes 2 files" in why["multi-file"] and "`tests/test_inventory.py`" in why["test-file"]
    assert "removes 6 and adds 5 lines" in why["too-large"] and "2 hunks" in why["hunks"]


def test_the_bug_shows_the_code_before_the_fix_numbered_as_in_the_file_and_the_control_after(tmp_path: Path):
    report = import_bugs(tmp_path, records()[:1], [from_checkout(PROJECT)], draft=False)
    (pair,) = report.written
    assert pair["fault_lines"] == [19] and pair["path"] == "shelfkeeper/inventory.py"
    catalogue = load_catalogue(tasks_dir(tmp_path))
    assert catalogue.problems == ()
    bug, control = catalogue.tasks[pair["bug"]], catalogue.tasks[pair["control"]]
    source = (PROJECT / "shelfkeeper" / "inventory.py").read_text().splitlines()
    shown = listed_lines(bug.prompt)
    assert shown[19].strip() == "return item.count < item.reorder_at" == source[18].strip()
    assert len(shown) == len(source), "a short file is shown whole"
    assert listed_lines(control.prompt)[19].strip() == "return item.count <= item.reorder_at"
    assert (bug.shape, control.shape, bug.draft) == ("bug", "control", False)
    assert bug.must_find[0].label == "FAULT: line 19" and control.must_find[0].label == "NO FAULT"
    assert "https://github.com/shelfkeeper/shelfkeeper" in bug.source and "3f9c2a1b7d4e" in bug.source
    assert bug.license == control.license == "MIT"


def test_a_record_without_the_files_text_or_a_checkout_is_rejected_and_nothing_is_written(tmp_path: Path):
    report = import_bugs(tmp_path, records()[:1], [from_record])
    (rejected,) = report.rejected
    assert rejected.kind == "no-source" and "checkout of shelfkeeper/shelfkeeper" in rejected.why
    assert not tasks_dir(tmp_path).exists()


def test_importing_the_same_record_again_is_rejected_as_taken(tmp_path: Path):
    import_bugs(tmp_path, records()[1:2], [from_record])
    again = import_bugs(tmp_path, records()[1:2], [from_record])
    assert [r.kind for r in again.rejected] == ["taken"] and again.written == []


def test_a_fix_that_only_adds_a_line_names_the_code_lines_around_the_gap():
    record = fix_record(
        {
            "repo": "shelfkeeper/shelfkeeper",
            "base_commit": "abcdef1",
            "patch": "--- a/m.py\n+++ b/m.py\n@@ -1,3 +1,4 @@\n def f(x):\n+    x = abs(x)\n"
            "     y = x * 2\n     return y\n",
            "pre_fix_text": "def f(x):\n    y = x * 2\n    return y\n",
        }
    )
    assert not isinstance(record, Rejection)
    fix = screen(record)
    assert not isinstance(fix, Rejection)
    pair = real_bug_pair(fix, str(record.pre_fix_text))
    assert not isinstance(pair, Rejection) and pair.fault_lines == (1, 2)


def test_a_dataset_services_page_of_rows_reads_as_records():
    page = {"rows": [{"row_idx": 0, "row": {"repo": "a/b"}}, {"row_idx": 1, "row": {"repo": "c/d"}}]}
    rows = [("row 1", {"repo": "a/b"}), ("row 2", {"repo": "c/d"})]
    assert read_records(json.dumps(page)) == read_records(json.dumps(page, indent=2)) == rows
