"""`panelgate discover`: the fixture catalogs listed with marks and reach, and `discover add` putting a
row on the bench and in the onboarding queue, run as a person's shell would against a real gateway."""

from __future__ import annotations

import json

import pytest

from tests.catalog.discover_setup import groq_bench
from tests.catalog.loopback import CatalogServer
from tests.cli.runner import panelgate
from tests.http.onboarding_helpers import wait_for_queue
from tests.support.gateway import Gateway
from tests.support.upstream import FakeUpstream


@pytest.fixture
def groq(gateway: Gateway, upstream: FakeUpstream, catalogs: CatalogServer) -> Gateway:
    return groq_bench(gateway, upstream, catalogs)


def test_discover_lists_free_models_first_with_their_reach(groq: Gateway) -> None:
    run = panelgate("discover", url=groq.url)
    assert run.returncode == 0, run.stderr
    lines = [line for line in run.stdout.splitlines() if "/" in line.split(" ", 1)[0]]
    assert [line.split()[0] for line in lines] == [
        "groq/llama-3.1-8b-instant",
        "openrouter/deepseek/deepseek-chat-v3-0324:free",
        "freebies/tiny-chat",
        "groq/llama-3.3-70b-versatile",
        "groq/qwen-qwq-32b",
    ]
    assert "free" in lines[0] and "connected" in lines[0] and "groq" in lines[0]
    assert "on bench" in lines[3] and "llama" in lines[3]
    assert "models.dev: fetched" in run.stderr


def test_discover_free_and_provider_filters_and_json(groq: Gateway) -> None:
    free = json.loads(panelgate("discover", "--free", "--json", url=groq.url).stdout)
    assert free["rows"] and all(row["free"] for row in free["rows"])
    deepseek = panelgate("discover", "--provider", "deepseek", url=groq.url)
    assert "deepseek/deepseek-chat" in deepseek.stdout and "easy to add" in deepseek.stdout
    nothing = panelgate("discover", "--new", url=groq.url)
    assert nothing.returncode == 0 and "no model matches" in nothing.stderr


def test_discover_add_queues_the_model_and_puts_it_on_the_bench(groq: Gateway) -> None:
    run = panelgate("discover", "add", "groq/llama-3.1-8b-instant", "--suite", "quick", url=groq.url)
    assert run.returncode == 0, run.stderr
    assert "queued groq/llama-3.1-8b-instant as `llama-3.1-8b-instant` through groq" in run.stdout
    queue = wait_for_queue(groq)
    assert [(item["served_id"], item["state"]) for item in queue["items"]] == [
        ("llama-3.1-8b-instant", "done")
    ]
    models = {m["alias"] for m in groq.api("GET", "/api/models", expect=200)["models"]}
    assert "llama-3.1-8b-instant" in models
    listed = panelgate("discover", "--free", url=groq.url).stdout
    assert "on bench" in next(line for line in listed.splitlines() if "llama-3.1-8b-instant" in line)


def test_discover_add_says_what_to_do_when_no_endpoint_serves_it(groq: Gateway) -> None:
    run = panelgate("discover", "add", "freebies/tiny-chat", url=groq.url)
    assert run.returncode == 1
    assert "add an endpoint for freebies at https://api.freebies.example/v1" in run.stderr
    bad = panelgate("discover", "add", "tiny-chat", url=groq.url)
    assert bad.returncode == 2 and "PROVIDER/MODEL" in bad.stderr
