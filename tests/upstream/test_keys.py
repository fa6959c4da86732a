"""Provider secrets: environment first, else the private key file; sent as a bearer key, never shown."""

from __future__ import annotations

import logging
import stat
import subprocess
import sys
from pathlib import Path

import orjson
import pytest

from panelgate.upstream import (
    KeyFileError,
    KeyStore,
    UpstreamClient,
    UpstreamError,
    UpstreamStatusError,
    env_name,
)
from tests.support.upstream import FakeUpstream
from tests.upstream.helpers import HELLO, seconds_from_now, target_on


def test_env_name_upper_cases_and_replaces_dashes():
    assert env_name("open-router") == "PANELGATE_KEY_OPEN_ROUTER"
    assert env_name("hf.refresh") == "PANELGATE_KEY_HF_REFRESH"


def test_env_key_beats_the_file_key(keys: KeyStore, environ: dict[str, str]):
    keys.set("open-router", "sk-from-file")
    environ["PANELGATE_KEY_OPEN_ROUTER"] = "sk-from-env"
    assert keys.get("open-router") == "sk-from-env" and keys.source("open-router") == "env"


def test_file_key_is_found_when_the_env_has_none(keys: KeyStore):
    keys.set("groq", "gsk-file-secret")
    assert keys.get("groq") == "gsk-file-secret" and keys.source("groq") == "file"
    assert keys.get("other") is None and keys.source("other") is None


def test_key_file_is_written_private(keys: KeyStore):
    keys.set("groq", "gsk-file-secret")
    assert stat.S_IMODE(keys.key_file.stat().st_mode) == 0o600
    assert orjson.loads(keys.key_file.read_bytes()) == {"groq": "gsk-file-secret"}
    assert sorted(p.name for p in keys.key_file.parent.iterdir()) == ["keys.json", "keys.json.lock"], (
        "no temporary file is left behind (the empty lock file orders changes)"
    )
    assert keys.key_file.with_name("keys.json.lock").stat().st_size == 0


def test_loosened_key_file_is_read_with_a_warning_and_made_private_on_write(
    keys: KeyStore, caplog: pytest.LogCaptureFixture
):
    keys.set("groq", "gsk-file-secret")
    keys.key_file.chmod(0o644)
    with caplog.at_level(logging.WARNING):
        assert keys.get("groq") == "gsk-file-secret"
    assert "chmod 600" in caplog.text and "gsk-file-secret" not in caplog.text
    keys.set("mistral", "mistral-secret")
    assert stat.S_IMODE(keys.key_file.stat().st_mode) == 0o600


def test_removed_key_is_gone_and_others_stay(keys: KeyStore):
    keys.set("a", "secret-a")
    keys.set("b", "secret-b")
    assert keys.remove("a") is True and keys.remove("a") is False
    assert keys.get("a") is None and keys.get("b") == "secret-b"


def test_key_file_edited_by_hand_is_read_again(keys: KeyStore):
    keys.set("a", "secret-a")
    assert keys.get("a") == "secret-a"
    keys.key_file.write_bytes(orjson.dumps({"a": "secret-a-changed-by-hand"}))
    assert keys.get("a") == "secret-a-changed-by-hand"


WRITER = """
import sys
from pathlib import Path
from panelgate.upstream import KeyStore
store = KeyStore(Path(sys.argv[1]), environ={})
for number in range(60):
    store.set(f"{sys.argv[2]}-{number}", f"secret-{sys.argv[2]}-{number}")
"""


def test_two_processes_changing_the_key_file_at_once_lose_no_change(tmp_path: Path):
    """A sign-in landing in one process while another renews a token: both keys are kept."""
    key_file = tmp_path / "keys.json"
    writers = [
        subprocess.Popen([sys.executable, "-c", WRITER, str(key_file), name])
        for name in ("one", "two", "three")
    ]
    assert [writer.wait(60) for writer in writers] == [0, 0, 0]
    kept = orjson.loads(key_file.read_bytes())
    assert len(kept) == 180
    assert kept["two-59"] == "secret-two-59"


def test_broken_key_file_is_a_clear_error_without_its_content(tmp_path: Path):
    key_file = tmp_path / "keys.json"
    key_file.write_text('{"a": "sk-half-written')
    with pytest.raises(KeyFileError) as caught:
        KeyStore(key_file, {}).get("a")
    assert str(key_file) in str(caught.value) and "sk-half" not in str(caught.value)


async def test_env_key_is_sent_as_a_bearer_key(
    client: UpstreamClient, upstream: FakeUpstream, keys: KeyStore, environ: dict[str, str]
):
    keys.set("up", "sk-file-key-0001")
    environ["PANELGATE_KEY_UP"] = "sk-env-key-0002"
    upstream.behave("m1", require_key="sk-env-key-0002")
    result = await client.chat(target_on(upstream, key_name="up"), HELLO, {}, deadline=seconds_from_now(5))
    assert result.text == "answer from m1"
    assert upstream.requests_for("m1")[0].headers["authorization"] == "Bearer sk-env-key-0002"


async def test_error_message_never_contains_the_key(
    client: UpstreamClient, upstream: FakeUpstream, environ: dict[str, str]
):
    environ["PANELGATE_KEY_UP"] = "sk-wrong-key-123456789"
    upstream.behave("m1", status=401, error_message="Incorrect API key provided: sk-wrong-key-123456789.")
    with pytest.raises(UpstreamStatusError) as caught:
        await client.chat(target_on(upstream, key_name="up"), HELLO, {}, deadline=seconds_from_now(5))
    assert "Incorrect API key provided" in caught.value.message
    assert "wrong-key" not in caught.value.message and "wrong-key" not in str(caught.value)


async def test_unreadable_key_file_is_a_signin_error_for_the_seat(
    client: UpstreamClient, upstream: FakeUpstream, keys: KeyStore
):
    keys.key_file.parent.mkdir(parents=True, exist_ok=True)
    keys.key_file.write_text("not json")
    with pytest.raises(UpstreamError) as caught:
        await client.chat(target_on(upstream, key_name="up"), HELLO, {}, deadline=seconds_from_now(5))
    assert caught.value.kind == "signin" and "not valid JSON" in caught.value.message
    assert upstream.requests == []
