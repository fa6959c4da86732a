"""`panelgate key create … --tokens-per-day N --cost-per-month D`, `key limits` and `keys`: budgets set
from the shell hold on the gateway, and the list shows them with what each key spent."""

from __future__ import annotations

import json
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.cli.runner import panelgate
from tests.http.helpers import hello
from tests.http.key_helpers import ADMIN_TOKEN, get, keyed_bench, post
from tests.support.gateway import Gateway
from tests.support.upstream import FakeUpstream


@pytest.fixture
def keyed(tmp_path: Path, upstream: FakeUpstream) -> Iterator[Gateway]:
    with keyed_bench(tmp_path / "home", upstream) as server:
        for model in ("m1", "m2", "m3"):
            upstream.behave(model, usage=(1000, 100))
        yield server


def cli(gateway: Gateway, *args: str) -> subprocess.CompletedProcess[str]:
    done = panelgate(*args, url=gateway.url, env={"PANELGATE_ADMIN_TOKEN": ADMIN_TOKEN})
    assert done.returncode == 0, done.stderr
    return done


def test_budgets_made_on_the_command_line_are_listed_and_enforced(keyed: Gateway):
    key = cli(
        keyed, "key", "create", "ci", "--tokens-per-day", "2000", "--cost-per-month", "5.00"
    ).stdout.strip()
    listed = cli(keyed, "keys").stdout
    assert "2,000 tokens/day, $5.00/month" in listed and "0 tok $0.00 today" in listed

    assert post(keyed, "/v1/chat/completions", hello(), key).status_code == 200
    deadline = time.monotonic() + 10  # the spend is read from the ledger every few seconds
    while get(keyed, "/v1/models", key).status_code == 200 and time.monotonic() < deadline:
        time.sleep(0.2)
    assert get(keyed, "/v1/models", key).status_code == 429
    assert "3,300 tok $0.00 today" in cli(keyed, "keys").stdout


def test_key_limits_changes_and_lifts_budgets(keyed: Gateway):
    made = json.loads(cli(keyed, "key", "create", "laptop", "--cost-per-day", "1", "--json").stdout)
    changed = cli(
        keyed, "key", "limits", str(made["id"]), "--tokens-per-month", "50000", "--lift", "cost-per-day"
    )
    assert "50,000 tokens/month" in changed.stdout + changed.stderr
    (shown,) = json.loads(cli(keyed, "keys", "--json").stdout)["keys"]
    assert (shown["tokens_per_month"], shown["cost_per_day"]) == (50000, None)
    nothing = panelgate(
        "key", "limits", str(made["id"]), url=keyed.url, env={"PANELGATE_ADMIN_TOKEN": ADMIN_TOKEN}
    )
    assert nothing.returncode != 0 and "--lift" in nothing.stderr
