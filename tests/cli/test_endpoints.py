"""`panelgate endpoint`: the key travels by stdin or a hidden prompt, never argv or output."""

from __future__ import annotations

import json
import re

from tests.cli.runner import panelgate, panelgate_answering
from tests.support.gateway import Gateway, free_port
from tests.support.upstream import FakeUpstream

KEY = "sk-cli-secret-7f3a9c"


def asked_with_key(gateway: Gateway, upstream: FakeUpstream) -> str:
    """Ask a one-model collection on endpoint `up`; the Authorization header m1's call carried."""
    gateway.add_model("m1")
    gateway.save_collection("solo", ["m1"])
    run = panelgate("ask", "solo", "hi", url=gateway.url)
    assert run.returncode == 0, run.stderr
    assert KEY not in run.stdout + run.stderr
    return upstream.requests_for("m1")[0].headers["authorization"]


def test_endpoint_add_sends_the_key_from_stdin_and_never_shows_it(gateway: Gateway, upstream: FakeUpstream):
    upstream.behave("m1", require_key=KEY)
    run = panelgate(
        "endpoint", "add", "up", "--base", upstream.url, "--key-stdin", url=gateway.url, stdin=KEY + "\n"
    )
    assert run.returncode == 0, run.stderr
    assert KEY not in run.stdout + run.stderr
    listed = panelgate("endpoints", "--json", url=gateway.url)
    assert [e["name"] for e in json.loads(listed.stdout)["endpoints"]] == ["up"]
    assert KEY not in listed.stdout
    assert asked_with_key(gateway, upstream) == f"Bearer {KEY}"


def test_endpoint_add_says_how_to_put_a_listed_model_on_the_bench_and_that_command_works(
    gateway: Gateway, upstream: FakeUpstream
):
    upstream.serve("m1")
    for name in ("first", "second"):
        run = panelgate("endpoint", "add", name, "--base", upstream.url, "--no-key", url=gateway.url)
        assert run.returncode == 0, run.stderr
        (hint,) = re.findall(r"put one on the bench: (panelgate model add [^(]+?) \(", run.stderr)
        expected = "panelgate model add m1" + ("" if name == "first" else " --endpoint second")
        assert hint == expected
    added = panelgate(*hint.split()[1:], "--alias", "from-second", url=gateway.url)
    assert added.returncode == 0, added.stderr
    assert gateway.api("GET", "/api/models/from-second", expect=200)["model"]["endpoint"] == "second"


def test_endpoint_add_reads_the_key_from_a_hidden_prompt_on_a_terminal(
    gateway: Gateway, upstream: FakeUpstream
):
    upstream.behave("m1", require_key=KEY)
    code, shown = panelgate_answering(
        "endpoint",
        "add",
        "up",
        "--base",
        upstream.url,
        url=gateway.url,
        prompt="API key for up",
        answer=KEY,
        hidden=True,
    )
    assert code == 0, shown
    assert "added endpoint up" in shown
    assert KEY not in shown
    assert asked_with_key(gateway, upstream) == f"Bearer {KEY}"


def test_endpoint_add_off_a_terminal_without_a_key_source_exits_2_before_calling_the_server():
    run = panelgate(
        "endpoint",
        "add",
        "up",
        "--base",
        "http://127.0.0.1:9/v1",
        url=f"http://127.0.0.1:{free_port()}",
        stdin=KEY,
    )
    assert run.returncode == 2
    assert "--key-stdin" in run.stderr and "--no-key" in run.stderr
    assert KEY not in run.stdout + run.stderr


def test_endpoint_list_and_rm_with_yes(gateway: Gateway, upstream: FakeUpstream):
    assert (
        panelgate(
            "endpoint", "add", "up", "--base", upstream.url, "--no-key", "--kind", "local", url=gateway.url
        ).returncode
        == 0
    )
    listed = panelgate("endpoint", "list", url=gateway.url)
    row = next(line for line in listed.stdout.splitlines() if line.startswith("up "))
    assert upstream.url in row and "local" in row
    removed = panelgate("endpoint", "rm", "up", "--yes", url=gateway.url)
    assert removed.returncode == 0, removed.stderr
    assert gateway.api("GET", "/api/endpoints")["endpoints"] == []


def test_endpoint_rm_without_a_terminal_or_yes_exits_2_and_removes_nothing(
    bench: Gateway, upstream: FakeUpstream
):
    run = panelgate("endpoint", "rm", "up", url=bench.url)
    assert run.returncode == 2
    assert "--yes" in run.stderr
    assert [e["name"] for e in bench.api("GET", "/api/endpoints")["endpoints"]] == ["up"]


def test_endpoint_test_lists_with_the_key_and_saves_nothing(gateway: Gateway, upstream: FakeUpstream):
    upstream.require_key = KEY
    run = panelgate(
        "endpoint", "test", "up", "--base", upstream.url, "--key-stdin", url=gateway.url, stdin=KEY + "\n"
    )
    assert run.returncode == 0, run.stderr
    assert "nothing saved" in run.stdout and KEY not in run.stdout + run.stderr
    assert gateway.api("GET", "/api/endpoints", expect=200)["endpoints"] == []
    wrong = panelgate(
        "endpoint", "test", "up", "--base", upstream.url, "--key-stdin", url=gateway.url, stdin="sk-wrong\n"
    )
    assert wrong.returncode == 1 and "sk-wrong" not in wrong.stderr


def test_endpoint_default_moves_the_default(gateway: Gateway, upstream: FakeUpstream):
    gateway.add_endpoint("first", upstream.url)
    gateway.add_endpoint("second", upstream.url)
    run = panelgate("endpoint", "default", "second", url=gateway.url)
    assert run.returncode == 0, run.stderr
    listed = {e["name"]: e["is_default"] for e in gateway.api("GET", "/api/endpoints")["endpoints"]}
    assert listed == {"first": False, "second": True}
