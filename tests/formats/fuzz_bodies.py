"""Request bodies for fuzzing the inbound decoders: any JSON, and valid requests bent out of shape.

Any JSON value is the property the gateway promises, but a decoder refuses
most random objects at its first field; the bodies worth most start from a
valid request of each API (text, images, tools, tool results, system text)
and then have a few subtrees replaced, dropped or added, so the fuzzing
reaches the checks deep inside a message.

Values are what the body reader hands a decoder: `as_read` sends a body
through JSON text and `orjson`, as `http/body.py` does, so integers too big
for 64 bits arrive as floats there, and here.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Iterator, Sequence
from typing import Any

import orjson
from hypothesis import strategies as st

PNG = "iVBORw0KGgo="
"""Base64 of the PNG signature: the smallest bytes read as a PNG image."""

OPENAI_CHAT = (
    {"model": "bench/core:merged", "messages": [{"role": "user", "content": "hi"}]},
    {
        "model": "bench/core",
        "messages": [
            {"role": "developer", "content": "Be brief."},
            {
                "role": "user",
                "content": [
                    {"type": "text", "text": "What is this?"},
                    {"type": "image_url", "image_url": {"url": "https://example.com/cat.png"}},
                ],
            },
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    {"id": "call_1", "type": "function", "function": {"name": "look", "arguments": "{}"}}
                ],
            },
            {"role": "tool", "tool_call_id": "call_1", "content": "a cat"},
        ],
        "tools": [{"type": "function", "function": {"name": "look", "parameters": {"type": "object"}}}],
        "tool_choice": "auto",
        "response_format": {"type": "json_object"},
        "stream": False,
        "temperature": 0.2,
        "max_tokens": 100,
        "n": 1,
        "bench": {"reply": "all"},
        "with": ["m3"],
    },
)
RESPONSES = (
    {"model": "bench/core", "input": "hi"},
    {
        "model": "bench/core",
        "instructions": "Be brief.",
        "input": [
            {
                "type": "message",
                "role": "user",
                "content": [
                    {"type": "input_text", "text": "Look"},
                    {"type": "input_image", "image_url": f"data:image/png;base64,{PNG}"},
                ],
            },
            {"type": "reasoning", "summary": []},
            {"type": "function_call", "call_id": "c1", "name": "look", "arguments": "{}"},
            {
                "type": "function_call_output",
                "call_id": "c1",
                "output": [
                    {"type": "input_text", "text": "ok"},
                    {"type": "input_image", "image_url": "https://example.com/b.png"},
                ],
            },
            {"type": "custom_tool_call", "call_id": "c2", "name": "patch", "input": "diff"},
            {"type": "custom_tool_call_output", "call_id": "c2", "output": "applied"},
        ],
        "tools": [
            {"type": "function", "name": "look", "parameters": {"type": "object"}, "strict": True},
            {
                "type": "custom",
                "name": "patch",
                "format": {"type": "grammar", "syntax": "lark", "definition": "start: /.+/"},
            },
            {"type": "namespace", "name": "fs", "tools": [{"type": "function", "name": "read"}]},
        ],
        "tool_choice": {"type": "function", "name": "look"},
        "parallel_tool_calls": True,
        "text": {"format": {"type": "json_schema", "name": "reply", "schema": {"type": "object"}}},
        "reasoning": {"effort": "low"},
        "max_output_tokens": 50,
        "stream": True,
    },
)
COMPLETIONS = (
    {"model": "bench/core", "prompt": "hi"},
    {
        "model": "bench/core:route",
        "prompt": ["Once upon a time"],
        "max_tokens": 5,
        "stop": ["\n"],
        "stream": False,
        "echo": False,
        "n": 1,
        "best_of": 1,
        "logprobs": None,
        "suffix": "",
        "logit_bias": {},
    },
)
ANTHROPIC = (
    {"model": "bench/core", "max_tokens": 10, "messages": [{"role": "user", "content": "hi"}]},
    {
        "model": "bench/core",
        "max_tokens": 100,
        "system": [{"type": "text", "text": "Be brief."}],
        "messages": [
            {
                "role": "user",
                "content": [
                    {"type": "text", "text": "Look"},
                    {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": PNG}},
                    {"type": "image", "source": {"type": "url", "url": "https://example.com/a.png"}},
                ],
            },
            {
                "role": "assistant",
                "content": [
                    {"type": "thinking", "thinking": "hm", "signature": "s"},
                    {"type": "redacted_thinking", "data": "x"},
                    {"type": "tool_use", "id": "tu1", "name": "look", "input": {"q": 1}},
                ],
            },
            {
                "role": "user",
                "content": [
                    {
                        "type": "tool_result",
                        "tool_use_id": "tu1",
                        "content": [
                            {"type": "text", "text": "a cat"},
                            {"type": "image", "source": {"type": "url", "url": "https://example.com/b.png"}},
                        ],
                        "is_error": True,
                    }
                ],
            },
        ],
        "tools": [{"name": "look", "description": "Look", "input_schema": {"type": "object"}}],
        "tool_choice": {"type": "tool", "name": "look", "disable_parallel_tool_use": True},
        "output_config": {"format": {"type": "json_schema", "schema": {"type": "object"}}},
        "stop_sequences": ["END"],
        "temperature": 0.5,
        "stream": False,
        "bench": {"reply": "route"},
    },
)
_GEMINI_TURNS = [
    {
        "role": "user",
        "parts": [
            {"text": "Look"},
            {"inlineData": {"mimeType": "image/png", "data": PNG}},
            {"file_data": {"file_uri": "https://example.com/a.png", "mime_type": "image/png"}},
        ],
    },
    {
        "role": "model",
        "parts": [
            {"text": "hm", "thought": True},
            {"functionCall": {"id": "c1", "name": "look", "args": {}}},
        ],
    },
    {"role": "user", "parts": [{"function_response": {"id": "c1", "name": "look", "response": {"r": 1}}}]},
]
GEMINI = (
    {"contents": [{"parts": [{"text": "hi"}]}]},
    {
        "contents": _GEMINI_TURNS,
        "systemInstruction": {"parts": [{"text": "Be brief."}]},
        "tools": [
            {
                "functionDeclarations": [
                    {
                        "name": "look",
                        "parameters": {"type": "OBJECT", "properties": {"q": {"type": "INTEGER"}}},
                    }
                ]
            }
        ],
        "toolConfig": {"functionCallingConfig": {"mode": "ANY", "allowedFunctionNames": ["look"]}},
        "generationConfig": {
            "temperature": 0.1,
            "maxOutputTokens": 100,
            "responseMimeType": "application/json",
            "responseSchema": {"type": "OBJECT", "nullable": True},
            "candidateCount": 1,
            "responseModalities": ["TEXT"],
        },
    },
)
GEMINI_COUNT = (
    {"contents": [{"parts": [{"text": "hi"}]}]},
    {"generateContentRequest": {"model": "models/bench/core", "contents": _GEMINI_TURNS}},
)
OLLAMA_CHAT = (
    {"model": "bench/core", "messages": [{"role": "user", "content": "hi"}]},
    {
        "model": "bench/core:latest",
        "messages": [
            {"role": "system", "content": "Be brief."},
            {"role": "user", "content": "Look", "images": [PNG]},
            {
                "role": "assistant",
                "content": "",
                "tool_calls": [{"id": "call_1", "function": {"name": "look", "arguments": {"q": 1}}}],
            },
            {"role": "tool", "content": "a cat", "tool_name": "look", "tool_call_id": "call_1"},
        ],
        "tools": [{"type": "function", "function": {"name": "look", "parameters": {"type": "object"}}}],
        "options": {"temperature": 0.2, "num_predict": -1, "seed": 1},
        "format": "json",
        "stream": False,
        "think": True,
    },
)
OLLAMA_GENERATE = (
    {"model": "bench/core", "prompt": "hi"},
    {
        "model": "bench/core:latest",
        "prompt": "Look",
        "system": "Be brief.",
        "images": [PNG],
        "options": {"num_predict": 10},
        "format": {"type": "object"},
        "stream": False,
        "raw": False,
        "context": [],
    },
)


def _leaves(value: object) -> Iterator[object]:
    """Every dict key and scalar inside `value`."""
    if isinstance(value, dict):
        for key, child in value.items():
            yield key
            yield from _leaves(child)
    elif isinstance(value, list | tuple):
        for child in value:
            yield from _leaves(child)
    else:
        yield value


_VALID = (OPENAI_CHAT, RESPONSES, COMPLETIONS, ANTHROPIC, GEMINI, GEMINI_COUNT, OLLAMA_CHAT, OLLAMA_GENERATE)
WORDS = sorted({leaf for leaf in _leaves(_VALID) if isinstance(leaf, str)})
"""Every field name and string value of the valid bodies: random values use them often enough
to get past a decoder's first checks."""

words = st.sampled_from(WORDS)
texts = words | st.text(max_size=8)
scalars = st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | texts
json_values = st.recursive(
    scalars,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(texts, inner, max_size=3),
    max_leaves=8,
)
"""Any JSON value (no NaN or infinity, which JSON cannot carry); integers of any size."""
json_objects = st.dictionaries(texts, json_values, max_size=5)


def as_read(value: Any) -> Any:
    """`value` as the body reader hands it on: parsed by orjson from its JSON text."""
    return orjson.loads(json.dumps(value))


Path = tuple[str | int, ...]


def _paths(value: object, path: Path = ()) -> Iterator[Path]:
    """Every place inside `value` a mutation can touch (the body itself excluded)."""
    children: Iterator[tuple[str | int, object]]
    if isinstance(value, dict):
        children = iter(value.items())
    elif isinstance(value, list):
        children = enumerate(value)
    else:
        return
    for key, child in children:
        yield (*path, key)
        yield from _paths(child, (*path, key))


def _holder(body: dict[str, Any], path: Path) -> Any:
    holder: Any = body
    for key in path:
        holder = holder[key]
    return holder


@st.composite
def mutated(draw: st.DrawFn, bodies: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """One of `bodies` with one to three subtrees replaced by any JSON, dropped, or a field added."""
    body: dict[str, Any] = copy.deepcopy(draw(st.sampled_from(bodies)))
    for _ in range(draw(st.integers(1, 3))):
        action = draw(st.sampled_from(("replace", "drop", "add")))
        if action == "add":
            objects = [(), *(p for p in _paths(body) if isinstance(_holder(body, p), dict))]
            holder = _holder(body, draw(st.sampled_from(objects)))
            holder[draw(words)] = draw(json_values)
            continue
        paths = list(_paths(body))
        if not paths:
            break
        *parent, last = draw(st.sampled_from(paths))
        holder = _holder(body, tuple(parent))
        if action == "drop":
            del holder[last]
        else:
            holder[last] = draw(json_values)
    return body
