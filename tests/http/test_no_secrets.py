"""A whole session leaves no secret behind: not in the log, the database, or any page or API reply.

The gateway runs as `panelgate serve` (its log is a file, as in use) with an
admin token and keys required, once with each log format (text, JSON). The
session adds an endpoint with a provider key, asks with an inline image and
a signed image URL, records verdicts, makes a gateway key and fails a login;
then every log line, every row of every table and every page the admin can
open is searched for the provider key, both gateway keys, the image's bytes
and the URL's signature, and the log for the prompt and the answers too.

A second session signs in to the loopback provider by every flow (key,
OAuth with a renewal, device code), asks a panel through the signed-in
endpoint, and the same places, the sign-in API's replies and the callback
pages are searched for every token, code, verifier and device code that
passed between the gateway and the provider.
"""

from __future__ import annotations

import base64
import re
import secrets
import sqlite3
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import orjson
import pytest
from openai import OpenAI

from tests.connect.conftest import providers_file
from tests.connect.helpers import ask_panel, browse, poll_until_done, seat_status
from tests.support.gateway import Gateway
from tests.support.oauth_provider import CLIENT_ID, OAuthProvider
from tests.support.upstream import FakeUpstream

ADMIN_TOKEN = "admin-" + secrets.token_hex(12)
PROVIDER_KEY = "sk-provider-" + secrets.token_hex(16)
SIGNATURE = secrets.token_hex(20)
SIGNED_URL = f"https://images.example/cat.png?X-Amz-Expires=300&X-Amz-Signature={SIGNATURE}"
IMAGE_BYTES = b"\x89PNG\r\n\x1a\n" + secrets.token_bytes(48)
IMAGE_B64 = base64.b64encode(IMAGE_BYTES).decode()
PROMPT = "compare these two pictures"
NOTE = "fine, though the second picture is sharper"
ADMIN_PAGES = (
    "/login",
    "/openapi.json",
    "/api/endpoints",
    "/api/models",
    "/api/collections",
    "/api/keys",
    "/api/panels",
    "/api/audit",
    "/api/settings/gateway",
    "/api/config",
    "/api/status",
    "/api/limits",
    "/api/usage",
    "/collections",
    "/models",
    "/endpoints",
    "/settings",
    "/logs",
    "/info",
)


@pytest.fixture(params=["text", "json"])
def served(request: pytest.FixtureRequest, tmp_path: Path, upstream: FakeUpstream) -> Iterator[Gateway]:
    upstream.require_key = PROVIDER_KEY
    gateway = Gateway(
        tmp_path / "home",
        env={
            "PANELGATE_ADMIN_TOKEN": ADMIN_TOKEN,
            "PANELGATE_REQUIRE_KEYS": "1",
            "PANELGATE_LOG_FORMAT": request.param,
        },
        in_process=False,
        log_level="info",
    ).start()
    try:
        yield gateway
    finally:
        gateway.close()


def test_a_whole_session_leaves_no_secret_in_logs_rows_or_pages(served: Gateway, upstream: FakeUpstream):
    served.api(
        "POST", "/api/endpoints", {"name": "up", "base_url": upstream.url, "key": PROVIDER_KEY}, expect=201
    )
    upstream.serve("m1", "m2")
    for alias in ("m1", "m2"):
        served.add_model(alias, vision=True)
    served.gateway_settings(max_calls=2, max_explorers=0)
    served.save_collection("core", ["m1", "m2"])
    made = served.api("POST", "/api/keys", {"name": "laptop"}, expect=201)
    spare = served.api("POST", "/api/keys", {"name": "spare", "collections": ["core"]}, expect=201)
    gateway_keys = [made["key"], spare["key"]]

    client = served.keep(OpenAI(base_url=f"{served.url}/v1", api_key=made["key"], max_retries=0))
    reply = client.chat.completions.create(
        model="bench/core",
        messages=[
            {
                "role": "user",
                "content": [
                    {"type": "text", "text": PROMPT},
                    {"type": "image_url", "image_url": {"url": f"data:image/png;base64,{IMAGE_B64}"}},
                    {"type": "image_url", "image_url": {"url": SIGNED_URL}},
                ],
            }
        ],
    )
    seats = reply.model_extra["bench"]["seats"]  # type: ignore[index]
    assert [s["status"] for s in seats] == ["ok", "ok"]
    sent = upstream.requests_for("m1")[0]
    assert sent.headers["authorization"] == f"Bearer {PROVIDER_KEY}"  # the key did reach the provider
    for seat in seats:
        judged = httpx.post(
            f"{served.url}/bench/verdict",
            json={"call": seat["call"], "useful": True, "note": NOTE},
            headers={"Authorization": f"Bearer {made['key']}"},
        )
        assert judged.status_code == 200, judged.text
    failed = httpx.post(f"{served.url}/login", json={"token": "not-the-token-at-all"})
    assert failed.status_code == 401

    secrets_left = {
        "provider key": PROVIDER_KEY,
        "gateway key": gateway_keys[0],
        "second gateway key": gateway_keys[1],
        "image bytes (base64)": IMAGE_B64,
        "URL signature": SIGNATURE,
    }
    listing = httpx.get(f"{served.url}/v1/models", headers={"Authorization": f"Bearer {made['key']}"})
    places = {"the log": served.log(), "/v1/models": listing.text, **_pages(served), **_rows(served)}
    found = [
        f"{what} in {place}"
        for place, text in places.items()
        for what, secret in secrets_left.items()
        if secret in text
    ]
    assert found == []
    assert IMAGE_BYTES not in served.log().encode("latin-1", errors="replace")
    said = [PROMPT, "answer from m1", "answer from m2", NOTE]
    assert [words for words in said if words in served.log()] == [], "no prompt, answer or note is logged"
    # and the scan read what it should have: the access log, the key's hint, its row, the prompt's text
    assert {
        ("POST /v1/chat/completions 200", "laptop"),
        ("POST /login 401", "-"),
        ("GET /api/keys 200", "admin"),
    } <= _access_lines(served.log(), served.extra_env["PANELGATE_LOG_FORMAT"])
    assert made["hint"] in places["page /api/keys"] and "laptop" in places["table gateway_keys"]
    assert PROMPT in places["table panels"]


@pytest.fixture
def signing_in(
    request: pytest.FixtureRequest, tmp_path: Path, upstream: FakeUpstream
) -> Iterator[tuple[Gateway, OAuthProvider]]:
    with OAuthProvider() as provider:
        provider.state.expires_in = 120  # renewed at the first look (Hugging Face, GitHub)
        gateway = Gateway(
            tmp_path / "home",
            env={
                "PANELGATE_ADMIN_TOKEN": ADMIN_TOKEN,
                "PANELGATE_CONNECT_PROVIDERS": str(providers_file(tmp_path / "config", provider, upstream)),
                "PANELGATE_CONNECT_RENEW_CHECK_S": "0.1",
            },
            in_process=False,
            log_level="info",
        ).start()
        try:
            yield gateway, provider
        finally:
            gateway.close()


def test_sign_ins_leave_no_token_in_logs_rows_pages_or_replies(signing_in: tuple[Gateway, OAuthProvider]):
    gateway, provider = signing_in
    replies: dict[str, str] = {}
    for name, body in (("huggingface", {"client_id": CLIENT_ID}), ("openrouter", {})):
        started = gateway.api("POST", f"/api/connect/{name}", body, expect=200)
        page = browse(started["url"])  # the browser brings no admin token back from the provider
        assert page.status_code == 200 and f"Connected: {name}" in page.text, page.text
        replies |= {f"start {name}": orjson.dumps(started).decode(), f"callback page {name}": page.text}
    device = gateway.api("POST", "/api/connect/github", {}, expect=200)
    provider.approve(device["user_code"])
    assert poll_until_done(gateway, device["signin"])["status"] == "connected"
    replies["start github"] = orjson.dumps(device).decode()
    deadline = time.monotonic() + 10
    while provider.grants("refresh_token") < 2 and time.monotonic() < deadline:
        time.sleep(0.05)
    assert provider.grants("refresh_token") == 2, "the Hugging Face and GitHub tokens were renewed"
    assert seat_status(ask_panel(gateway, "huggingface")) == ["ok"]
    for path in (
        "/api/connect/providers",
        "/api/connect/endpoints",
        f"/api/connect/signins/{device['signin']}",
    ):
        replies[path] = orjson.dumps(gateway.api("GET", path, expect=200)).decode()

    secrets_passed = provider.state.issued + provider.state.secrets_seen
    assert len(provider.state.issued) == 9, "the tokens of three sign-ins and two renewals"
    places = {"the log": gateway.log(), **replies, **_pages(gateway), **_rows(gateway)}
    found = [
        f"a secret in {place}"
        for place, text in places.items()
        for secret in secrets_passed
        if secret in text
    ]
    assert found == []
    assert "table signins" in places and "github" in places["table signin_grants"], "the scan read them"


def _access_lines(log: str, log_format: str) -> set[tuple[str, str]]:
    """(method path status, caller) of every access line; with JSON every line of the log must parse."""
    if log_format == "json":
        lines = [orjson.loads(line) for line in log.splitlines()]
        written = [(line["message"], line["key"]) for line in lines if line["logger"] == "panelgate.access"]
    else:
        found = (re.search(r"panelgate\.access: (.*?) key=(\S+)", line) for line in log.splitlines())
        written = [(match[1], match[2]) for match in found if match]
    return {(" ".join(message.split()[:3]), key) for message, key in written}


def _pages(gateway: Gateway) -> dict[str, str]:
    # as a browser asks: `/models` without HTML in `Accept` is OpenAI's model list (a gateway route)
    headers = {"Authorization": f"Bearer {ADMIN_TOKEN}", "Accept": "text/html,application/json"}
    pages = {}
    for path in ADMIN_PAGES:
        response = httpx.get(f"{gateway.url}{path}", headers=headers, timeout=30)
        assert response.status_code in (200, 404), f"{path}: {response.status_code} {response.text[:300]}"
        pages[f"page {path}"] = response.text
    panels = httpx.get(f"{gateway.url}/api/panels", headers=headers, timeout=30).json()["panels"]
    for panel in panels:
        path = f"/api/panels/{panel['id']}"
        pages[f"page {path}"] = httpx.get(f"{gateway.url}{path}", headers=headers, timeout=30).text
    return pages


def _rows(gateway: Gateway) -> dict[str, str]:
    """Every row of every table, as text, by table name."""
    url = gateway.extra_env.get("PANELGATE_DATABASE_URL")
    if url:
        names = _psql(url, "SELECT tablename FROM pg_tables WHERE schemaname = 'public'").split()
        return {f"table {name}": _psql(url, f'SELECT * FROM "{name}"') for name in names}
    with sqlite3.connect(gateway.home / "panelgate.db") as connection:
        names = [row[0] for row in connection.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
        return {
            f"table {name}": "\n".join(repr(row) for row in connection.execute(f'SELECT * FROM "{name}"'))
            for name in names
        }


def _psql(url: str, sql: str) -> str:
    done = subprocess.run(["psql", url, "-At", "-c", sql], check=True, capture_output=True, text=True)
    return done.stdout
