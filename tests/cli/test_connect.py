"""`panelgate connect`: where to sign in is printed, the command waits until the sign-in ends, never a token.

Each test runs the real command against a real gateway whose providers
point at the loopback provider; the test does what the person would do
while the command waits (opens the address, types the code).
"""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Callable, Iterator
from pathlib import Path

import httpx
import pytest

from tests.cli.runner import COMMAND, environment, panelgate
from tests.support.gateway import Gateway
from tests.support.oauth_provider import CLIENT_ID, OAuthProvider
from tests.support.signin_gateway import signin_gateway
from tests.support.upstream import FakeUpstream


@pytest.fixture
def gateway(tmp_path: Path, provider: OAuthProvider, upstream: FakeUpstream) -> Iterator[Gateway]:
    with signin_gateway(tmp_path, provider, upstream) as started:
        yield started


class Waiting:
    """`panelgate connect ...` running on pipes, as in a script, or with stderr on a terminal (`terminal`):
    its printed fields read as they come."""

    def __init__(self, gateway: Gateway, *args: str, terminal: bool = False) -> None:
        env = environment(gateway.url, {"TERM": "xterm-256color"} if terminal else None)
        self.terminal, stderr = os.openpty() if terminal else (None, subprocess.PIPE)
        self.process = subprocess.Popen(
            [*COMMAND, "connect", *args],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=stderr,
            text=True,
            env=env,
            start_new_session=True,
        )
        if self.terminal is not None:
            os.close(stderr)
        self.shown: list[str] = []

    def field(self, name: str) -> str:
        """The value of the `name  value` line it prints next (the address, the code)."""
        assert self.process.stdout is not None
        for line in self.process.stdout:
            self.shown.append(line)
            if line.startswith(f"{name} "):
                return line.split(maxsplit=1)[1].strip()
        raise AssertionError(f"no `{name}` line in {self.shown}")

    def close(self) -> None:
        """Stop the command if it still waits (a failed test left it), and close its pipes."""
        if self.process.poll() is None:
            self.process.kill()
        self.process.communicate()
        if self.terminal is not None:
            os.close(self.terminal)

    def end(self) -> tuple[int, str, str]:
        """Its exit code, all it printed on stdout, and its stderr (all the terminal showed)."""
        out, err = self.process.communicate(timeout=60)
        if self.terminal is not None:
            err = _drained(self.terminal)
            self.terminal = None
        return self.process.returncode, "".join(self.shown) + out, err


def _drained(terminal: int) -> str:
    """What a terminal shows up to its end (EIO once every process holding it has ended)."""
    shown = b""
    try:
        while chunk := os.read(terminal, 65536):
            shown += chunk
    except OSError:
        pass
    finally:
        os.close(terminal)
    return shown.decode(errors="replace")


@pytest.fixture
def waiting(gateway: Gateway) -> Iterator[Callable[..., Waiting]]:
    """Starts `panelgate connect ...` against the test's gateway; each one is closed after the test."""
    started: list[Waiting] = []

    def start(*args: str, terminal: bool = False) -> Waiting:
        started.append(Waiting(gateway, *args, terminal=terminal))
        return started[-1]

    yield start
    for run in started:
        run.close()


def assert_no_token(provider: OAuthProvider, *shown: str) -> None:
    assert provider.state.issued, "the provider issued something"
    assert not [token for token in provider.state.issued if token in "".join(shown)]


def test_device_sign_in_prints_the_code_and_ends_connected_once_it_is_entered(
    gateway: Gateway, provider: OAuthProvider, waiting: Callable[..., Waiting]
):
    run = waiting("github")
    where = run.field("open")
    code = run.field("code")
    assert where == f"{provider.url}/device"
    assert httpx.post(where, data={"user_code": code}).status_code == 200
    exit_code, out, err = run.end()
    assert exit_code == 0, err
    assert out.rstrip().endswith("connected: endpoint github")
    assert "enter the code" in err and "waiting for the code" in err
    assert_no_token(provider, out, err)
    assert [e["name"] for e in gateway.api("GET", "/api/endpoints")["endpoints"]] == ["github"]


def test_oauth_sign_in_with_your_own_client_id_waits_on_a_terminal_for_the_browser(
    gateway: Gateway, provider: OAuthProvider, waiting: Callable[..., Waiting]
):
    run = waiting("huggingface", "--client-id", CLIENT_ID, "--endpoint", "hf", terminal=True)
    landed = httpx.get(run.field("open"), follow_redirects=True)
    assert "Connected: hf" in landed.text
    exit_code, out, shown = run.end()
    assert exit_code == 0, shown
    assert out.rstrip().endswith("connected: endpoint hf")
    assert "waiting for you to sign in in the browser ·" in shown, "the spinner's line, with the time"
    assert "waiting for you to sign in in the browser…" not in shown, "not the plain line of a pipe"
    assert_no_token(provider, out, shown)
    (grant,) = gateway.api("GET", "/api/connect/endpoints")["endpoints"]
    assert (grant["endpoint"], grant["client_id"], grant["refreshes"]) == ("hf", "yours", True)


def test_a_refused_sign_in_exits_1_with_the_providers_reason(
    provider: OAuthProvider, waiting: Callable[..., Waiting]
):
    provider.state.deny = True
    run = waiting("huggingface", "--client-id", CLIENT_ID)
    httpx.get(run.field("open"), follow_redirects=True)
    exit_code, _, err = run.end()
    assert exit_code == 1
    assert "not connected: the provider said access_denied" in err


def test_no_wait_prints_the_address_as_json_and_the_listing_shows_the_endpoint_once_signed_in(
    gateway: Gateway, provider: OAuthProvider
):
    started = panelgate("connect", "openrouter", "--no-wait", "--json", url=gateway.url)
    assert started.returncode == 0, started.stderr
    shown = json.loads(started.stdout)
    assert (shown["status"], shown["endpoint"]) == ("pending", "openrouter")
    assert shown["url"].startswith(f"{provider.url}/auth?") and "not waiting" in started.stderr
    assert "Connected: openrouter" in httpx.get(shown["url"], follow_redirects=True).text

    listed = panelgate("connect", "--list", "--json", url=gateway.url)
    providers = {p["name"]: p for p in json.loads(listed.stdout)["providers"]}
    assert providers["openrouter"]["connected"] == ["openrouter"]
    assert_no_token(provider, started.stdout, started.stderr, listed.stdout)


def test_a_device_sign_in_started_without_waiting_is_finished_by_following_it(
    gateway: Gateway, provider: OAuthProvider
):
    started = panelgate("connect", "github", "--no-wait", "--json", url=gateway.url)
    assert started.returncode == 0, started.stderr
    shown = json.loads(started.stdout)
    assert f"panelgate connect --follow {shown['signin']}" in started.stderr
    httpx.post(shown["verification_uri"], data={"user_code": shown["user_code"]})
    followed = panelgate("connect", "--follow", shown["signin"], url=gateway.url)
    assert followed.returncode == 0, followed.stderr
    assert followed.stdout.strip() == "connected: endpoint github"
    assert f"waiting for sign-in {shown['signin']} to finish" in followed.stderr


def test_ollama_connects_at_once_and_the_bare_command_lists_it(gateway: Gateway, upstream: FakeUpstream):
    upstream.serve("llama3")
    connected = panelgate("connect", "ollama", url=gateway.url)
    assert connected.returncode == 0, connected.stderr
    assert connected.stdout.strip() == "connected: endpoint ollama"
    listed = panelgate("connect", url=gateway.url)
    assert listed.returncode == 0, listed.stderr
    rows = {line.split()[0]: line for line in listed.stdout.splitlines()[2:]}
    assert set(rows) == {"openrouter", "huggingface", "github", "ollama"}
    assert rows["ollama"].rstrip().endswith("ollama") and "needed" in rows["huggingface"]


def test_an_unknown_provider_is_refused_with_the_known_ones(gateway: Gateway):
    run = panelgate("connect", "nosuch", url=gateway.url)
    assert run.returncode == 1
    assert "no provider named `nosuch`" in run.stderr and "openrouter" in run.stderr
    assert "panelgate connect --list" in run.stderr


def test_options_that_contradict_each_other_are_a_usage_problem_before_any_call():
    for args, said in (
        (("github", "--list"), "--list takes no provider"),
        (("--device",), "need a PROVIDER"),
        (("github", "--follow", "abc"), "--follow waits for a sign-in already started"),
    ):
        run = panelgate("connect", *args, url="http://127.0.0.1:9")
        assert run.returncode == 2 and said in run.stderr, (args, run.stderr)
