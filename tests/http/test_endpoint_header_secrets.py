"""An endpoint's extra header values are secrets: sent upstream, kept in the key store, shown nowhere."""

from __future__ import annotations

import json
import sqlite3
import subprocess
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from tests.cli.runner import panelgate
from tests.http.helpers import ask, hello
from tests.support.gateway import Gateway
from tests.support.upstream import FakeUpstream

VALUE = "s3cr3t-header-value-0042"
FROM_ENV = "tenant-from-the-environment-77"
KEPT_AS = "up-header-x-custom-auth"


@pytest.fixture
def served(tmp_path: Path) -> Iterator[Gateway]:
    """`panelgate serve` with one header's value in its environment, as an operator may set it."""
    env = {"PANELGATE_KEY_UP_HEADER_X_TENANT": FROM_ENV}
    server = Gateway(tmp_path / "home", env=env, in_process=False).start()
    try:
        yield server
    finally:
        server.close()


def _solo(gateway: Gateway, upstream: FakeUpstream) -> None:
    upstream.serve("m1")
    gateway.add_model("m1")
    gateway.save_collection("solo", ["m1"])


def _asked(gateway: Gateway, upstream: FakeUpstream) -> dict[str, str]:
    """Ask a panel of one seat; the headers the upstream received."""
    reply = ask(gateway, hello("bench/solo"))
    assert reply.json()["bench"]["seats"][0]["status"] == "ok", reply.text
    return upstream.requests_for("m1")[-1].headers


def _rows(gateway: Gateway) -> str:
    """Every row of every table, as text."""
    url = gateway.extra_env.get("PANELGATE_DATABASE_URL")
    if url:
        names = _psql(url, "SELECT tablename FROM pg_tables WHERE schemaname = 'public'").split()
        return "\n".join(_psql(url, f'SELECT * FROM "{name}"') for name in names)
    with sqlite3.connect(gateway.home / "panelgate.db") as connection:
        names = [row[0] for row in connection.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
        return "\n".join(repr(row) for name in names for row in connection.execute(f'SELECT * FROM "{name}"'))


def _write(gateway: Gateway, sql: str, *parameters: str) -> None:
    """Change rows behind the stopped gateway's back, as an older release left them."""
    url = gateway.extra_env.get("PANELGATE_DATABASE_URL")
    if url:
        quoted = [f"'{value}'" for value in parameters]
        _psql(url, sql.replace("?", "{}").format(*quoted))
        return
    with sqlite3.connect(gateway.home / "panelgate.db") as connection:
        connection.execute(sql, parameters)


def _psql(url: str, sql: str) -> str:
    return subprocess.run(["psql", url, "-At", "-c", sql], check=True, capture_output=True, text=True).stdout


def _kept(gateway: Gateway) -> dict[str, str]:
    keys: dict[str, str] = json.loads((gateway.home / "keys.json").read_text())
    return keys


def test_the_upstream_receives_each_header_with_the_value_the_key_store_holds(
    served: Gateway, upstream: FakeUpstream
):
    added = served.add_endpoint(
        "up", upstream.url, headers={"X-Custom-Auth": VALUE, "X-Tenant": "typed-but-the-environment-wins"}
    )
    _solo(served, upstream)
    received = _asked(served, upstream)
    assert received["x-custom-auth"] == VALUE
    assert received["x-tenant"] == FROM_ENV, "the environment wins over the key file, as for a key"
    assert _kept(served)[KEPT_AS] == VALUE
    assert added["endpoint"]["headers"]["X-Tenant"]["key"] == "env"


def test_no_reply_audit_row_export_or_database_row_holds_a_header_value(
    gateway: Gateway, upstream: FakeUpstream
):
    added = gateway.add_endpoint("up", upstream.url, headers={"X-Custom-Auth": VALUE})
    _solo(gateway, upstream)
    _asked(gateway, upstream)
    assert added["endpoint"]["headers"] == {"X-Custom-Auth": {"key_name": KEPT_AS, "key": "file"}}
    (listed,) = gateway.api("GET", "/api/endpoints", expect=200)["endpoints"]
    assert listed["headers"] == added["endpoint"]["headers"]
    changes = gateway.api("GET", "/api/audit")["changes"]
    change = next(c for c in changes if (c["entity"], c["action"]) == ("endpoint", "add"))
    assert change["after"]["headers"] == {"X-Custom-Auth": {"key_name": KEPT_AS}}
    exported = panelgate("config", "export", url=gateway.url)
    assert exported.returncode == 0 and KEPT_AS in exported.stdout, exported.stderr
    shown = panelgate("endpoints", url=gateway.url)
    assert shown.returncode == 0 and "X-Custom-Auth" in shown.stdout, shown.stderr
    seen = {
        "the POST reply": json.dumps(added),
        "GET /api/endpoints": httpx.get(f"{gateway.url}/api/endpoints", timeout=30).text,
        "the audit log": httpx.get(f"{gateway.url}/api/audit", timeout=30).text,
        "`panelgate config export`": exported.stdout,
        "`panelgate endpoints`": shown.stdout,
        "the database": _rows(gateway),
    }
    assert [where for where, text in seen.items() if VALUE in text] == []


def test_a_value_stored_before_the_upgrade_moves_to_the_key_store_and_still_reaches_the_upstream(
    gateway: Gateway, upstream: FakeUpstream
):
    gateway.add_endpoint("up", upstream.url)
    _solo(gateway, upstream)
    gateway.stop()
    old_form = json.dumps({"X-Custom-Auth": VALUE})
    _write(gateway, "UPDATE endpoints SET headers = ? WHERE name = 'up'", old_form)
    _write(
        gateway,
        "UPDATE audit_log SET after = ? WHERE entity = 'endpoint'",
        json.dumps({"headers": {"X-Custom-Auth": VALUE}}),
    )
    gateway.start()
    assert _asked(gateway, upstream)["x-custom-auth"] == VALUE
    assert _kept(gateway)[KEPT_AS] == VALUE
    (listed,) = gateway.api("GET", "/api/endpoints", expect=200)["endpoints"]
    assert listed["headers"] == {"X-Custom-Auth": {"key_name": KEPT_AS, "key": "file"}}
    assert VALUE not in _rows(gateway)
    assert VALUE not in httpx.get(f"{gateway.url}/api/audit", timeout=30).text


def test_an_older_export_holding_a_header_value_imports_it_into_the_key_store(
    gateway: Gateway, upstream: FakeUpstream
):
    older = (
        "version: 1\n"
        "endpoints:\n"
        f"- name: up\n  base_url: {upstream.url}\n  headers:\n    X-Custom-Auth: {VALUE}\n"
    )
    gateway.api("POST", "/api/config", {"yaml": older}, expect=200)
    _solo(gateway, upstream)
    assert _asked(gateway, upstream)["x-custom-auth"] == VALUE
    assert _kept(gateway)[KEPT_AS] == VALUE
    exported = httpx.get(f"{gateway.url}/api/config", timeout=30).text
    assert VALUE not in exported and f"key_name: {KEPT_AS}" in exported
    assert VALUE not in _rows(gateway)


def test_an_upstream_error_repeating_a_header_value_shows_it_nowhere(
    gateway: Gateway, upstream: FakeUpstream
):
    gateway.add_endpoint("up", upstream.url, headers={"X-Custom-Auth": VALUE})
    _solo(gateway, upstream)
    upstream.behave("m1", status=400, error_message=f"X-Custom-Auth {VALUE} is not a tenant we know")
    reply = ask(gateway, hello("bench/solo"))
    (seat,) = reply.json()["bench"]["seats"]
    assert seat["status"] != "ok" and "[secret]" in json.dumps(seat), reply.text
    assert VALUE not in reply.text and VALUE not in _rows(gateway)
