"""Route mode over OpenAI legacy completions, with the official `openai` SDK as the client."""

from __future__ import annotations

from collections.abc import Iterator

import openai
import pytest

from tests.http.helpers import sdk
from tests.http.route_helpers import arrange_agents, rate_limit_every_member
from tests.support.gateway import Gateway
from tests.support.upstream import FakeUpstream


@pytest.fixture
def agents(gateway: Gateway, upstream: FakeUpstream) -> Gateway:
    return arrange_agents(gateway, upstream)


@pytest.fixture
def client(agents: Gateway) -> Iterator[openai.OpenAI]:
    with sdk(agents) as official:
        yield official


def test_the_members_text_is_relayed_as_one_completion(client: openai.OpenAI, upstream: FakeUpstream):
    upstream.behave("m1", answer="roses are red", usage=(12, 3))
    completion = client.completions.create(model="bench/agents", prompt="write a poem", max_tokens=50)
    [choice] = completion.choices
    assert completion.object == "text_completion" and completion.model == "bench/agents"
    assert (choice.text, choice.finish_reason) == ("roses are red", "stop")
    assert completion.usage is not None
    assert (completion.usage.prompt_tokens, completion.usage.completion_tokens) == (12, 3)
    assert completion.model_extra["bench"]["alias"] == "m1"
    sent = upstream.requests_for("m1")[0].body
    assert sent["messages"] == [{"role": "user", "content": "write a poem"}] and sent["max_tokens"] == 50


def test_the_members_text_is_relayed_as_it_streams(client: openai.OpenAI, upstream: FakeUpstream):
    upstream.behave("m1", answer="roses are red, violets are blue", chunks=4)
    chunks = list(client.completions.create(model="bench/agents", prompt="write a poem", stream=True))
    pieces = [c.choices[0].text for c in chunks if c.choices and c.choices[0].text]
    assert len(pieces) == 4 and "".join(pieces) == "roses are red, violets are blue"
    assert chunks[-1].choices[0].finish_reason == "stop"
    assert chunks[-1].model_extra["bench"]["alias"] == "m1"
    assert upstream.requests_for("m1")[0].body["stream"] is True


@pytest.mark.parametrize("stream", [False, True])
def test_every_member_rate_limited_raises_the_sdks_rate_limit_error(
    client: openai.OpenAI, upstream: FakeUpstream, stream: bool
):
    rate_limit_every_member(upstream)
    with pytest.raises(openai.RateLimitError) as caught:
        client.completions.create(model="bench/agents", prompt="write a poem", stream=stream)
    assert caught.value.status_code == 429
    assert "`m1`" in caught.value.message and "`m3`" in caught.value.message
