"""Open WebUI 0.12.4, replayed: what it sends through an Ollama and an OpenAI connection.

Open WebUI is too large to install in CI, so the requests it sends are kept
as fixtures (`fixtures/open_webui/`, see its README) and replayed here over
real HTTP, checking what a person using it would notice: every chat from its
web page answered by every seat (it attaches its 36 built-in tools to each),
its background tasks (title, tags, follow-ups) not left owing verdicts, its
model lists, and believable tokens per second.
"""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import httpx
import orjson
import pytest

from tests.http.helpers import sse_events
from tests.support.gateway import Gateway
from tests.support.upstream import FakeUpstream

FIXTURES = Path(__file__).parent / "fixtures" / "open_webui"
CHAT_PATHS = {"ollama": "/api/chat", "openai": "/v1/chat/completions"}
APIS = tuple(CHAT_PATHS)
TASKS = ("title", "tags", "follow_ups")


def _fixture(name: str) -> dict[str, Any]:
    loaded: dict[str, Any] = orjson.loads((FIXTURES / name).read_bytes())
    return loaded


def _send(gateway: Gateway, api: str, body: dict[str, Any]) -> httpx.Response:
    return httpx.post(f"{gateway.url}{CHAT_PATHS[api]}", json=body, timeout=60)


def _bench(api: str, response: httpx.Response) -> dict[str, Any]:
    """The reply's `bench` field, from a whole reply or from the stream's last word."""
    assert response.status_code == 200, response.text
    if response.headers["content-type"].startswith("application/json"):
        found: dict[str, Any] = response.json()["bench"]
        return found
    if api == "ollama":
        lines = [orjson.loads(line) for line in response.text.splitlines()]
        assert lines[-1]["done"] is True
        last: dict[str, Any] = lines[-1]["bench"]
        return last
    return next(e["bench"] for e in sse_events(response.text) if isinstance(e, dict) and "bench" in e)


def _pending(gateway: Gateway, calls: list[str]) -> list[str]:
    found: list[str] = gateway.api("POST", "/bench/pending", {"calls": calls}, expect=200)["pending"]
    return found


@pytest.mark.parametrize("api", APIS)
def test_a_chat_with_open_webuis_tools_is_answered_by_every_seat_with_the_tools_left_out(
    bench: Gateway, upstream: FakeUpstream, api: str
):
    body = _fixture(f"{api}_chat_with_tools.json")
    assert len(body["tools"]) == 36 and body["stream"] is True
    panel = _bench(api, _send(bench, api, body))
    assert [(s["alias"], s["status"]) for s in panel["seats"]] == [("m1", "ok"), ("m2", "ok"), ("m3", "ok")]
    assert "offered 36 tools" in panel["note"] and "left out" in panel["note"]
    assert "bench/core:route" in panel["note"]
    sent = [request.body for request in upstream.requests]
    assert len(sent) == 3 and not any("tools" in asked or "tool_choice" in asked for asked in sent)
    assert all(asked["messages"] == body["messages"] for asked in sent)


@pytest.mark.parametrize("api", APIS)
def test_background_tasks_owe_no_verdicts_when_the_collection_says_chats(
    bench: Gateway, upstream: FakeUpstream, api: str
):
    bench.api("PATCH", "/api/collections/core", {"verdicts_owed": "chats"}, expect=200)
    task_calls = []
    for task in TASKS:
        body = _fixture(f"{api}_{task}_task.json")
        assert body["messages"][-1]["content"].startswith("### Task:") and body["stream"] is False
        panel = _bench(api, _send(bench, api, body))
        assert [s["alias"] for s in panel["seats"]] == ["m1", "m2", "m3"]
        assert "owes no verdicts" in panel["note"]
        task_calls += [s["call"] for s in panel["seats"]]
    chat_calls = [
        s["call"] for s in _bench(api, _send(bench, api, _fixture(f"{api}_chat_with_tools.json")))["seats"]
    ]
    assert _pending(bench, task_calls + chat_calls) == chat_calls
    owed = bench.api("GET", "/api/panels?answers=false")["panels"]
    assert sorted(p["owes_verdicts"] for p in owed) == [False, False, False, True]
    judged = {"call": task_calls[0], "useful": True}
    assert bench.api("POST", "/bench/verdict", judged, expect=200)["result"] == "created"


def test_background_tasks_owe_verdicts_by_default(bench: Gateway, upstream: FakeUpstream):
    panel = _bench("openai", _send(bench, "openai", _fixture("openai_title_task.json")))
    calls = [s["call"] for s in panel["seats"]]
    assert _pending(bench, calls) == calls and "note" not in panel


def test_open_webuis_listings_name_every_collection_as_a_model(bench: Gateway, upstream: FakeUpstream):
    listings = _fixture("listings.json")
    answers = {
        path: httpx.get(f"{bench.url}{path}", timeout=30) for path in listings["ollama"] + listings["openai"]
    }
    assert all(answer.status_code == 200 for answer in answers.values())
    wanted = {"bench/core", "bench/core:merged", "bench/core:route"}
    assert {m["name"] for m in answers["/api/tags"].json()["models"]} == wanted
    assert {m["id"] for m in answers["/v1/models"].json()["data"]} == wanted
    running = answers["/api/ps"].json()["models"]
    assert {m["name"] for m in running} == wanted
    now = datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    assert all(m["expires_at"] > now and m["size_vram"] == 0 for m in running), "loaded, and staying"


@pytest.mark.parametrize("stream", [True, False])
def test_ollama_durations_are_the_panels_own_time_so_tokens_per_second_are_believable(
    bench: Gateway, upstream: FakeUpstream, stream: bool
):
    upstream.behave("m1", delay=0.2)
    body = {**_fixture("ollama_chat_with_tools.json"), "stream": stream}
    response = _send(bench, "ollama", body)
    assert response.status_code == 200, response.text
    done = orjson.loads(response.text.splitlines()[-1])
    assert done["done"] is True
    slow_seat_wait_ns = done["prompt_eval_duration"] + done["eval_duration"]
    assert slow_seat_wait_ns >= 200_000_000, "from seating to the slow seat's answer is at least its delay"
    assert (
        done["total_duration"] == done["load_duration"] + done["prompt_eval_duration"] + done["eval_duration"]
    )
    assert done["prompt_eval_duration"] < done["eval_duration"], "the fast seats answered before the slow one"
    tokens_per_second = done["eval_count"] / (done["eval_duration"] / 1e9)
    assert 0 < tokens_per_second < 2_000
