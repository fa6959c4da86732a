"""`panelgate ask`: the prompt's sources, what reaches the server, and where the answers go."""

from __future__ import annotations

import json
import re
from pathlib import Path

import httpx

from tests.cli.runner import panelgate
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
    seats = seat_lines(run.stderr)
    assert sorted(seats) == ["member1", "member2", "member3"]
    for n, alias in enumerate(("m1", "m2", "m3"), start=1):
        assert re.search(rf"\b{alias}\b.*\bok\b", seats[f"member{n}"])
    assert user_text(upstream, "m1") == "say hi"


def test_ask_reads_the_prompt_from_piped_stdin(bench: Gateway, upstream: FakeUpstream):
    run = panelgate("ask", "core", url=bench.url, stdin="what is two plus two?\n")
    assert run.returncode == 0, run.stderr
    assert user_text(upstream, "m2") == "what is two plus two?"


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


def test_ask_merged_streams_one_answer_and_lists_the_merger_seat(bench: Gateway, upstream: FakeUpstream):
    upstream.behave("m1", answer="the merged view")
    run = panelgate("ask", "core", "--merged", "compare", url=bench.url)
    assert run.returncode == 0, run.stderr
    assert "the merged view" in run.stdout
    assert "merger" in seat_lines(run.stderr)
    assert "answer from m2" not in run.stdout


def test_ask_with_seats_the_nominated_model_as_an_explorer(bench: Gateway, upstream: FakeUpstream):
    bench.gateway_settings(max_calls=4, max_explorers=1)
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
