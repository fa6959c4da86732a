"""Reading a member's turn from its chunks: answer, reasoning, and which call each delta belongs to."""

from __future__ import annotations

from typing import Any

from panelgate.core.turn import ReasoningPiece, TextPiece, ToolCallArguments, ToolCallStarted, TurnReader


def chunk(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
    return {"model": "m1", "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}


def call(index: int | None = None, id: str | None = None, name: str | None = None, args: str | None = None):
    part: dict[str, Any] = {"function": {}}
    if index is not None:
        part["index"] = index
    if id is not None:
        part["id"] = id
    if name is not None:
        part["function"]["name"] = name
    if args is not None:
        part["function"]["arguments"] = args
    return chunk({"tool_calls": [part]})


def test_reasoning_is_not_yet_an_answer_but_text_is():
    reader = TurnReader()
    assert reader.feed(chunk({"reasoning_content": "hmm"})) == [ReasoningPiece("hmm")]
    assert not reader.has_answer
    assert reader.feed(chunk({"content": "hi"})) == [TextPiece("hi")]
    assert reader.has_answer and reader.text == "hi" and reader.reasoning == "hmm"


def test_argument_deltas_follow_their_call_by_index():
    reader = TurnReader()
    pieces = [
        *reader.feed(call(0, "a", "look", "")),
        *reader.feed(call(1, "b", "read", '{"p":')),
        *reader.feed(call(0, args='{"q": 1}')),
        *reader.feed(call(1, args='"x"}')),
    ]
    assert pieces == [
        ToolCallStarted(0, "a", "look"),
        ToolCallStarted(1, "b", "read"),
        ToolCallArguments(1, '{"p":'),
        ToolCallArguments(0, '{"q": 1}'),
        ToolCallArguments(1, '"x"}'),
    ]
    assert [(c.id, c.name, c.arguments) for c in reader.tool_calls] == [
        ("a", "look", '{"q": 1}'),
        ("b", "read", '{"p":"x"}'),
    ]


def test_an_id_after_the_first_piece_attaches_and_a_new_id_on_a_reused_index_is_a_new_call():
    reader = TurnReader(call_id_prefix="call_r1")
    reader.feed(call(0, name="look", args="{}"))
    reader.feed(call(0, id="late"))
    reader.feed(call(0, id="other", name="read", args="{}"))
    assert [(c.id, c.name) for c in reader.tool_calls] == [("call_r1_0", "look"), ("other", "read")]
    assert "late" in reader.tool_calls[0].upstream_ids


def test_deltas_without_id_or_index_continue_the_last_call_and_arguments_wait_for_the_name():
    reader = TurnReader()
    first = reader.feed(call(args='{"a"'))
    rest = reader.feed(call(name="look")) + reader.feed(call(args=": 1}"))
    assert first == []
    assert rest == [
        ToolCallStarted(0, "call_0", "look"),
        ToolCallArguments(0, '{"a"'),
        ToolCallArguments(0, ": 1}"),
    ]


def test_finish_and_usage_are_read_from_any_chunk():
    reader = TurnReader()
    reader.feed(chunk({"content": "x"}, finish="length"))
    reader.feed({"choices": [], "usage": {"prompt_tokens": 9, "completion_tokens": 3,
                                          "completion_tokens_details": {"reasoning_tokens": 2}}})  # fmt: skip
    assert reader.finish_reason == "length"
    assert (reader.usage.tokens_in, reader.usage.tokens_out, reader.usage.tokens_reasoning) == (9, 3, 2)
