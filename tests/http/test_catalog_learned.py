"""Learned context windows: an upstream's refusal teaches a smaller window, only ever smaller, and seating
refuses a prompt it cannot fit before anything is sent; the person's override still wins."""

from __future__ import annotations

from tests.catalog.loopback import facts
from tests.http.helpers import ask, hello
from tests.support.gateway import Gateway
from tests.support.upstream import FakeUpstream

REFUSAL = "This model's maximum context length is {} tokens. However, your messages resulted in 90000 tokens."


def refuse_with_window(upstream: FakeUpstream, window: int) -> None:
    upstream.behave("m1", status=400, error_message=REFUSAL.format(window))


def window(bench: Gateway) -> dict:
    return facts(bench, "m1")["facts"]["context_window"]


def big_prompt(tokens: int) -> dict:
    return {"model": "bench/core", "messages": [{"role": "user", "content": "word " * (tokens * 40 // 55)}]}


def test_a_refusal_naming_the_window_is_learned_with_its_words(
    bench: Gateway, upstream: FakeUpstream
) -> None:
    refuse_with_window(upstream, 8192)
    seat = {s["alias"]: s for s in ask(bench, hello()).json()["bench"]["seats"]}["m1"]
    assert seat["status"] == "error"
    learned = window(bench)
    assert (learned["value"], learned["source"]) == (8192, "learned")
    (said,) = learned["known"]
    assert "maximum context length is 8192 tokens" in said["evidence"] and said["at"]


def test_learned_windows_only_ever_go_down(bench: Gateway, upstream: FakeUpstream) -> None:
    for stated, kept in ((8192, 8192), (16384, 8192), (4096, 4096), (8192, 4096)):
        refuse_with_window(upstream, stated)
        ask(bench, hello())
        assert window(bench)["value"] == kept, f"after a refusal stating {stated}"


def test_seating_refuses_a_prompt_larger_than_a_learned_window_without_sending_it(
    bench: Gateway, upstream: FakeUpstream
) -> None:
    refuse_with_window(upstream, 4096)
    ask(bench, hello())
    # The lesson is written beside the reply, not before it: a person sees it in the facts first.
    assert window(bench)["value"] == 4096
    upstream.reset()
    refused = ask(bench, big_prompt(6000))
    assert refused.status_code == 413
    assert "`m1` (4,096)" in refused.json()["error"]["message"]
    assert upstream.requests == [], "nothing was sent to any member"
    assert ask(bench, hello()).status_code == 200, "a prompt that fits is still answered"


def test_the_persons_override_wins_over_a_learned_window(bench: Gateway, upstream: FakeUpstream) -> None:
    refuse_with_window(upstream, 4096)
    ask(bench, hello())
    upstream.reset()
    bench.api("PUT", "/api/models/m1/facts", {"context_window": 200_000}, expect=200)
    shown = window(bench)
    assert (shown["value"], shown["source"]) == (200_000, "override")
    assert (shown["overridden"]["source"], shown["overridden"]["value"]) == ("learned", 4096)
    assert ask(bench, big_prompt(6000)).status_code == 200
    assert len(upstream.requests_for("m1")) == 1


def test_a_refusal_of_another_kind_teaches_nothing(bench: Gateway, upstream: FakeUpstream) -> None:
    upstream.behave("m1", status=400, error_message="temperature must be between 0 and 2")
    ask(bench, hello())
    assert window(bench) == {
        "name": "context_window",
        "value": None,
        "source": None,
        "overridden": None,
        "known": [],
    }
