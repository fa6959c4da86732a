"""OpenAI chat completions in route mode on its own: what a request passes on as sent, what it refuses."""

from __future__ import annotations

from typing import Any

import pytest

from panelgate.core.errors import BadRequest
from panelgate.formats.openai_chat.route import OpenAIChatRoute

ROUTE = OpenAIChatRoute()


def _decode(*messages: dict[str, Any]) -> Any:
    return ROUTE.decode_route({"model": "bench/core:route", "messages": list(messages)}, caller="local")


def test_messages_pass_on_as_sent():
    sent = [
        {"role": "user", "content": [{"type": "text", "text": "hi"}, {"type": "input_audio"}]},
        {"role": "assistant", "content": None, "tool_calls": [{"id": "c1", "type": "function"}]},
    ]
    assert _decode(*sent).body["messages"] == sent


@pytest.mark.parametrize(
    "content",
    [[{"type": "text", "text": {}}], [{"type": "text"}], ["hi"], {"text": "hi"}, 3],
    ids=["text-object", "no-text", "bare-string-part", "object", "number"],
)
def test_content_the_gateway_cannot_read_is_refused_naming_the_messages(content: object):
    """The gateway reads the text itself (a conversation's key and size): unreadable text was a 500."""
    with pytest.raises(BadRequest, match=r"messages\[0\]") as caught:
        _decode({"role": "user", "content": content})
    assert caught.value.param == "messages"
