"""The server's settings come from `PANELGATE_*` in any case, typed and checked; arguments win."""

from __future__ import annotations

from pathlib import Path

import pytest
from pydantic import ValidationError

from panelgate.settings import Settings


def test_settings_are_read_from_the_environment_typed_and_arguments_win(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("PANELGATE_PORT", "9001")
    monkeypatch.setenv("panelgate_require_keys", "true")
    monkeypatch.setenv("PANELGATE_HOME", str(tmp_path))
    monkeypatch.setenv("PANELGATE_REDIS_URL", "redis://:hush@127.0.0.1:6379/0")
    monkeypatch.setenv("PANELGATE_NOT_A_SETTING", "ignored")
    read = Settings()
    assert (read.port, read.require_keys, read.data_dir) == (9001, True, tmp_path)
    assert "hush" not in repr(read), "a secret setting is never shown"
    assert read.redis_url is not None and read.redis_url.get_secret_value().endswith("@127.0.0.1:6379/0")
    assert Settings(port=7001).port == 7001, "an argument wins over the environment"


def test_a_setting_the_environment_gets_wrong_is_refused_by_name(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PANELGATE_PORT", "eighty")
    with pytest.raises(ValidationError) as refused:
        Settings()
    assert refused.value.errors()[0]["loc"] == ("port",)
