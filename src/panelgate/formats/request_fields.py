"""The request fields every inbound API shares, read the same way everywhere.

Each API spells messages its own way, but the model id, the stream flag, the
`with` nominees and the `bench` reply choice and deadline mean the same in all of them;
reading them here keeps one refusal message per mistake, whichever API the
caller spoke. A format's decoded request, a panel's (`panel_request`) or a
route turn's (`route_request`), is put together here from what it read, so
the shared fields are read alike in every API.
"""

from __future__ import annotations

import math
from collections.abc import Collection, Sequence
from dataclasses import replace
from typing import Any

from panelgate.core.errors import BadRequest
from panelgate.core.naming import parse_model_id
from panelgate.core.route import RouteRequest
from panelgate.core.types import REPLY_MODES, ChatMessage, PanelRequest, ReplyMode


def read_model(body: dict[str, Any]) -> str:
    """The `model` as sent ("" when absent: the engine then lists the collections)."""
    model = body.get("model")
    if model is not None and not isinstance(model, str):
        raise BadRequest('`model` must be a string such as "bench/<collection>"', param="model")
    return model or ""


def read_stream(body: dict[str, Any], *, default: bool = False) -> bool:
    stream = body.get("stream")
    if stream is None:
        return default
    if not isinstance(stream, bool):
        raise BadRequest("`stream` must be true or false", param="stream")
    return stream


def read_bench_field(body: dict[str, Any]) -> ReplyMode | None:
    """`"bench": {"reply": ...}`, the body's way to pick a reply mode."""
    bench = body.get("bench")
    if bench is None:
        return None
    if not isinstance(bench, dict):
        raise BadRequest('`bench` must be an object such as {"reply": "merged"}', param="bench")
    reply = bench.get("reply")
    if reply is None:
        return None
    if reply not in REPLY_MODES:
        raise BadRequest(f"bench.reply must be one of all, merged, route; got {reply!r}", param="bench.reply")
    mode: ReplyMode = reply
    return mode


def read_deadline(body: dict[str, Any]) -> float | None:
    """`"bench": {"deadline_s": N}`: seconds the caller will wait for seats (None: every seat)."""
    bench = body.get("bench")
    seconds = bench.get("deadline_s") if isinstance(bench, dict) else None
    if seconds is None:
        return None
    if isinstance(seconds, bool) or not isinstance(seconds, int | float) or not 0 < seconds < math.inf:
        raise BadRequest(
            f"bench.deadline_s must be a number of seconds above 0, such as 30; got {_shown(seconds)}",
            param="bench.deadline_s",
        )
    return float(seconds)


def with_header_deadline(request: PanelRequest, header: str | None) -> PanelRequest:
    """The request with `X-Bench-Deadline` applied: the smaller of the header and `bench.deadline_s` wins.

    The header is for clients that cannot add a body field (an SDK, a chat UI behind a proxy).
    """
    if header is None:
        return request
    try:
        seconds = float(header)
    except ValueError:
        seconds = math.nan
    if not 0 < seconds < math.inf:
        raise BadRequest(
            "the X-Bench-Deadline header must be a number of seconds above 0, such as 30; "
            f"got {_shown(header)}",
            param="X-Bench-Deadline",
        )
    asked = request.deadline_s
    return replace(request, deadline_s=seconds if asked is None else min(asked, seconds))


def _shown(value: object) -> str:
    """A caller's bad value in a refusal, cut short: an error never echoes a whole body."""
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def read_nominees(body: dict[str, Any]) -> tuple[str, ...]:
    """`"with": [alias, ...]`: models the caller wants on the explorer seats."""
    nominees = body.get("with")
    if nominees is None:
        return ()
    if not isinstance(nominees, list) or not all(isinstance(a, str) and a.strip() for a in nominees):
        raise BadRequest('`with` must be a list of model aliases, e.g. ["m3"]', param="with")
    return tuple(a.strip() for a in nominees)


def count_tools(body: dict[str, Any]) -> int:
    """How many tool definitions `tools` holds (0 when it is absent or null)."""
    tools = body.get("tools")
    if tools is None:
        return 0
    if not isinstance(tools, list) or not all(isinstance(t, dict) for t in tools):
        raise BadRequest("`tools` must be a list of tool definitions", param="tools")
    return len(tools)


def read_own_tools(body: dict[str, Any], *, own_types: Collection[str | None], refusal: str) -> bool:
    """True for a non-empty `tools` list of the caller's own tools.

    A tool whose `type` is not one of `own_types` runs at the vendor, which
    neither a panel nor a routed member of another vendor can offer: refused,
    with `refusal` saying what to do.
    """
    if not count_tools(body):
        return False
    for number, tool in enumerate(body["tools"]):
        kind = tool.get("type")
        if kind is not None and not isinstance(kind, str):
            raise BadRequest(f'tools[{number}].type must be a string such as "function"', param="tools")
        if kind not in own_types:
            raise BadRequest(f"tool type `{kind}` runs at the vendor; {refusal}", param="tools")
    return True


def has_tool_history(messages: Sequence[ChatMessage]) -> bool:
    """Tool calls or tool results in the conversation (route mode only)."""
    return any(m.get("role") == "tool" or m.get("tool_calls") for m in messages)


def panel_request(
    body: dict[str, Any],
    *,
    model: str,
    messages: list[ChatMessage],
    stream: bool,
    options: dict[str, Any],
    caller: str,
    tools_offered: int = 0,
) -> PanelRequest:
    """The canonical request from what a format read, plus the fields all APIs share.

    `tools_offered` counts the caller's own tools (vendor-hosted ones are refused by the format);
    whether the panel leaves them out or refuses is the collection's call, made when it is seated.
    """
    collection, suffix = parse_model_id(model)
    return PanelRequest(
        model=model,
        collection=collection,
        messages=messages,
        stream=stream,
        reply=read_bench_field(body),
        suffix_reply=suffix,
        nominees=read_nominees(body),
        options=options,
        caller=caller,
        tools_offered=tools_offered,
        tool_history=has_tool_history(messages),
        deadline_s=read_deadline(body),
    )


def route_request(
    body: dict[str, Any],
    *,
    model: str,
    chat_body: dict[str, Any],
    stream: bool,
    caller: str,
    read_as: str | None = None,
) -> RouteRequest:
    """The route turn from what a format read, plus the fields all APIs share.

    The collection and reply suffix are read from `read_as` when the API names
    models its own way (Ollama's `:latest`), else from `model`. Replies name the
    collection as `bench/<name>`, as a panel's `bench.collection` does, not the
    suffix the caller picked the reply mode with (`bench/<name>:route`).
    """
    collection, suffix = parse_model_id(model if read_as is None else read_as)
    return RouteRequest(
        model=f"bench/{collection}" if collection else model,
        collection=collection,
        body=chat_body,
        stream=stream,
        caller=caller,
        reply=read_bench_field(body),
        suffix_reply=suffix,
    )
