"""OpenAI Responses in route mode: an agent's `/v1/responses` turn, answered by one member.

Codex and other Responses clients send their whole tool loop as `input`
items, read with the panel adapter's own translation (`responses.read_input`:
`function_call` / `custom_tool_call` items → assistant `tool_calls`, their
outputs → `tool` messages, images in outputs → a user message after them,
reasoning items dropped). Route mode adds the tools themselves:

- `function` tools become chat function tools as they are;
- `custom` (freeform) tools become a function taking one string, `input`,
  whose description carries the tool's grammar when it has one (a member
  cannot be held to a grammar, only told it). A call the member makes to one
  comes back as a `custom_tool_call` item whose `input` is that string — or,
  when the arguments are not `{"input": "..."}`, the arguments as sent;
- `namespace` tools are flattened into their functions (names must then be
  unique), and the calls come back naming their namespace.

`tool_choice`, `parallel_tool_calls`, `max_output_tokens` (→ `max_tokens`),
`temperature`, `top_p`, `text.format` (→ `response_format`) and
`reasoning.effort` (→ `reasoning_effort`) pass on; bookkeeping fields
(`store`, `include`, `metadata`, `prompt_cache_key`, `truncation`, ...) are
ignored. Refused with a 400: hosted tools and their items, an
`allowed_tools` choice, and whatever refers to something stored
(`previous_response_id`, `conversation`, `background`, ...).

Replies are `response` objects: a message item for the text, then one item
per call. A turn cut by the length limit (or a content filter) is
`incomplete`, and its stream ends with `response.incomplete`, as OpenAI's
does. Reasoning is not relayed: a reasoning item handed back without
OpenAI's encrypted content could not continue anything. Streams carry
argument (and custom input) deltas as they arrive, in output items laid out
one at a time by `TurnBlocks`.
"""

from __future__ import annotations

import json
import time
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass, fields
from typing import Any

from panelgate.core.errors import BadRequest
from panelgate.core.route import RouteBroken, RouteChunk, RouteEnded, RouteEvent, RouteRequest, RouteStarted
from panelgate.core.types import Heartbeat
from panelgate.formats.request_fields import read_model, read_stream, route_request
from panelgate.formats.responses.panel import (
    HOSTED_ADVICE,
    NumberedEvents,
    error_object,
    has_own_tools,
    message_item,
    read_input,
    read_options,
    refuse_stored,
    response_object,
    text_part,
)
from panelgate.formats.route_blocks import BlockClosed, BlockDelta, BlockEvent, BlockOpened, TurnBlocks
from panelgate.formats.route_reply import finished_turn, turn_counts

_CHOICE_WORDS = {"auto", "none", "required"}
_INCOMPLETE = {"length": "max_output_tokens", "content_filter": "content_filter"}


@dataclass(frozen=True)
class ResponsesTurn(RouteRequest):
    """A route turn read from a Responses request, remembering how the caller declared its tools,
    so the member's calls come back as the items the caller expects."""

    custom_tools: frozenset[str] = frozenset()
    namespaces: tuple[tuple[str, str], ...] = ()
    """(tool name, namespace) for each tool declared inside a namespace."""

    @classmethod
    def of(cls, turn: RouteRequest, tools: _Tools) -> ResponsesTurn:
        """`turn`, remembering which of `tools` are custom and which sit in a namespace."""
        shared = {field.name: getattr(turn, field.name) for field in fields(RouteRequest)}
        return cls(
            **shared,
            custom_tools=frozenset(tools.custom),
            namespaces=tuple(sorted(tools.namespaces.items())),
        )


# ---- reading a request ---------------------------------------------------------------


def _function_tool(tool: dict[str, Any], where: str) -> dict[str, Any]:
    function: dict[str, Any] = {"name": tool["name"]}
    if isinstance(description := tool.get("description"), str) and description:
        function["description"] = description
    parameters = tool.get("parameters")
    if parameters is not None and not isinstance(parameters, dict):
        raise BadRequest(f"{where}.parameters must be a JSON schema object", param="tools")
    function["parameters"] = parameters or {"type": "object", "properties": {}}
    if isinstance(strict := tool.get("strict"), bool):
        function["strict"] = strict
    return {"type": "function", "function": function}


def _custom_tool(tool: dict[str, Any], where: str) -> dict[str, Any]:
    """A freeform tool as a function of one string, its grammar (if any) told in the description."""
    wanted = tool.get("format")
    said = "The tool's whole input, as text."
    if isinstance(wanted, dict) and wanted.get("type") == "grammar":
        syntax, definition = wanted.get("syntax"), wanted.get("definition")
        if syntax not in ("lark", "regex") or not isinstance(definition, str):
            raise BadRequest(f"{where}.format needs a lark or regex `definition`", param="tools")
        said = f"The tool's whole input, as text matching this {syntax} grammar:\n{definition}"
    elif wanted is not None and not (isinstance(wanted, dict) and wanted.get("type") == "text"):
        raise BadRequest(f"{where}.format must be of type text or grammar", param="tools")
    function: dict[str, Any] = {"name": tool["name"]}
    if isinstance(description := tool.get("description"), str) and description:
        function["description"] = description
    function["parameters"] = {
        "type": "object",
        "properties": {"input": {"type": "string", "description": said}},
        "required": ["input"],
        "additionalProperties": False,
    }
    return {"type": "function", "function": function}


class _Tools:
    """The caller's tools, flattened into chat function tools, with what a reply needs to know."""

    def __init__(self, body: dict[str, Any]) -> None:
        self.chat: list[dict[str, Any]] = []
        self.custom: set[str] = set()
        self.namespaces: dict[str, str] = {}
        if not has_own_tools(body):
            return
        for number, tool in enumerate(body["tools"]):
            if tool.get("type") == "namespace":
                self._namespace(tool, f"tools[{number}]")
            else:
                self._add(tool, f"tools[{number}]", None)

    @property
    def names(self) -> set[str]:
        return {tool["function"]["name"] for tool in self.chat}

    def _namespace(self, tool: dict[str, Any], where: str) -> None:
        space, members = tool.get("name"), tool.get("tools")
        if not isinstance(space, str) or not isinstance(members, list):
            raise BadRequest(f"{where} is a namespace without a `name` and `tools`", param="tools")
        for number, member in enumerate(members):
            if not isinstance(member, dict):
                raise BadRequest(f"{where}.tools[{number}] must be a tool definition", param="tools")
            self._add(member, f"{where}.tools[{number}]", space)

    def _add(self, tool: dict[str, Any], where: str, space: str | None) -> None:
        kind, name = tool.get("type"), tool.get("name")
        if not isinstance(name, str) or not name:
            raise BadRequest(f"{where} needs a `name`", param="tools")
        if name in self.names:
            raise BadRequest(
                f"two tools are named `{name}`; a member gets one flat list of tools, so names must differ",
                param="tools",
            )
        if kind == "function":
            self.chat.append(_function_tool(tool, where))
        elif kind == "custom":
            self.chat.append(_custom_tool(tool, where))
            self.custom.add(name)
        else:
            raise BadRequest(f"{where} has type {kind!r}; send function or custom tools", param="tools")
        if space is not None:
            self.namespaces[name] = space


def _tool_choice(body: dict[str, Any], names: set[str]) -> dict[str, Any]:
    """`tool_choice` and `parallel_tool_calls` under their chat names (none of either without tools)."""
    choice, fields = body.get("tool_choice"), {}
    if isinstance(body.get("parallel_tool_calls"), bool) and names:
        fields["parallel_tool_calls"] = body["parallel_tool_calls"]
    if choice is None:
        return fields
    if not isinstance(choice, dict) and not (isinstance(choice, str) and choice in _CHOICE_WORDS):
        raise BadRequest(
            "`tool_choice` must be auto, none, required or one of your tools", param="tool_choice"
        )
    if not names:
        if choice in ("auto", "none"):
            return fields
        raise BadRequest("`tool_choice` asks for a tool call but `tools` is empty", param="tool_choice")
    if isinstance(choice, str):
        return {**fields, "tool_choice": choice}
    kind, name = choice.get("type"), choice.get("name")
    if kind in ("function", "custom"):
        if not isinstance(name, str) or name not in names:
            raise BadRequest(
                f"`tool_choice` names tool {name!r}, which is not in `tools`", param="tool_choice"
            )
        return {**fields, "tool_choice": {"type": "function", "function": {"name": name}}}
    if kind == "allowed_tools":
        raise BadRequest(
            "`tool_choice` allowed_tools is not supported in route mode; send only those tools in `tools`",
            param="tool_choice",
        )
    raise BadRequest(
        f"`tool_choice` of type {kind!r} picks a hosted tool; {HOSTED_ADVICE}", param="tool_choice"
    )


# ---- writing a reply -----------------------------------------------------------------


def _custom_input(arguments: str) -> str:
    """A custom tool's input from the call's arguments: `{"input": "..."}`'s string, else them as sent."""
    try:
        parsed = json.loads(arguments, strict=False)
    except ValueError:
        return arguments
    if isinstance(parsed, dict) and isinstance(parsed.get("input"), str):
        text: str = parsed["input"]
        return text
    return arguments


class _CustomInput:
    """A custom tool's input as its arguments stream: the text of `{"input": "..."}` decoded as far as
    it has arrived. Arguments of another shape (or a bad escape) give nothing until the end, when
    `rest` gives what was not sent yet."""

    _OPENING = '{"input":"'
    _SPACED = (0, 1, 8, 9)
    """Where `_OPENING` may have whitespace: before and after `{`, around the colon."""

    def __init__(self) -> None:
        self._raw = ""
        self._scan = 0
        self._matched = 0
        self._read = -1
        self._stopped = False
        self.sent = ""

    def feed(self, delta: str) -> str:
        self._raw += delta
        if self._stopped or (self._read < 0 and not self._opened()):
            return ""
        text = self._decoded()
        self.sent += text
        return text

    def rest(self, whole: str) -> str:
        """What `whole` (the final input) adds to what was sent; "" when the two disagree."""
        return whole[len(self.sent) :] if whole.startswith(self.sent) else ""

    def _opened(self) -> bool:
        """Whether the arguments so far open with `{"input":"`; stops for good when they cannot."""
        while self._scan < len(self._raw):
            char = self._raw[self._scan]
            self._scan += 1
            if char.isspace() and self._matched in self._SPACED:
                continue
            if char != self._OPENING[self._matched]:
                self._stopped = True
                return False
            self._matched += 1
            if self._matched == len(self._OPENING):
                self._read = self._scan
                return True
        return False

    def _decoded(self) -> str:
        """The string's text up to the last complete character (escapes and surrogate pairs whole)."""
        raw, at = self._raw, self._read
        while at < len(raw) and raw[at] != '"':
            step = 1
            if raw[at] == "\\":
                step = 6 if raw[at + 1 : at + 2] == "u" else 2
                if step == 6 and raw[at + 2 : at + 4].upper() in ("D8", "D9", "DA", "DB"):
                    step = 12  # a high surrogate is one character with the escape after it
                if at + step > len(raw):
                    break
            at += step
        chunk, self._read = raw[self._read : at], at
        if raw[at : at + 1] == '"':
            self._stopped = True  # the closing quote: the input is whole
        try:
            text: str = json.loads(f'"{chunk}"', strict=False)
        except ValueError:
            self._stopped = True
            return ""
        return text


class _Items:
    """Output items in the caller's words: ids, types and contents from the turn's blocks."""

    def __init__(self, request: RouteRequest, call: str) -> None:
        self.call = call
        turn = request if isinstance(request, ResponsesTurn) else None
        self._custom = turn.custom_tools if turn else frozenset()
        self._namespaces = dict(turn.namespaces) if turn else {}

    def is_custom(self, name: str) -> bool:
        return name in self._custom

    def item_id(self, number: int, name: str | None) -> str:
        prefix = "msg" if name is None else "ctc" if self.is_custom(name) else "fc"
        return f"{prefix}_{self.call}_{number}"

    def message(self, number: int, status: str, text: str | None) -> dict[str, Any]:
        return message_item(self.item_id(number, None), status, [] if text is None else [text_part(text)])

    def tool_call(self, number: int, call_id: str, name: str, arguments: str, status: str) -> dict[str, Any]:
        """A call's item; `arguments` are the chat call's (a custom tool's input is read from them)."""
        known = {"id": self.item_id(number, name), "call_id": call_id, "name": name}
        item: dict[str, Any]
        if self.is_custom(name):
            item = {
                "type": "custom_tool_call",
                **known,
                "input": _custom_input(arguments) if arguments else "",
            }
        else:
            item = {"type": "function_call", **known, "arguments": arguments, "status": status}
        if name in self._namespaces:
            item["namespace"] = self._namespaces[name]
        return item


def _usage(request: RouteRequest, ended: RouteEnded) -> dict[str, Any]:
    """The member's own counts when it sent them, else the gateway's estimate."""
    asked, answered = turn_counts(request, ended)
    return {
        "input_tokens": asked,
        "input_tokens_details": {"cached_tokens": 0, "cache_write_tokens": 0},
        "output_tokens": answered,
        "output_tokens_details": {"reasoning_tokens": min(ended.usage.tokens_reasoning or 0, answered)},
        "total_tokens": asked + answered,
    }


def _base(request: RouteRequest, call: str) -> dict[str, Any]:
    """The `response` object every event of the turn starts from."""
    base = response_object(request.model, f"resp_{call}", int(time.time()), "in_progress", [])
    return {**base, "parallel_tool_calls": request.body.get("parallel_tool_calls", True)}


def _finished(
    request: RouteRequest, ended: RouteEnded, base: dict[str, Any], output: list[dict[str, Any]]
) -> dict[str, Any]:
    """The whole response once the turn ended: `completed`, or `incomplete` when it was cut."""
    reason = _INCOMPLETE.get(ended.finish_reason or "")
    return {
        **base,
        "status": "incomplete" if reason else "completed",
        "incomplete_details": {"reason": reason} if reason else None,
        "output": output,
        "completed_at": int(time.time()),
        "usage": _usage(request, ended),
        "bench": ended.bench,
    }


class _ResponseStream(NumberedEvents):
    """One streamed response: the lifecycle events around the turn's blocks, numbered from 0."""

    def __init__(self, request: RouteRequest, started: RouteStarted) -> None:
        super().__init__()
        self.request = request
        self.items = _Items(request, started.call)
        self.base = _base(request, started.call)
        self.done: list[dict[str, Any]] = []
        self.inputs: dict[int, _CustomInput] = {}

    def opening(self) -> list[bytes]:
        return [
            self.event("response.created", response=self.base),
            self.event("response.in_progress", response=self.base),
        ]

    def block(self, event: BlockEvent) -> list[bytes]:
        if event.call is None:
            return self._text(event)
        call, number = event.call, event.block
        where = {"item_id": self.items.item_id(number, call.name), "output_index": number}
        custom = self.items.is_custom(call.name)
        if isinstance(event, BlockOpened):
            if custom:
                self.inputs[number] = _CustomInput()
            item = self.items.tool_call(number, call.id, call.name, "", "in_progress")
            return [self.event("response.output_item.added", output_index=number, item=item)]
        if isinstance(event, BlockDelta) and not custom:
            return [self.event("response.function_call_arguments.delta", **where, delta=event.delta)]
        if isinstance(event, BlockDelta):
            text = self.inputs[number].feed(event.delta)
            return [self.event("response.custom_tool_call_input.delta", **where, delta=text)] if text else []
        item = self.items.tool_call(number, call.id, call.name, event.content, "completed")
        self.done.append(item)
        if custom:
            rest = self.inputs[number].rest(item["input"])
            written = (
                [self.event("response.custom_tool_call_input.delta", **where, delta=rest)] if rest else []
            )
            written.append(self.event("response.custom_tool_call_input.done", **where, input=item["input"]))
        else:
            written = [self.event("response.function_call_arguments.done", **where, arguments=event.content)]
        return [*written, self.event("response.output_item.done", output_index=number, item=item)]

    def _text(self, event: BlockEvent) -> list[bytes]:
        number = event.block
        where = {"item_id": self.items.item_id(number, None), "output_index": number, "content_index": 0}
        if isinstance(event, BlockOpened):
            return [
                self.event(
                    "response.output_item.added",
                    output_index=number,
                    item=self.items.message(number, "in_progress", None),
                ),
                self.event("response.content_part.added", **where, part=text_part("")),
            ]
        if isinstance(event, BlockDelta):
            return [self.event("response.output_text.delta", **where, delta=event.delta, logprobs=[])]
        assert isinstance(event, BlockClosed)
        item = self.items.message(number, "completed", event.content)
        self.done.append(item)
        return [
            self.event("response.output_text.done", **where, text=event.content, logprobs=[]),
            self.event("response.content_part.done", **where, part=text_part(event.content)),
            self.event("response.output_item.done", output_index=number, item=item),
        ]

    def closing(self, ended: RouteEnded) -> bytes:
        whole = _finished(self.request, ended, self.base, self.done)
        kind = "response.incomplete" if whole["status"] == "incomplete" else "response.completed"
        return self.event(kind, response=whole)

    def failure(self, broken: RouteBroken) -> list[bytes]:
        """The `error` event (with the nested `error` object the SDK raises on), then `response.failed`."""
        error = error_object(502, broken.message)
        failed = {
            **self.base,
            "status": "failed",
            "output": self.done,
            "error": {"code": "server_error", "message": broken.message},
        }
        return [
            self.event("error", code=error["code"], message=broken.message, param=None, error=error),
            self.event("response.failed", response=failed),
        ]


class ResponsesRoute:
    def decode_route(self, body: dict[str, Any], *, caller: str) -> RouteRequest:
        refuse_stored(body)
        model = read_model(body)
        tools = _Tools(body)
        chat: dict[str, Any] = {"messages": read_input(body), **read_options(body)}
        if tools.chat:
            chat["tools"] = tools.chat
        chat.update(_tool_choice(body, tools.names))
        turn = route_request(body, model=model, chat_body=chat, stream=read_stream(body), caller=caller)
        return ResponsesTurn.of(turn, tools)

    def render_route(self, request: RouteRequest, events: Sequence[RouteEvent]) -> dict[str, Any]:
        started, ended = finished_turn(events)
        items = _Items(request, started.call)
        output = [items.message(0, "completed", ended.text)] if ended.text else []
        for call in ended.tool_calls:
            if call.name:
                output.append(items.tool_call(len(output), call.id, call.name, call.arguments, "completed"))
        return _finished(request, ended, _base(request, started.call), output)

    async def stream_route(
        self, request: RouteRequest, events: AsyncIterator[RouteEvent]
    ) -> AsyncIterator[bytes]:
        blocks = TurnBlocks()
        stream: _ResponseStream | None = None
        async for event in events:
            if isinstance(event, Heartbeat):
                yield b": keep-alive\n\n"
            elif isinstance(event, RouteStarted):
                stream = _ResponseStream(request, event)
                for written in stream.opening():
                    yield written
            elif stream is None:
                continue  # the contract starts every turn with `RouteStarted`
            elif isinstance(event, RouteChunk):
                for piece in event.pieces:
                    for block_event in blocks.add(piece):
                        for written in stream.block(block_event):
                            yield written
            elif isinstance(event, RouteEnded):
                for block_event in blocks.finish():
                    for written in stream.block(block_event):
                        yield written
                yield stream.closing(event)
                return
            elif isinstance(event, RouteBroken):
                for written in stream.failure(event):
                    yield written
                return
