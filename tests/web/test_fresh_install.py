"""A fresh install, started with the README's first command, has the review suite ready to run.

`scripts/serve` on an empty data folder; the person adds an endpoint (the
loopback upstream) and a model with the CLI, finds the starter pack with
`panelgate suite tasks`, asks one task with `panelgate suite run`, and reads
the result on the Benchmarks page.
"""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from playwright.sync_api import Browser

from tests.cli.runner import panelgate
from tests.support.gateway import free_port, wait_for_health
from tests.support.upstream import FakeUpstream
from tests.web.browser import watched_page

ROOT = Path(__file__).resolve().parents[2]
STARTER = ROOT / "src/panelgate/suite/starter"


@pytest.fixture
def served(tmp_path: Path) -> Iterator[str]:
    """`scripts/serve --port P` with an empty data folder of its own; its URL."""
    port = free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith("PANELGATE_")}
    env["PANELGATE_HOME"] = str(tmp_path / "home")
    log = tmp_path / "serve.log"
    with log.open("wb") as output:
        process = subprocess.Popen(
            [str(ROOT / "scripts/serve"), "--port", str(port)],
            env=env,
            stdout=output,
            stderr=subprocess.STDOUT,
        )
    url = f"http://127.0.0.1:{port}"
    try:
        wait_for_health(url, process, log, 60)
        yield url
    finally:
        process.terminate()
        process.wait(30)


def cli(url: str, *args: str) -> str:
    done = panelgate(*args, url=url)
    assert done.returncode == 0, f"panelgate {' '.join(args)}:\n{done.stderr}"
    return done.stdout


def test_the_starter_pack_is_listed_run_stored_and_shown(
    served: str, upstream: FakeUpstream, browser: Browser
):
    listed = json.loads(cli(served, "suite", "tasks", "--json"))
    starter = sorted(folder.name for folder in STARTER.iterdir() if (folder / "task.json").is_file())
    assert len(starter) >= 18
    assert sorted(t["id"] for t in listed["tasks"] if t["origin"] == "starter") == starter
    claim = next(t for t in listed["tasks"] if t["shape"] == "claim" and t["must_find"] == ["VERDICT: TRUE"])

    upstream.serve("m1")
    cli(served, "endpoint", "add", "up", "--base", upstream.url, "--kind", "local", "--no-key")
    cli(served, "model", "add", "m1", "--endpoint", "up", "--alias", "m1")
    upstream.behave("m1", answer="VERDICT: TRUE\nThe attached code does exactly that, line by line.")
    ran = cli(served, "suite", "run", "--model", "m1", "--task", claim["id"])
    assert "right" in ran

    (sent,) = upstream.requests_for("m1")
    fixtures = [f for f in (STARTER / claim["id"] / "fixtures").rglob("*") if f.is_file()]
    assert fixtures and all(f.read_text().rstrip() in sent.body["messages"][0]["content"] for f in fixtures)
    stored = httpx.get(f"{served}/api/suite/answers", params={"model": "m1"}, timeout=10).json()["answers"]
    assert [(a["task"], a["status"], a["right"]) for a in stored] == [(claim["id"], "ok", True)]

    with watched_page(browser, served) as watched:
        page = watched.page
        page.goto(f"{served}/benchmarks")
        assert page.locator("#no-results").count() == 0
        standing = page.get_by_role("table", name="Recall and invention per model").locator("tbody tr")
        assert standing.count() == 1 and standing.first.get_by_role("rowheader").inner_text().startswith("m1")
        cell = page.locator(f'td[data-task="{claim["id"]}"]')
        assert (cell.get_attribute("data-result"), cell.inner_text()) == ("right", "✓")
