"""Panel ids never repeat within a process, however many panels start in one second."""

from __future__ import annotations

from datetime import UTC, datetime

from panelgate.engine.panel_ids import PanelIdIssuer


def test_thousands_of_panels_in_one_second_get_distinct_ids():
    issuer = PanelIdIssuer()
    now = datetime(2026, 11, 30, 10, 15, 0, tzinfo=UTC)
    issued = [issuer.issue(now) for _ in range(5000)]
    assert len(set(issued)) == 5000
    assert all(i.startswith("p20261130-101500-") and len(i) == len("p20261130-101500-abcd") for i in issued)


def test_a_new_second_starts_afresh():
    issuer = PanelIdIssuer()
    first = issuer.issue(datetime(2026, 11, 30, 10, 15, 0, tzinfo=UTC))
    assert issuer.issue(datetime(2026, 11, 30, 10, 15, 1, tzinfo=UTC)).startswith("p20261130-101501-")
    assert first.startswith("p20261130-101500-")
