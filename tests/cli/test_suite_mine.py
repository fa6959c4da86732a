"""`panelgate ask -f` keeps the files it sent; `panelgate suite mine` makes the judged panel draft tasks."""

from __future__ import annotations

import json
import re
import stat
from pathlib import Path

from panelgate.suite.mine_tasks import fixture_path
from tests.cli.runner import panelgate
from tests.support.gateway import Gateway
from tests.support.upstream import FakeUpstream

PANEL = re.compile(r"p\d{8}-\d{6}-[0-9a-f]{4}")


def asked_with_files(bench: Gateway, home: Path, files: list[Path], *extra: str) -> str:
    """Ask `core` with these files from a shell whose data folder is `home`; the panel id."""
    options = [arg for path in files for arg in ("-f", str(path))]
    run = panelgate(
        "ask", "core", "do these add one?", *options, *extra, url=bench.url, env={"PANELGATE_HOME": str(home)}
    )
    assert run.returncode == 0, run.stderr
    found = PANEL.search(run.stderr)
    assert found, run.stderr
    return found.group()


def test_a_panel_asked_with_files_mines_into_drafts_whose_fixtures_are_the_files_sent(
    bench: Gateway, upstream: FakeUpstream, tmp_path: Path
) -> None:
    home = tmp_path / "shell-home"
    first, second = tmp_path / "a.py", tmp_path / "b.py"
    first.write_bytes(b"def add_one(x):\r\n    return x + 1\r\n\n\n")
    second.write_bytes("def name():\n    return 'café'  # no newline at the end".encode())
    panel = asked_with_files(bench, home, [first, second])
    sent = upstream.requests_for("m1")[0].body["messages"][-1]["content"]
    assert f"===== FILE: {first} =====" in sent and f"===== FILE: {second} =====" in sent

    kept = home / "asked" / f"{panel}.json"
    assert stat.S_IMODE(kept.stat().st_mode) == 0o600
    assert stat.S_IMODE(kept.parent.stat().st_mode) == 0o700
    judged = panelgate(
        "verdict", f"{panel}.member2", "--useful", "--real", "add_one adds one",
        "--false", "name returns bytes", url=bench.url,
    )  # fmt: skip
    assert judged.returncode == 0, judged.stderr

    mined = panelgate("suite", "mine", panel, url=bench.url, env={"PANELGATE_HOME": str(home)})
    assert mined.returncode == 0, mined.stderr
    assert f"mined 2 new draft task(s) from panel {panel}" in mined.stdout
    assert '"draft": false' in mined.stderr
    tasks = bench.home / "suite" / "tasks"
    written = sorted(p for p in tasks.iterdir() if p.name.startswith("mined-"))
    assert len(written) == 2
    for folder in written:
        document = json.loads((folder / "task.json").read_text())
        assert document["draft"] is True and document["shape"] == "claim"
        assert f"{panel}.member2" in document["source"]
        for path in (first, second):
            assert (folder / "fixtures" / fixture_path(str(path))).read_bytes() == path.read_bytes()
        assert sorted(document["attach"]) == sorted(fixture_path(str(p)) for p in (first, second))
    truths = {json.loads((f / "task.json").read_text())["must_find"][0]["label"] for f in written}
    assert truths == {"VERDICT: TRUE", "VERDICT: FALSE"}

    listed = panelgate("suite", "tasks", "--shape", "claim", url=bench.url)
    assert listed.returncode == 0, listed.stderr
    assert all(re.search(rf"{f.name}.*data, draft", listed.stdout) for f in written), listed.stdout
    again = panelgate("suite", "mine", panel, "--json", url=bench.url, env={"PANELGATE_HOME": str(home)})
    assert again.returncode == 0, again.stderr
    answer = json.loads(again.stdout)
    assert answer["written"] == [] and sorted(t["id"] for t in answer["existing"]) == [
        f.name for f in written
    ]


def test_no_keep_keeps_nothing_and_mining_then_says_why(
    bench: Gateway, upstream: FakeUpstream, tmp_path: Path
) -> None:
    home = tmp_path / "shell-home"
    source = tmp_path / "a.py"
    source.write_text("x = 1\n")
    panel = asked_with_files(bench, home, [source], "--no-keep")
    assert not (home / "asked").exists()
    bench.api(
        "POST", "/bench/verdict", {"call": f"{panel}.member1", "useful": True, "real": ["x is 1"]}, expect=200
    )
    mined = panelgate("suite", "mine", panel, url=bench.url, env={"PANELGATE_HOME": str(home)})
    assert mined.returncode == 1
    assert "ask with -f kept no files for this panel" in mined.stderr
    assert str(home / "asked") in mined.stderr.replace("\n", "")
    assert not (bench.home / "suite" / "tasks").exists()


def test_mining_an_unknown_panel_exits_with_the_server_s_reason(gateway: Gateway, tmp_path: Path) -> None:
    run = panelgate(
        "suite", "mine", "p20260101-000000-abcd", url=gateway.url, env={"PANELGATE_HOME": str(tmp_path)}
    )
    assert run.returncode == 1
    assert "no panel `p20260101-000000-abcd` is recorded" in run.stderr
    bad = panelgate(
        "suite", "mine", "../../etc/passwd", url=gateway.url, env={"PANELGATE_HOME": str(tmp_path)}
    )
    assert bad.returncode == 1 and "is not a panel id" in bad.stderr


def test_ask_help_says_where_files_are_kept_and_how_not_to() -> None:
    shown = panelgate("ask", "--help", url=None, env={"COLUMNS": "200"})
    assert shown.returncode == 0, shown.stderr
    assert "suite mine" in shown.stdout and "--no-keep" in shown.stdout and "asked/" in shown.stdout
