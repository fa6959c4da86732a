"""A real `UpstreamClient` for the upstream tests, with its own key file and environment."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from panelgate.settings import Settings
from panelgate.upstream import KeyStore, UpstreamClient


@pytest.fixture
def environ() -> dict[str, str]:
    """The environment the key store reads (a plain dict, so tests can set keys)."""
    return {}


@pytest.fixture
def keys(tmp_path: Path, environ: dict[str, str]) -> KeyStore:
    return KeyStore(tmp_path / "home" / "keys.json", environ)


@pytest.fixture
def settings(tmp_path: Path) -> Settings:
    return Settings(home=tmp_path / "home")


@pytest.fixture
async def client(settings: Settings, keys: KeyStore) -> AsyncIterator[UpstreamClient]:
    upstream_client = UpstreamClient(settings, keys)
    yield upstream_client
    await upstream_client.aclose()
