"""A real Gemini API server on 127.0.0.1 for tests: what a member on `api: gemini` calls.

It is `FakeUpstream` (its server thread, event loop, keep-alive HTTP/1.1
plumbing, `behave`, `requests`, `requests_for` and `reset`), failing and
streaming as `FakeAnthropic` does (`native_fakes`), answering
`POST /v1/models/<model>:streamGenerateContent` in Google's own words, so the
adapter is proven against bytes shaped like the real service's, through real
sockets::

    with FakeGemini() as upstream:
        upstream.behave("gemini-x", answer="hello", chunks=2,
                        tool_calls=[{"name": "lookup", "arguments": {"q": "x"}}])
        ...POST f"{upstream.url}/models/gemini-x:streamGenerateContent?alt=sse"...
        assert upstream.requests_for("gemini-x")[0].body["contents"][0]["role"] == "user"

The model is read from the path (Gemini's body has none); the query string is
not kept (`FakeUpstream` drops it), and the reply is always what `alt=sse`
asks for: `data: <GenerateContentResponse>` events ended by CRLF CRLF, as
Google writes them. Events: a `thought: true` part when `reasoning` is set;
the answer in `chunks` text parts; one event with every tool call as a
`functionCall` part; then a last event with `finishReason` (`STOP`, or
`finish_reason` as given, in Google's words such as `MAX_TOKENS`) and the
full `usageMetadata` (`thoughtsTokenCount` when there was reasoning).

Behaviour fields it acts on: answer, chunks, delay, chunk_delay, status,
error_message, retry_after, fail_times, reset_after, error_after (an
`{"error": ...}` event, 503 `UNAVAILABLE` unless `status` says otherwise),
empty, usage, reasoning, tool_calls, finish_reason, served_as (its
`modelVersion`), require_key (checked
against `x-goog-api-key`, as the server-wide `require_key` is). `behave`
refuses the rest rather than ignoring them.

Like the real service it answers 400 `INVALID_ARGUMENT` to a request without
`contents`, whose turns are not `user`/`model` turns that alternate, or
whose function parameters use a schema key Gemini does not know (Google's
"Unknown name ... Cannot find field"). Other routes are `FakeUpstream`'s.
"""

from __future__ import annotations

import asyncio
import itertools
import re
import time
from typing import Any

import orjson

from tests.support.native_fakes import ChunkedReply, NativeFake, split
from tests.support.upstream import (
    _DEFAULT_ERRORS,
    Behaviour,
    ReceivedRequest,
    _Call,
    _Request,
    _reset,
)

_PATH = re.compile(r"/v1/models/([^/:]+):streamGenerateContent")
_STATUS_NAMES = {
    400: "INVALID_ARGUMENT", 401: "UNAUTHENTICATED", 403: "PERMISSION_DENIED", 404: "NOT_FOUND",
    429: "RESOURCE_EXHAUSTED", 500: "INTERNAL", 503: "UNAVAILABLE", 504: "DEADLINE_EXCEEDED",
}  # fmt: skip
_SCHEMA_KEYS = frozenset({
    "type", "format", "title", "description", "nullable", "enum", "items", "properties", "required",
    "minItems", "maxItems", "minProperties", "maxProperties", "minLength", "maxLength", "pattern",
    "minimum", "maximum", "anyOf", "propertyOrdering", "default", "example",
})  # fmt: skip


class FakeGemini(NativeFake):
    unsupported = NativeFake.unsupported | {"argument_pieces"}
    key_header = "x-goog-api-key"
    not_json = "Invalid JSON payload received."
    bad_key = (400, "API key not valid. Please pass a valid API key.")

    async def _answer(
        self, request: _Request, reader: asyncio.StreamReader, writer: asyncio.StreamWriter
    ) -> bool:
        found = _PATH.fullmatch(request.path)
        if request.method == "POST" and found:
            model = found.group(1)
            return await self._streamed_call(
                request, writer, lambda body: self._take_model_call(request, model, body)
            )
        return await super()._answer(request, reader, writer)

    def _error_body(self, status: int, message: str) -> dict[str, Any]:
        return {"error": {"code": status, "message": message, "status": _STATUS_NAMES.get(status, "UNKNOWN")}}

    def _invalid(self, body: dict[str, Any]) -> str | None:
        contents = body.get("contents")
        if not isinstance(contents, list) or not contents:
            return "* GenerateContentRequest.contents: contents is not specified"
        roles = [content.get("role") if isinstance(content, dict) else None for content in contents]
        if any(role not in ("user", "model") for role in roles):
            return "Please use a valid role: user, model."
        if any(first == second for first, second in itertools.pairwise(roles)):
            return "Please ensure that multiturn requests alternate between user and model."
        for tool in body.get("tools") or []:
            for declaration in tool.get("functionDeclarations") or []:
                if (unknown := _unknown_key(declaration.get("parameters") or {})) is not None:
                    return f'Invalid JSON payload received. Unknown name "{unknown}": Cannot find field.'
        return None

    def _reply(self, call: _Call, writer: asyncio.StreamWriter) -> ChunkedReply:
        return _GenerateReply(call, writer)

    def _take_model_call(self, request: _Request, model: str, body: dict[str, Any]) -> _Call:
        """Record the request under the model its path names, and decide how it is answered
        (as `FakeUpstream._take_call` does for a model named in the body)."""
        received = ReceivedRequest(
            request.method, request.path, request.headers, body, model, time.monotonic()
        )
        with self._lock:
            self.requests.append(received)
            self._serial += 1
            behaviour = self._behaviours.get(model) or Behaviour()
            failed = self._failures.get(model, 0)
            failing = (
                behaviour.status is not None
                and behaviour.error_after is None
                and (behaviour.fail_times is None or failed < behaviour.fail_times)
            )
            if failing:
                self._failures[model] = failed + 1
            return _Call(model, body, behaviour, failing, self._serial)


def _unknown_key(schema: dict[str, Any]) -> str | None:
    """The first key, here or in a nested schema, that Gemini's `Schema` does not have."""
    for key in schema:
        if key not in _SCHEMA_KEYS:
            return key
    properties = schema.get("properties")
    nested = [*(properties.values() if isinstance(properties, dict) else []), schema.get("items")]
    for sub in [*nested, *(schema.get("anyOf") or [])]:
        if isinstance(sub, dict) and (unknown := _unknown_key(sub)) is not None:
            return unknown
    return None


class _GenerateReply(ChunkedReply):
    """Writes the `alt=sse` event stream answering one request."""

    async def send(self) -> bool:
        b = self.behaviour
        await self.start()
        if b.reasoning:
            await self._event([{"text": b.reasoning, "thought": True}])
        pieces = split(self.call.text, b.chunks)
        stop_at = self.stop_at
        for piece in pieces[:stop_at]:
            if b.chunk_delay:
                await asyncio.sleep(b.chunk_delay)
            await self._event([{"text": piece}])
        if stop_at is not None:
            return await self._break_off(reset=b.reset_after == stop_at)
        if b.tool_calls:
            calls = [
                {"functionCall": {"name": t["name"], "args": t.get("arguments", {})}} for t in b.tool_calls
            ]
            await self._event(calls)
        await self._event([{"text": ""}], finish=b.finish_reason or "STOP")
        await self.end()
        return True

    async def _break_off(self, *, reset: bool) -> bool:
        """End the reply early: a TCP reset (the connection is done), or an error event."""
        if reset:
            await _reset(self.writer)
            return False
        status = self.behaviour.status or 503
        message = self.behaviour.error_message or _DEFAULT_ERRORS.get(status, f"error {status}")
        await self._write(
            {"error": {"code": status, "message": message, "status": _STATUS_NAMES.get(status)}}
        )
        await self.end()
        return True

    def _usage(self) -> dict[str, int]:
        prompt, answer = self.tokens("contents")
        usage = {"promptTokenCount": prompt, "candidatesTokenCount": answer}
        thoughts = len(self.behaviour.reasoning.split())
        if thoughts:
            usage["thoughtsTokenCount"] = thoughts
        usage["totalTokenCount"] = sum(usage.values())
        return usage

    async def _event(self, parts: list[dict[str, Any]], finish: str | None = None) -> None:
        candidate: dict[str, Any] = {"content": {"parts": parts, "role": "model"}, "index": 0}
        usage = self._usage()
        if finish is not None:
            candidate["finishReason"] = finish
        else:  # before the end, the counts so far: the prompt only
            usage = {
                "promptTokenCount": usage["promptTokenCount"],
                "totalTokenCount": usage["promptTokenCount"],
            }
        served = self.behaviour.served_as or self.call.model
        await self._write({"candidates": [candidate], "usageMetadata": usage, "modelVersion": served,
                           "responseId": f"fake-response-{self.call.serial}"})  # fmt: skip

    async def _write(self, event: dict[str, Any]) -> None:
        await self.frame(b"data: " + orjson.dumps(event) + b"\r\n\r\n")
