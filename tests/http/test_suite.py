"""The review suite through the admin API: tasks on a fresh install, runs, dry runs, streams, standings."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx

from tests.http.helpers import ask, hello, sse_events
from tests.support.gateway import Gateway
from tests.support.upstream import FakeUpstream

TRUE_CLAIM = "claim-sizing-images-flat"
FALSE_CLAIM = "claim-sizing-empty-is-one"
BUG = "bug-sizing-fits"
REASONS = "\nThe attached code says so: `IMAGE_TOKENS * count_images(messages)` is added whatever the image."


def run(gateway: Gateway, expect: int = 200, **body: Any) -> Any:
    return gateway.api("POST", "/api/suite/run", body, expect=expect)


def status(gateway: Gateway, model: str | None = None) -> Any:
    return gateway.api("GET", "/api/suite/status" + (f"?model={model}" if model else ""), expect=200)


def write_task(
    home: Path, task_id: str, data: dict[str, Any] | str, fixtures: dict[str, str] | None = None
) -> Path:
    folder = home / "suite" / "tasks" / task_id
    (folder / "fixtures").mkdir(parents=True, exist_ok=True)
    for path, text in (fixtures or {}).items():
        (folder / "fixtures" / path).write_text(text)
    (folder / "task.json").write_text(data if isinstance(data, str) else json.dumps(data))
    return folder


# ---- tasks -------------------------------------------------------------------------------


def test_a_fresh_gateway_lists_the_starter_pack(gateway: Gateway) -> None:
    found = gateway.api("GET", "/api/suite/tasks", expect=200)
    assert found["problems"] == []
    shapes = [t["shape"] for t in found["tasks"]]
    assert shapes.count("claim") >= 12 and shapes.count("bug") >= 6 and shapes.count("control") >= 6
    assert all(t["origin"] == "starter" and not t["draft"] for t in found["tasks"])
    claim = next(t for t in found["tasks"] if t["id"] == TRUE_CLAIM)
    assert (claim["attach"], claim["must_find"], claim["score_in"]) == (
        ["src/panelgate/core/sizing.py"], ["VERDICT: TRUE"], "first_line"
    )  # fmt: skip
    only_bugs = gateway.api("GET", "/api/suite/tasks?shape=bug", expect=200)["tasks"]
    assert {t["shape"] for t in only_bugs} == {"bug"}


def test_a_bad_task_folder_is_reported_beside_the_tasks_that_load(gateway: Gateway) -> None:
    write_task(gateway.home, "broken", {"id": "broken", "title": "t", "shape": "riddle", "prompt": "p"})
    write_task(gateway.home, "half-written", '{"id": ')
    mine = {
        "id": TRUE_CLAIM,
        "title": "My version",
        "shape": "claim",
        "prompt": "Is it?",
        "must_find": ["yes"],
    }
    write_task(gateway.home, TRUE_CLAIM, mine)
    found = gateway.api("GET", "/api/suite/tasks", expect=200)
    problems = {Path(p["path"]).parent.name: (p["field"], p["message"]) for p in found["problems"]}
    assert problems["broken"][0] == "shape" and "`riddle` is not a shape" in problems["broken"][1]
    assert problems["half-written"][0] is None and "is not valid JSON" in problems["half-written"][1]
    replaced = next(t for t in found["tasks"] if t["id"] == TRUE_CLAIM)
    assert (replaced["title"], replaced["origin"]) == ("My version", "data")
    assert len(found["tasks"]) >= 26, "the rest of the starter pack still loads"


# ---- runs --------------------------------------------------------------------------------


def test_a_run_sends_the_prompt_with_its_file_and_keeps_a_scored_answer(
    bench: Gateway, upstream: FakeUpstream
) -> None:
    upstream.behave("m1", answer="VERDICT: TRUE" + REASONS)
    found = run(bench, models=["m1"], tasks=[TRUE_CLAIM])
    (answer,) = found["answers"]
    assert (answer["model"], answer["task"], answer["status"], answer["right"]) == (
        "m1",
        TRUE_CLAIM,
        "ok",
        True,
    )
    (request,) = upstream.requests_for("m1")
    (message,) = request.body["messages"]
    fixture = Path("src/panelgate/suite/starter") / TRUE_CLAIM / "fixtures/src/panelgate/core/sizing.py"
    assert "Claim: `estimate_tokens` counts every `image_url` part" in message["content"]
    assert (
        f"===== FILE: src/panelgate/core/sizing.py =====\n{fixture.read_text().rstrip()}\n"
        in message["content"]
    )
    (row,) = [r for r in bench.api("GET", "/api/usage")["recent"] if r["purpose"] == "suite"]
    assert (row["alias"], row["caller"], row["status"]) == ("m1", "local", "ok")
    (standing,) = status(bench)["models"]
    (claims,) = standing["shapes"]
    assert (standing["alias"], standing["on_record"], claims["shape"], claims["right"]) == (
        "m1",
        1,
        "claim",
        1,
    )
    (kept,) = bench.api("GET", "/api/suite/answers?model=m1", expect=200)["answers"]
    assert kept["answer"] == "VERDICT: TRUE" + REASONS


def test_a_false_claim_answered_true_and_a_bug_called_correct_are_on_the_record(
    bench: Gateway, upstream: FakeUpstream
) -> None:
    upstream.behave("m1", answer="VERDICT: TRUE" + REASONS)
    upstream.behave("m2", answer="NO FAULT\nThe comparison is right: a window equal to the estimate fits.")
    run(bench, models=["m1"], tasks=[FALSE_CLAIM])
    run(bench, models=["m2"], tasks=[BUG])
    standings = {m["alias"]: m for m in status(bench)["models"]}
    assert (standings["m1"]["false_claims_believed"], standings["m1"]["confidently_wrong"]) == (1, 1)
    assert (standings["m2"]["inventions"], standings["m2"]["finding_recall"]) == (1, 0.0)
    assert standings["m2"]["confidently_wrong"] == 0, "a missed bug is wrong, not a false alarm"
    assert [m["alias"] for m in status(bench, model="m2")["models"]] == ["m2"]


def test_false_claims_people_verified_in_panel_answers_count_as_confidently_wrong(
    bench: Gateway, upstream: FakeUpstream
) -> None:
    upstream.behave("m1", answer="VERDICT: TRUE" + REASONS)
    run(bench, models=["m1"], tasks=[FALSE_CLAIM])
    seats = {s["alias"]: s["call"] for s in ask(bench, hello()).json()["bench"]["seats"]}
    judge = {"useful": False, "false": ["the loop skips the last item", "it sorts in place"]}
    bench.api("POST", "/bench/verdict", {"call": seats["m1"], **judge}, expect=200)
    bench.api(
        "POST", "/bench/verdict", {"call": seats["m2"], "useful": True, "real": ["it is linear"]}, expect=200
    )
    standings = {m["alias"]: m for m in status(bench)["models"]}
    m1 = standings["m1"]
    assert (m1["false_claims_believed"], m1["false_claims_verified"], m1["confidently_wrong"]) == (1, 2, 3)
    assert "m2" not in standings, "a verified real claim is not a mistake, and m2 has no suite answer"
    bench.api("POST", "/bench/verdict", {"call": seats["m2"], "useful": False, "false": ["x"]}, expect=200)
    (m2,) = status(bench, model="m2")["models"]
    assert (m2["on_record"], m2["false_claims_verified"], m2["confidently_wrong"]) == (0, 1, 1)
    bench.api("POST", "/bench/verdict", {"call": seats["m1"], "useful": True, "false": []}, expect=200)
    (m1,) = status(bench, model="m1")["models"]
    assert (m1["false_claims_verified"], m1["confidently_wrong"]) == (0, 1), "a later verdict supersedes"


def test_a_dry_run_shows_every_prompt_and_sends_nothing(bench: Gateway, upstream: FakeUpstream) -> None:
    upstream.serve("hoc")
    bench.add_model("hoc", ad_hoc=True)
    found = run(bench, dry_run=True)
    planned = {(p["model"], p["task"]) for p in found["planned"]}
    tasks = [t["id"] for t in bench.api("GET", "/api/suite/tasks")["tasks"]]
    assert planned == {(m, t) for m in ("m1", "m2", "m3") for t in tasks}, "ad hoc models only when named"
    assert found["answers"] == [] and "nothing was sent" in found["summary"]
    first = next(p for p in found["planned"] if p["task"] == TRUE_CLAIM)
    assert "===== FILE: src/panelgate/core/sizing.py =====" in first["messages"][0]["content"]
    assert upstream.requests == []
    assert status(bench)["models"] == []


def test_a_streamed_run_sends_an_event_as_each_answer_is_kept(bench: Gateway, upstream: FakeUpstream) -> None:
    for alias in ("m1", "m2"):
        upstream.behave(alias, answer="VERDICT: FALSE" + REASONS)
    body = {"models": ["m1", "m2"], "tasks": [TRUE_CLAIM, FALSE_CLAIM], "stream": True}
    reply = httpx.post(f"{bench.url}/api/suite/run", json=body, timeout=60)
    assert reply.status_code == 200 and reply.headers["content-type"].startswith("text/event-stream")
    events = sse_events(reply.text)
    assert events[0] == {"plan": {"asks": 4, "skipped": 0, "models": {"m1": 2, "m2": 2}}}
    answers = [e["answer"] for e in events[1:-2] if isinstance(e, dict)]
    assert sorted((a["model"], a["task"], a["right"]) for a in answers) == [
        (m, t, t == FALSE_CLAIM) for m in ("m1", "m2") for t in (FALSE_CLAIM, TRUE_CLAIM)
    ]
    assert "asked 4 task(s): 4 answered" in events[-2]["done"]["summary"] and events[-1] == "[DONE]"


def test_a_rate_limited_model_is_left_alone_for_the_rest_of_the_run(
    bench: Gateway, upstream: FakeUpstream
) -> None:
    upstream.behave("m1", status=429, retry_after=0)
    found = run(bench, models=["m1"], tasks=[TRUE_CLAIM, FALSE_CLAIM, BUG])
    (answer,) = found["answers"]
    assert (answer["status"], answer["error_kind"], answer["counted"]) == ("error", "capacity", False)
    assert [(s["task"], s["why"]) for s in found["skipped"]] == [
        (FALSE_CLAIM, "not asked this run: the model hit a rate limit"),
        (BUG, "not asked this run: the model hit a rate limit"),
    ]
    (shape,) = status(bench)["models"][0]["shapes"]
    assert (shape["asked"], shape["answered"], shape["not_answered"]) == (1, 0, 1)


def test_a_drafted_task_from_the_data_folder_runs_when_named(bench: Gateway, upstream: FakeUpstream) -> None:
    task = {
        "id": "mine", "title": "Mine", "shape": "review", "prompt": "Review the attached file.",
        "attach": ["notes.md"], "must_find": ["off by one"], "must_not_claim": ["deadlock"], "draft": True,
    }  # fmt: skip
    write_task(bench.home, "mine", task, {"notes.md": "for i in range(len(xs) + 1): ..."})
    upstream.behave("m1", answer="There is an off by one in the loop; there is no deadlock anywhere here.")
    assert run(bench, dry_run=True, models=["m1"])["planned"][0]["task"] != "mine", "drafts wait"
    (answer,) = run(bench, models=["m1"], tasks=["mine"])["answers"]
    assert (answer["found"], answer["invented"], answer["right"]) == (["off by one"], [], True)
    assert (
        "===== FILE: notes.md =====\nfor i in range"
        in upstream.requests_for("m1")[0].body["messages"][0]["content"]
    )


def test_an_answer_to_an_earlier_version_of_a_task_leaves_the_standing(
    bench: Gateway, upstream: FakeUpstream
) -> None:
    task = {"id": "mine", "title": "Mine", "shape": "review", "prompt": "Review it.", "must_find": ["lock"]}
    write_task(bench.home, "mine", task)
    upstream.behave("m1", answer="The lock is taken twice, which is the whole problem with this function.")
    run(bench, models=["m1"], tasks=["mine"])
    assert status(bench)["models"][0]["findings"] == 1
    write_task(bench.home, "mine", {**task, "prompt": "Review it again."})
    assert status(bench)["models"] == []
    assert bench.api("GET", "/api/suite/answers", expect=200)["answers"] == []


# ---- refusals ------------------------------------------------------------------------------


def refused(gateway: Gateway, body: Any, status_code: int) -> dict[str, Any]:
    reply = httpx.post(f"{gateway.url}/api/suite/run", json=body, timeout=30)
    assert reply.status_code == status_code, reply.text
    error: dict[str, Any] = reply.json()["error"]
    return error


def test_bad_runs_are_refused_in_the_admin_shape_naming_the_field(
    bench: Gateway, upstream: FakeUpstream
) -> None:
    upstream.serve("pic")
    bench.add_model("pic", role="image")
    bench.api("POST", "/api/models/m3/retire", {"why": "testing"}, expect=200)
    assert refused(bench, {"models": ["nobody"]}, 404)["field"] == "models"
    assert refused(bench, {"tasks": ["no-such-task"]}, 404)["field"] == "tasks"
    assert "retired" in refused(bench, {"models": ["m3"]}, 409)["message"]
    assert "makes images" in refused(bench, {"models": ["pic"]}, 409)["message"]
    assert refused(bench, {"models": "m1"}, 400)["field"] == "models"
    assert refused(bench, {"models": []}, 400)["field"] == "models"
    assert refused(bench, {"tasks": ["a\u0000b"]}, 400)["field"] == "tasks"
    assert refused(bench, {"dry_run": "yes"}, 400)["field"] == "dry_run"
    assert refused(bench, {"model": ["m1"]}, 400)["field"] == "model"
    assert bench.api("GET", "/api/suite/status?model=nobody")["error"]["field"] == "model"
    assert upstream.requests == []


def test_a_run_with_no_model_to_ask_says_so(gateway: Gateway) -> None:
    assert "no model to ask" in refused(gateway, {}, 400)["message"]


# ---- the scheduled pass ---------------------------------------------------------------------


def test_a_suite_pass_asks_a_few_gaps_across_models_then_refills_the_oldest(
    bench: Gateway, upstream: FakeUpstream
) -> None:
    upstream.serve("hoc")
    bench.add_model("hoc", ad_hoc=True)
    first = bench.api("POST", "/api/scheduler/jobs/suite-pass/run", expect=200)["run"]
    assert (first["outcome"], first["detail"]) == ("ok", "asked 6 task(s): 0 answered, 6 not")
    asked = [(r.model, r.body["messages"][0]["content"]) for r in upstream.requests]
    assert sorted(model for model, _ in asked) == ["m1", "m1", "m2", "m2", "m3", "m3"]
    assert len(set(asked)) == 6
    usage = bench.api("GET", "/api/usage")["recent"]
    assert {(row["purpose"], row["caller"]) for row in usage} == {("suite", "scheduler")}
    on_record = {(a["model"], a["task"]) for a in bench.api("GET", "/api/suite/answers")["answers"]}
    assert len(on_record) == 6
    bench.api("POST", "/api/scheduler/jobs/suite-pass/run", expect=200)
    again = {(a["model"], a["task"]) for a in bench.api("GET", "/api/suite/answers")["answers"]}
    assert len(again) == 12 and on_record < again, "the next pass fills other gaps"
