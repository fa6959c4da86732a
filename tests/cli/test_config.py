"""`panelgate config`: a bench exported from one server and imported into another."""

from __future__ import annotations

import json
from pathlib import Path

import httpx
import yaml

from tests.cli.runner import panelgate
from tests.support.gateway import Gateway
from tests.support.upstream import FakeUpstream


def test_config_export_then_import_into_a_fresh_gateway(
    bench: Gateway, upstream: FakeUpstream, tmp_path: Path
):
    saved = tmp_path / "bench.yaml"
    exported = panelgate("config", "export", "-o", str(saved), url=bench.url)
    assert exported.returncode == 0, exported.stderr
    assert saved.read_text() == httpx.get(f"{bench.url}/api/config").text
    fresh = Gateway(tmp_path / "other").start()
    try:
        unconfirmed = panelgate("config", "import", str(saved), url=fresh.url)
        assert unconfirmed.returncode == 2 and "--yes" in unconfirmed.stderr
        assert fresh.api("GET", "/api/collections")["collections"] == []
        imported = panelgate("config", "import", str(saved), "--yes", url=fresh.url)
        assert imported.returncode == 0, imported.stderr
        assert httpx.get(f"{fresh.url}/api/config").text == saved.read_text()
    finally:
        fresh.close()


def test_config_import_refused_exits_1_with_the_servers_reason_and_changes_nothing(
    bench: Gateway, upstream: FakeUpstream, tmp_path: Path
):
    before = httpx.get(f"{bench.url}/api/config").text
    bad = tmp_path / "bad.yaml"
    bad.write_text(before.replace("members:\n  - m1", "members:\n  - nobody"))
    run = panelgate("config", "import", str(bad), "--yes", url=bench.url)
    assert run.returncode == 1
    assert "nobody" in run.stderr
    assert httpx.get(f"{bench.url}/api/config").text == before


def test_config_export_json_is_the_same_configuration(bench: Gateway, upstream: FakeUpstream):
    run = panelgate("config", "export", "--json", url=bench.url)
    assert run.returncode == 0, run.stderr
    assert json.loads(run.stdout) == yaml.safe_load(httpx.get(f"{bench.url}/api/config").text)
