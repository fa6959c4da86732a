"""The benches the real clients are pointed at: route collection `agents`, panel collection `core`."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.agents.clients import Rig
from tests.agents.tap import Tap
from tests.http.route_helpers import arrange_agents
from tests.support.gateway import Gateway
from tests.support.upstream import FakeUpstream


@pytest.fixture
def route_rig(gateway: Gateway, upstream: FakeUpstream) -> Iterator[Rig]:
    """Tool-capable members m1–m3 in route collection `agents`, behind a tap."""
    arrange_agents(gateway, upstream)
    with Tap(gateway.url) as tap:
        yield Rig(gateway, upstream, tap)


@pytest.fixture
def panel_rig(bench: Gateway, upstream: FakeUpstream) -> Iterator[Rig]:
    """Members m1–m3 in panel collection `core`, behind a tap."""
    with Tap(bench.url) as tap:
        yield Rig(bench, upstream, tap)
