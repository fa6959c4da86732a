"""A gateway whose sign-in providers all point at the loopback provider, for the dashboard and CLI tests.

The sign-in room's own tests (tests/connect) start theirs through fixtures;
the Endpoints page and `panelgate connect` tests start one here, on the
same providers file, so every flow they drive ends at the same loopback
provider (and Ollama at the loopback upstream).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from tests.connect.conftest import providers_file
from tests.support.gateway import Gateway
from tests.support.oauth_provider import OAuthProvider
from tests.support.upstream import FakeUpstream


@contextmanager
def signin_gateway(
    folder: Path, provider: OAuthProvider, upstream: FakeUpstream, **env: str
) -> Iterator[Gateway]:
    """A fresh gateway in `folder` (a fresh provider, too) with `env` added, closed when the block ends."""
    provider.reset()
    path = providers_file(folder / "config", provider, upstream)
    gateway = Gateway(folder / "home", env={"PANELGATE_CONNECT_PROVIDERS": str(path), **env}).start()
    try:
        yield gateway
    finally:
        gateway.close()
