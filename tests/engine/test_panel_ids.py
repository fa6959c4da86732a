"""Panel ids never repeat within a process, however many panels start in one second."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

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


def test_processes_in_different_slots_never_share_a_token():
    now = datetime(2026, 11, 30, 10, 15, 0, tzinfo=UTC)
    first, second = PanelIdIssuer(slot=0, slots=16), PanelIdIssuer(slot=5, slots=16)
    issued_first = {first.issue(now) for _ in range(4096)}
    issued_second = {second.issue(now) for _ in range(4096)}
    assert len(issued_first) == len(issued_second) == 4096
    assert not issued_first & issued_second
    assert all(int(i[-4:], 16) % 16 == 5 for i in issued_second)
    with pytest.raises(RuntimeError, match="4,096 panels in one second"):
        first.issue(now)
