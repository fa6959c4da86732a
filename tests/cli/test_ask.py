"""`panelgate ask`: the prompt's sources, what reaches the server, and where the answers go."""

from __future__ import annotations

import json
import re
from pathlib import Path

import httpx
import pytest

from tests.cli.runner import panelgate, panelgate_watched
from tests.support.gateway import Gateway, free_port
from tests.support.upstream import FakeUpstream

CALL = re.compile(r"p\d{8}-\d{6}-[0-9a-f]{4}\.(member\d|explorer\d?|merger)")


def seat_lines(stderr: str) -> dict[str, str]:
    """The seat table's rows by call-id suffix (`member1`, `explorer`, `merger`)."""
    return {match.group(1): line for line in stderr.splitlines() if (match := CALL.search(line))}


def user_text(upstream: FakeUpstream, alias: str) -> str:
    content: str = upstream.requests_for(alias)[0].body["messages"][-1]["content"]
    return content


def test_ask_prints_every_answer_to_stdout_and_the_seat_table_to_stderr(
    bench: Gateway, upstream: FakeUpstream
):
    run = panelgate("ask", "core", "say", "hi", url=bench.url)
    assert run.returncode == 0, run.stderr
    for alias in ("m1", "m2", "m3"):
        assert f"answer from {alias}" in run.stdout
    assert "answer from" not in run.stderr
    assert "seats answered" not in run.stderr, "no status line off a terminal"
    seats = seat_lines(run.stderr)
    assert sorted(seats) == ["member1", "member2", "member3"]
    for n, alias in enumerate(("m1", "m2", "m3"), start=1):
        assert re.search(rf"\b{alias}\b.*\bok\b", seats[f"member{n}"])
    assert user_text(upstream, "m1") == "say hi"


def test_ask_on_a_narrow_terminal_keeps_each_call_id_on_one_line(bench: Gateway, upstream: FakeUpstream):
    run = panelgate("ask", "core", "say", "hi", url=bench.url, env={"COLUMNS": "50"})
    assert run.returncode == 0, run.stderr
    seats = seat_lines(run.stderr)  # a row counts only when its whole call id is on it
    assert sorted(seats) == ["member1", "member2", "member3"]
    assert all(len(line) <= 50 for line in run.stderr.splitlines())


def test_ask_reads_the_prompt_from_piped_stdin(bench: Gateway, upstream: FakeUpstream):
    run = panelgate("ask", "core", url=bench.url, stdin="what is two plus two?\n")
    assert run.returncode == 0, run.stderr
    assert user_text(upstream, "m2") == "what is two plus two?"


def test_ask_sends_the_words_then_what_is_piped_on_stdin(bench: Gateway, upstream: FakeUpstream):
    diff = "--- a/loop.py\n+++ b/loop.py\n-for i in range(n):\n+for i in range(n + 1):\n"
    run = panelgate("ask", "core", "Review this change", url=bench.url, stdin=diff)
    assert run.returncode == 0, run.stderr
    assert user_text(upstream, "m1") == f"Review this change\n\n{diff.rstrip()}"


def test_ask_reads_stdin_for_a_dash_and_appends_files_as_sections(
    bench: Gateway, upstream: FakeUpstream, tmp_path: Path
):
    notes = tmp_path / "notes.txt"
    notes.write_text("line one\nline two\n")
    run = panelgate(
        "ask", "core", "-", "-f", str(notes), "--system", "be brief", url=bench.url, stdin="review this"
    )
    assert run.returncode == 0, run.stderr
    messages = upstream.requests_for("m1")[0].body["messages"]
    assert messages[0] == {"role": "system", "content": "be brief"}
    assert messages[-1]["content"] == f"review this\n\n===== FILE: {notes} =====\nline one\nline two\n"


def test_ask_adds_each_file_in_a_block_labelled_with_its_path(
    bench: Gateway, upstream: FakeUpstream, tmp_path: Path
):
    first, second = tmp_path / "a.py", tmp_path / "b.py"
    first.write_text("x = 1\n")
    second.write_text("y = 2\n")
    run = panelgate("ask", "core", "compare", "these", "-f", str(first), "-f", str(second), url=bench.url)
    assert run.returncode == 0, run.stderr
    blocks = re.split(r"^===== FILE: (.+) =====$", user_text(upstream, "m3"), flags=re.MULTILINE)
    assert blocks[0].strip() == "compare these"
    assert dict(zip(blocks[1::2], (b.strip() for b in blocks[2::2]), strict=True)) == {
        str(first): "x = 1",
        str(second): "y = 2",
    }


def test_ask_shows_the_seats_finishing_one_by_one_on_a_terminal(bench: Gateway, upstream: FakeUpstream):
    for n, alias in enumerate(("m1", "m2", "m3"), start=1):
        upstream.behave(alias, delay=0.5 * n)
    code, out, shown = panelgate_watched("ask", "core", "hi", url=bench.url)
    assert code == 0, shown
    counts = [shown.find(f"{n} of 3 seats answered") for n in range(4)]
    assert -1 not in counts and counts == sorted(counts), shown
    assert CALL.search(shown), "the seat table follows on the terminal"
    assert all(f"answer from {alias}" in out for alias in ("m1", "m2", "m3"))
    assert "seats answered" not in out and "\x1b" not in out


def test_ask_merged_streams_one_answer_and_lists_the_merger_seat(bench: Gateway, upstream: FakeUpstream):
    upstream.behave("m1", answer="the merged view")
    run = panelgate("ask", "core", "--merged", "compare", url=bench.url)
    assert run.returncode == 0, run.stderr
    assert "the merged view" in run.stdout
    assert "merger" in seat_lines(run.stderr)
    assert "answer from m2" not in run.stdout


def test_ask_with_seats_the_nominated_model_as_an_explorer(bench: Gateway, upstream: FakeUpstream):
    bench.gateway_settings(max_calls=4, max_explorers=1)
    upstream.serve("m4")
    bench.add_model("m4")
    run = panelgate("ask", "core", "hi", "--with", "m4", url=bench.url)
    assert run.returncode == 0, run.stderr
    assert len(upstream.requests_for("m4")) == 1
    assert "m4" in seat_lines(run.stderr)["explorer"]


def test_ask_json_prints_the_whole_reply_with_its_bench_field(bench: Gateway, upstream: FakeUpstream):
    run = panelgate("ask", "core", "hi", "--json", url=bench.url)
    assert run.returncode == 0, run.stderr
    reply = json.loads(run.stdout)
    assert [s["alias"] for s in reply["bench"]["seats"]] == ["m1", "m2", "m3"]
    assert upstream.requests_for("m1")[0].body["messages"][-1]["content"] == "hi"


@pytest.mark.parametrize("reply", ["streamed", "--json"])
def test_ask_gives_up_after_panelgate_timeout_seconds(bench: Gateway, upstream: FakeUpstream, reply: str):
    upstream.behave("m3", delay=3)
    args = ("--json",) if reply == "--json" else ()
    run = panelgate("ask", "core", "hi", *args, url=bench.url, env={"PANELGATE_TIMEOUT": "1"})
    assert run.returncode == 1
    assert "within 1 s" in run.stderr and "PANELGATE_TIMEOUT" in run.stderr
    assert "answer from m3" not in run.stdout


def test_unknown_collection_exits_1_with_the_servers_message(bench: Gateway, upstream: FakeUpstream):
    refusal = httpx.post(
        f"{bench.url}/v1/chat/completions",
        json={"model": "bench/nowhere", "messages": [{"role": "user", "content": "hi"}]},
    )
    run = panelgate("ask", "nowhere", "hi", url=bench.url)
    assert run.returncode == 1
    assert refusal.json()["error"]["message"] in run.stderr
    assert run.stdout == ""


def test_nothing_to_ask_exits_2_before_reaching_for_a_server():
    run = panelgate("ask", "core", url=f"http://127.0.0.1:{free_port()}")
    assert run.returncode == 2
    assert "nothing to ask" in run.stderr
