"""`panelgate key create|list|revoke` against a gateway with a login and keys required."""

from __future__ import annotations

import json
import subprocess
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import httpx
import pytest

from tests.cli.runner import panelgate
from tests.conftest import arrange_bench
from tests.http.helpers import hello
from tests.support.gateway import Gateway
from tests.support.upstream import FakeUpstream

TOKEN = "admin-token-for-cli-keys"


@pytest.fixture
def guarded(tmp_path: Path, upstream: FakeUpstream) -> Iterator[Gateway]:
    server = Gateway(tmp_path / "home", env={"PANELGATE_ADMIN_TOKEN": TOKEN, "PANELGATE_REQUIRE_KEYS": "1"})
    server.start()
    try:
        yield arrange_bench(server, upstream)
    finally:
        server.close()


def cli(gateway: Gateway, *args: str) -> subprocess.CompletedProcess[str]:
    """The CLI as a person with the admin token in their environment runs it."""
    return panelgate(*args, url=gateway.url, env={"PANELGATE_ADMIN_TOKEN": TOKEN})


def ask_with(gateway: Gateway, key: str) -> httpx.Response:
    """A chat completion sent with the gateway key `key`."""
    return httpx.post(
        f"{gateway.url}/v1/chat/completions",
        json=hello(),
        headers={"Authorization": f"Bearer {key}"},
        timeout=60,
    )


def test_create_prints_only_the_key_on_stdout_and_the_key_works(guarded: Gateway):
    made = cli(guarded, "key", "create", "laptop", "--collection", "bench/core", "--rpm", "30")
    assert made.returncode == 0, made.stderr
    key = made.stdout.strip()
    assert key.startswith("pgk_") and made.stdout == key + "\n"
    assert "not shown again" in made.stderr and "bench/core" in made.stderr
    asked = ask_with(guarded, key)
    assert asked.status_code == 200, asked.text


def test_list_shows_the_hint_never_the_key(guarded: Gateway):
    key = cli(guarded, "key", "create", "ci").stdout.strip()
    listed = cli(guarded, "keys")
    assert listed.returncode == 0, listed.stderr
    assert f"…{key[-4:]}" in listed.stdout and "ci" in listed.stdout
    assert key not in listed.stdout + listed.stderr
    as_json = json.loads(cli(guarded, "keys", "--json").stdout)
    assert [k["name"] for k in as_json["keys"]] == ["ci"] and "key" not in as_json["keys"][0]


def test_list_shows_when_a_key_was_last_used_to_the_minute_in_utc(guarded: Gateway):
    key = cli(guarded, "key", "create", "ci").stdout.strip()
    assert "never" in cli(guarded, "keys").stdout
    asked = ask_with(guarded, key)
    assert asked.status_code == 200, asked.text
    (listed,) = json.loads(cli(guarded, "keys", "--json").stdout)["keys"]
    used = datetime.fromisoformat(listed["last_used_at"]).astimezone(UTC)
    (row,) = [line for line in cli(guarded, "keys").stdout.splitlines() if " ci " in line]
    assert f" {used:%Y-%m-%d %H:%M} " in row and listed["last_used_at"] not in row


def test_revoke_needs_yes_off_a_terminal_then_the_key_is_refused(guarded: Gateway):
    made = json.loads(cli(guarded, "key", "create", "old", "--json").stdout)
    refused = cli(guarded, "key", "revoke", str(made["id"]))
    assert refused.returncode == 2 and "--yes" in refused.stderr
    done = cli(guarded, "key", "revoke", str(made["id"]), "--yes")
    assert done.returncode == 0, done.stderr
    asked = ask_with(guarded, made["key"])
    assert asked.status_code == 401 and "revoked" in asked.json()["error"]["message"]


def test_without_the_admin_token_the_cli_is_refused_and_told_what_to_set(guarded: Gateway):
    run = panelgate("keys", url=guarded.url)
    assert run.returncode == 1
    assert "PANELGATE_ADMIN_TOKEN" in run.stderr


def test_ask_sends_panelgate_key_and_without_it_is_refused_and_told_what_to_set(guarded: Gateway):
    key = cli(guarded, "key", "create", "laptop").stdout.strip()
    refused = panelgate("ask", "core", "hi", url=guarded.url)
    assert refused.returncode == 1 and "PANELGATE_KEY" in refused.stderr
    asked = panelgate("ask", "core", "hi", url=guarded.url, env={"PANELGATE_KEY": key})
    assert asked.returncode == 0, asked.stderr
    assert "answer from m1" in asked.stdout
    assert key not in asked.stdout + asked.stderr
