"""The providers file: URLs and client ids changed for self-hosted providers and tests, new ones added."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from panelgate.connect import ProviderFileError, load_providers


def test_without_a_file_the_built_in_providers_need_your_client_id_where_they_ship_none():
    providers = load_providers(None)
    assert {name: p.client_state() for name, p in providers.items()} == {
        "openrouter": None,
        "huggingface": "needed",
        "github": "needed",
        "ollama": None,
    }
    assert [name for name, p in providers.items() if p.has_device_flow] == ["github"]


def test_a_file_changes_urls_gives_your_client_id_and_adds_a_provider(tmp_path: Path):
    path = tmp_path / "providers.yaml"
    path.write_text(
        "huggingface:\n  client_id: my-app\n  token_url: https://hf.internal/token\n"
        "my-hub:\n  flow: device\n  api_base: https://hub.internal/v1\n"
        "  token_url: https://hub.internal/token\n  device_url: https://hub.internal/device\n"
    )
    providers = load_providers(path)
    hf = providers["huggingface"]
    assert (hf.client_state(), hf.token_url, hf.authorize_url) == (
        "yours",
        "https://hf.internal/token",
        "https://huggingface.co/oauth/authorize",
    )
    hub = providers["my-hub"]
    assert (hub.label, hub.flow, hub.has_device_flow, hub.client_state()) == (
        "my-hub",
        "device",
        True,
        "needed",
    )


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ("- a list\n", "must map provider names"),
        ("huggingface:\n  token_url: ftp://x\n", "provider `huggingface`"),
        ("huggingface:\n  secret: x\n", "provider `huggingface`"),
        ("new-one:\n  label: New\n", "needs `flow` and `api_base`"),
        ("a: [unclosed\n", "cannot be read"),
    ],
)
def test_a_file_that_cannot_be_used_is_refused_with_where(tmp_path: Path, text: str, said: str):
    path = tmp_path / "providers.yaml"
    path.write_text(text)
    with pytest.raises(ProviderFileError, match=re.escape(said)):
        load_providers(path)
