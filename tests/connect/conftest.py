"""Fixtures for the sign-in tests: the loopback provider, and a gateway whose providers point at it."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import orjson
import pytest

from tests.support.gateway import Gateway
from tests.support.oauth_provider import CLIENT_ID, OAuthProvider
from tests.support.upstream import FakeUpstream


def providers_file(home: Path, provider: OAuthProvider, upstream: FakeUpstream) -> Path:
    """Every built-in provider pointed at loopback: OpenRouter, Hugging Face (no client id: the person
    brings one), GitHub (client id in the file: "yours"), Ollama at the fake upstream."""
    entries: dict[str, Any] = {
        **provider.overrides("openrouter"),
        **provider.overrides("huggingface"),
        **provider.overrides("github", device_url=f"{provider.url}/device/code", client_id=CLIENT_ID),
        "ollama": {"api_base": upstream.url},
    }
    home.mkdir(parents=True, exist_ok=True)
    path = home / "providers.json"
    path.write_bytes(orjson.dumps(entries))
    return path


@pytest.fixture
def start_gateway(
    tmp_path: Path, provider: OAuthProvider, upstream: FakeUpstream
) -> Iterator[Callable[..., Gateway]]:
    """Starts gateways on one data folder (and database) whose providers point at the loopback ones."""
    started: list[Gateway] = []

    def start(in_process: bool = True, **env: str) -> Gateway:
        """The first call makes the gateway (in this process, or `panelgate serve` as a child); later
        calls start its siblings alike."""
        if started:
            gateway = started[0].sibling().start()
        else:
            home = tmp_path / "home"
            path = providers_file(tmp_path / "config", provider, upstream)
            env = {"PANELGATE_CONNECT_PROVIDERS": str(path), **env}
            gateway = Gateway(home, env=env, in_process=in_process).start()
        started.append(gateway)
        return gateway

    yield start
    for gateway in reversed(started):
        gateway.close()


@pytest.fixture
def gateway(start_gateway: Callable[..., Gateway]) -> Gateway:
    return start_gateway()
