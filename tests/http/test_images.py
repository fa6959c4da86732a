"""Images reach only seats that can see; vision specialists sit only for images."""

from __future__ import annotations

from tests.http.helpers import ask, hello
from tests.support.gateway import Gateway
from tests.support.upstream import FakeUpstream

PIXEL = (
    "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk"
    "+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="
)


def _with_image() -> dict:
    return {
        "model": "bench/core",
        "messages": [
            {
                "role": "user",
                "content": [
                    {"type": "text", "text": "what is in this picture?"},
                    {"type": "image_url", "image_url": {"url": PIXEL}},
                ],
            }
        ],
    }


def test_image_request_is_asked_only_of_seeing_members(bench: Gateway, upstream: FakeUpstream):
    bench.api("PATCH", "/api/models/m1", {"vision": True}, expect=200)
    bench.api("PATCH", "/api/models/m3", {"vision": False}, expect=200)
    panel = ask(bench, _with_image()).json()["bench"]
    assert [s["alias"] for s in panel["seats"]] == ["m1"]
    assert {(s["alias"], s["seat"]) for s in panel["skipped"]} == {("m2", "member"), ("m3", "member")}
    assert panel["shape"] == "vision"
    assert upstream.requests_for("m2") == [] and upstream.requests_for("m3") == []
    sent = upstream.requests_for("m1")[0].body["messages"][0]["content"]
    assert sent[1]["image_url"]["url"] == PIXEL


def test_image_bytes_are_never_recorded(bench: Gateway, upstream: FakeUpstream):
    bench.api("PATCH", "/api/models/m1", {"vision": True}, expect=200)
    panel = ask(bench, _with_image()).json()["bench"]
    recorded = bench.api("GET", f"/api/panels/{panel['panel']}", expect=200)
    assert "iVBOR" not in str(recorded) and "[image]" in recorded["panel"]["prompt_preview"]


def test_no_seat_that_can_see_is_400(bench: Gateway, upstream: FakeUpstream):
    response = ask(bench, _with_image())
    assert response.status_code == 400 and "see" in response.json()["error"]["message"]
    assert upstream.requests == []


def test_vision_specialist_member_sits_out_text_requests(bench: Gateway, upstream: FakeUpstream):
    bench.api("PATCH", "/api/models/m3", {"role": "vision", "vision": True}, expect=200)
    panel = ask(bench, hello()).json()["bench"]
    assert [s["alias"] for s in panel["seats"]] == ["m1", "m2"]
    assert panel["skipped"][0]["alias"] == "m3" and upstream.requests_for("m3") == []


def test_explorers_for_an_image_request_can_all_see(gateway: Gateway, upstream: FakeUpstream):
    gateway.add_endpoint("up", upstream.url)
    upstream.serve("org/eye", "org/blind", "other/seer")
    gateway.add_model("eye", "org/eye", vision=True)
    gateway.add_model("blind", "org/blind")
    gateway.add_model("seer", "other/seer", vision=True)
    gateway.save_collection("core", ["eye"])
    panel = ask(gateway, _with_image()).json()["bench"]
    assert {s["alias"] for s in panel["seats"]} == {"eye", "seer"}
    assert upstream.requests_for("org/blind") == []
