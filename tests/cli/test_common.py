"""What every client command shares: finding the server, `--json`/`--url` anywhere, exit code 3."""

from __future__ import annotations

import json
import re

import pytest

from panelgate import __version__
from tests.cli.panels import panel_calls
from tests.cli.runner import panelgate
from tests.support.gateway import Gateway, free_port
from tests.support.upstream import FakeUpstream


def test_status_shows_version_url_data_folder_and_counts(bench: Gateway, upstream: FakeUpstream):
    run = panelgate("status", url=f"{bench.url}/v1/")
    assert run.returncode == 0, run.stderr
    assert __version__ in run.stdout and bench.url in run.stdout
    assert str(bench.home) in run.stdout
    assert re.search(r"^models\s+3$", run.stdout, re.MULTILINE)
    assert re.search(r"^collections\s+1$", run.stdout, re.MULTILINE)
    assert re.search(r"^panels today\s+0$", run.stdout, re.MULTILINE)
    assert re.search(r"^answers owed\s+0$", run.stdout, re.MULTILINE)


def test_status_counts_todays_panels_and_the_answers_owed_a_verdict(bench: Gateway, upstream: FakeUpstream):
    calls = panel_calls(bench)
    panel_calls(bench)
    bench.api("POST", "/bench/verdict", {"call": calls["m1"], "useful": True}, expect=200)
    run = panelgate("status", url=bench.url)
    assert run.returncode == 0, run.stderr
    assert re.search(r"^panels today\s+2$", run.stdout, re.MULTILINE)
    assert re.search(r"^answers owed\s+5 \(panelgate judge\)$", run.stdout, re.MULTILINE)


def test_json_and_url_work_before_and_after_the_command_and_beat_the_environment(
    bench: Gateway, upstream: FakeUpstream
):
    nowhere = f"http://127.0.0.1:{free_port()}"
    for args in (
        ("--json", "--url", bench.url, "collection", "list"),
        ("collection", "list", "--json", "--url", bench.url),
        ("--url", bench.url, "collections", "--json"),
    ):
        run = panelgate(*args, url=nowhere)
        assert run.returncode == 0, (args, run.stderr)
        assert [c["name"] for c in json.loads(run.stdout)["collections"]] == ["core"]


def test_no_server_exits_3_naming_the_url_and_how_to_start_one():
    nowhere = f"http://127.0.0.1:{free_port()}"
    run = panelgate("status", url=nowhere)
    assert run.returncode == 3
    assert nowhere in run.stderr and "panelgate serve" in run.stderr
    assert "Traceback" not in run.stderr


@pytest.mark.parametrize(
    "args",
    [
        ("ask", "core", "hi"),
        ("ask", "core", "hi", "--json"),
        ("models",),
        ("verdict", "p20261130-101500-a1b2.member1", "--useful"),
        ("collection", "rm", "core", "--yes"),
    ],
    ids=" ".join,
)
def test_every_kind_of_command_exits_3_when_no_server_answers(args: tuple[str, ...]):
    nowhere = f"http://127.0.0.1:{free_port()}"
    run = panelgate(*args, url=nowhere)
    assert run.returncode == 3, run.stderr
    assert nowhere in run.stderr and "Traceback" not in run.stderr
    assert run.stdout == ""


def test_status_json_prints_the_servers_answer(bench: Gateway, upstream: FakeUpstream):
    run = panelgate("status", "--json", url=bench.url)
    assert run.returncode == 0, run.stderr
    assert json.loads(run.stdout) == bench.api("GET", "/api/status", expect=200)


def test_an_unknown_option_exits_2_with_the_usage_on_stderr():
    run = panelgate("models", "--colour", url=f"http://127.0.0.1:{free_port()}")
    assert run.returncode == 2
    assert "--colour" in run.stderr and "Usage" in run.stderr
    assert run.stdout == ""


GROUPS = (
    "endpoint",
    "model",
    "collection",
    "config",
    "key",
    "scheduler",
    "onboard",
    "suite",
    "hub",
    "discover",
)


@pytest.mark.parametrize("group", [(), *((name,) for name in GROUPS)])
def test_each_command_is_summed_up_on_one_line_of_the_help(group: tuple[str, ...]):
    shown = panelgate(*group, "--help", url=None, env={"COLUMNS": "200"})
    assert shown.returncode == 0, shown.stderr
    panel = shown.stdout[shown.stdout.index("─ Commands ─") :].splitlines()
    listing = [line for line in panel if line.startswith("│")]
    assert len(listing) >= 2 and all(re.match(r"│ [a-z]", line) for line in listing), "\n".join(listing)
