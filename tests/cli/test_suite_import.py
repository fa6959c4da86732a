"""`panelgate suite import-bugs`: fix records into bug/control pairs through a running server."""

from __future__ import annotations

from tests.cli.runner import panelgate
from tests.suite.realbug_fixtures import PROJECT, RECORDS
from tests.support.gateway import Gateway


def test_import_bugs_prints_the_pairs_written_and_each_rejection_with_its_reason(gateway: Gateway) -> None:
    run = panelgate("suite", "import-bugs", str(RECORDS), "--checkout", str(PROJECT), url=gateway.url)
    assert run.returncode == 0, run.stderr
    assert "read 9 records: wrote 2 pairs, rejected 7" in run.stdout
    for kind in ("multi-file", "test-file", "too-large", "hunks", "comments-only", "does-not-apply"):
        assert kind in run.stdout, kind
    assert '"draft": false' in run.stderr


def test_import_bugs_wants_a_file_or_a_url(gateway: Gateway) -> None:
    run = panelgate("suite", "import-bugs", url=gateway.url)
    assert run.returncode == 2 and "--from URL" in run.stderr
