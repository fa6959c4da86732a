"""Calls to the endpoints that serve the models: one pooled HTTP client for the process.

The engine asks a seat with `chat` and relays a route turn with `relay`;
endpoint setup lists models with `list_models`. A seat on an endpoint that
speaks another API (native Anthropic Messages, Gemini) is asked through the
same adapters as a route turn (`outbound_apis`), its chunks read back with
`core.turn.TurnReader`, so a translation exists once; seats on OpenAI chat
endpoints keep their own lean path. All calls go through one pool of
kept-alive connections
(`transport`), so hundreds of seats share connections instead of paying a
handshake each. The pool is our own lean HTTP/1.1 client because the
benchmark found the general-purpose ones to be the gateway's bottleneck:
httpx's pool scans every connection for every request (2 to 13 ms of CPU per
streamed call at 64 concurrent calls) and aiohttp about 0.4 ms per call,
against under 0.2 ms with `transport` (its docstring has the numbers).

Three promises the engine relies on:

- **The deadline is absolute.** No attempt, no retry wait and no silent
  stream outlives it; a reply that hangs after its headers ends in
  `UpstreamTimeout` at the deadline, keeping what arrived.
- **Retries never duplicate visible text.** A call is sent again only for
  failures that say "try again" (see `retry`), and only while nothing has
  reached `on_text`.
- **Keys go only where they were meant to.** Redirects are refused rather
  than followed, so a bearer key is never replayed to another host, and no
  error message carries the key. netrc is ignored for the same reason; a
  proxy is used only as `HTTPS_PROXY`, `HTTP_PROXY` and `NO_PROXY` say.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

import orjson

from panelgate.core.turn import TextPiece, ToolCall, TurnReader
from panelgate.core.types import ChatMessage, ModelInfo
from panelgate.observe import Meter
from panelgate.settings import Settings
from panelgate.store.usage_book import UsageBook
from panelgate.upstream import openai_chat
from panelgate.upstream.cooldowns import Cooldowns, cooled
from panelgate.upstream.errors import (
    UpstreamBadReply,
    UpstreamConnectError,
    UpstreamError,
    UpstreamStatusError,
    UpstreamTimeout,
    classify,
    notice_kind,
)
from panelgate.upstream.keys import KeyFileError, KeyStore
from panelgate.upstream.ledger_notes import CallTag, LedgerNotes, UsageSeen
from panelgate.upstream.openai_chunks import ChatOutbound
from panelgate.upstream.outbound import OutboundApi
from panelgate.upstream.outbound_apis import outbound_api
from panelgate.upstream.pacing import Pacer
from panelgate.upstream.retry import MAX_RETRIES, is_retry_status, retry_after, wait_before_retry
from panelgate.upstream.transport import BadRequest, HttpPool, ProxyRefused, Reply, TransportError

OnText = Callable[[str], Awaitable[None]]
OnChunk = Callable[[dict[str, Any]], Awaitable[None]]

_CONNECT_TIMEOUT_S = 10.0
_ERROR_BODY_BYTES = 64 * 1024
_KEEPALIVE_S = 30.0


@dataclass(frozen=True, slots=True)
class Target:
    """One model on one endpoint, as the client needs it to place a call."""

    endpoint: str
    base_url: str
    served_id: str
    api: str = "chat"
    key_name: str | None = None
    header_keys: Mapping[str, str] = field(default_factory=dict)
    """Each extra header's name to the key name its value is kept under (values are secrets)."""


@dataclass(frozen=True, slots=True)
class ChatResult:
    """A finished call. `text` may be empty: the engine calls that seat `empty`.

    `attempts` counts the requests sent, retries and a resend without
    `stream_options` included, as rate limits and the usage ledger count them.
    """

    text: str
    reasoning: str
    finish_reason: str | None
    tokens_in: int | None
    tokens_out: int | None
    tokens_reasoning: int | None
    attempts: int
    seconds: float
    model: str
    tool_calls: list[dict[str, Any]] = field(default_factory=list)


@dataclass(frozen=True, slots=True)
class RelayResult:
    """A relayed turn that ended well: how many requests it took and how long."""

    attempts: int
    seconds: float


@dataclass(frozen=True, slots=True)
class _Route:
    """Where one call goes and what its messages must never repeat."""

    provider: str
    url: str
    headers: dict[str, str]
    secrets: tuple[str, ...]
    served_id: str = ""


class _StreamOptionsRefused(Exception):
    """The endpoint refused `stream_options`; the same call goes again without it."""


class UpstreamClient:
    """The process's one pool of upstream connections; use it from one event loop."""

    def __init__(
        self,
        settings: Settings,
        keys: KeyStore,
        pacer: Pacer | None = None,
        ledger: UsageBook | None = None,
        meter: Meter | None = None,
    ) -> None:
        """`pacer` holds every call to the rate limits known for its model; `ledger` notes every tagged
        call (None: neither), and `meter` counts it for `/metrics` (None: a meter of its own)."""
        self._settings = settings
        self._keys = keys
        self._pacer = pacer
        self._ledger = None if ledger is None else LedgerNotes(ledger, meter or Meter())
        self._pool = HttpPool(
            connect_timeout=_CONNECT_TIMEOUT_S,
            keepalive_s=_KEEPALIVE_S,
            connections_per_host=settings.upstream_connections_per_host,
        )

    async def aclose(self) -> None:
        if self._pacer is not None:
            await self._pacer.aclose()
        await self._pool.aclose()

    async def cooldowns(self, roster: Mapping[str, ModelInfo]) -> Cooldowns:
        """`roster` with the models pacing holds calls to marked as cooling down (see `cooldowns`)."""
        return cooled(roster, await self._pacer.resting() if self._pacer is not None else {})

    async def chat(
        self,
        target: Target,
        messages: list[ChatMessage],
        options: Mapping[str, Any],
        *,
        deadline: float,
        on_text: OnText | None = None,
        tag: CallTag | None = None,
        notices: bool = False,
    ) -> ChatResult:
        """Ask `target` and return its reply, or raise `UpstreamError`.

        `deadline` is a `time.monotonic()` value; `on_text` receives each
        piece of the answer as it arrives; `tag` notes the call in the usage ledger;
        `notices` fails a 200 whose whole answer is a quota or credit notice (`errors.notice_kind`).
        """
        started = time.monotonic()
        try:
            result = await self._chat(target, messages, options, deadline=deadline, on_text=on_text)
            if notices:
                _refuse_notice(result, target.endpoint)
        except UpstreamError as error:
            if self._ledger is not None:
                self._ledger.failed(tag, (target.endpoint, target.served_id), started, error)
            raise
        if self._ledger is not None:
            usage = UsageSeen(result.tokens_in, result.tokens_out, result.tokens_reasoning)
            empty = not (result.text.strip() or result.tool_calls)
            where = (target.endpoint, target.served_id)
            self._ledger.answered(tag, where, started, attempts=result.attempts, empty=empty, usage=usage)
        return result

    async def _chat(
        self,
        target: Target,
        messages: list[ChatMessage],
        options: Mapping[str, Any],
        *,
        deadline: float,
        on_text: OnText | None,
    ) -> ChatResult:
        if target.api != "chat":
            return await self._chat_in_own_api(target, messages, options, deadline=deadline, on_text=on_text)
        key, extra = self._credentials(target.key_name, target.header_keys, target.endpoint)
        route = _Route(
            target.endpoint,
            target.base_url.rstrip("/") + openai_chat.CHAT_PATH,
            openai_chat.request_headers(key, extra),
            _secrets(key, extra),
            target.served_id,
        )
        with_stream_options = True
        started = time.monotonic()
        attempts = failures = 0
        while True:
            body = openai_chat.request_body(
                target.served_id, messages, options, stream_options=with_stream_options
            )
            reader = openai_chat.ChatReplyReader(target.endpoint, self._settings.upstream_max_reply_bytes)
            await self._admit(route, deadline, attempts)
            attempts += 1
            try:
                await self._chat_once(route, body, reader, deadline, on_text, with_stream_options)
            except _StreamOptionsRefused:
                with_stream_options = False
                continue
            except UpstreamError as error:
                error.attempts = attempts
                wait = self._retry_wait(error, failures, deadline, delivered=bool(on_text and reader.text))
                if wait is None:
                    raise
                failures += 1
                await asyncio.sleep(wait)
                continue
            await self._spent(route, (reader.tokens_in or 0) + (reader.tokens_out or 0))
            return ChatResult(
                text=reader.text,
                reasoning=reader.reasoning,
                finish_reason=reader.finish_reason,
                tokens_in=reader.tokens_in,
                tokens_out=reader.tokens_out,
                tokens_reasoning=reader.tokens_reasoning,
                attempts=attempts,
                seconds=time.monotonic() - started,
                model=reader.model,
                tool_calls=reader.tool_calls,
            )

    async def _chat_in_own_api(
        self,
        target: Target,
        messages: list[ChatMessage],
        options: Mapping[str, Any],
        *,
        deadline: float,
        on_text: OnText | None,
    ) -> ChatResult:
        """A seat on an endpoint that speaks another API: asked as a route turn is, read back whole."""
        reader = TurnReader()

        async def take(chunk: dict[str, Any]) -> None:
            for piece in reader.feed(chunk):
                if on_text is not None and isinstance(piece, TextPiece):
                    await on_text(piece.text)

        chat_body = {**options, "messages": messages}
        relayed = await self._relay(target, chat_body, deadline=deadline, on_chunk=take, retries=True)
        return ChatResult(
            text=reader.text,
            reasoning=reader.reasoning,
            finish_reason=reader.finish_reason,
            tokens_in=reader.usage.tokens_in,
            tokens_out=reader.usage.tokens_out,
            tokens_reasoning=reader.usage.tokens_reasoning,
            attempts=relayed.attempts,
            seconds=relayed.seconds,
            model=reader.model,
            tool_calls=[_chat_tool_call(call) for call in reader.tool_calls if call.announced],
        )

    async def relay(
        self,
        target: Target,
        chat_body: Mapping[str, Any],
        *,
        deadline: float,
        on_chunk: OnChunk,
        retries: bool = True,
        tag: CallTag | None = None,
    ) -> RelayResult:
        """Send a route turn (an OpenAI chat body) to `target` in its own API, passing on each chunk.

        Chunks reach `on_chunk` as OpenAI chat-completion chunks whatever the
        endpoint speaks. A failure before the first chunk is tried again when
        `retries` allows and it says "try again"; after it, never. `tag` notes
        the call in the usage ledger.
        """
        if self._ledger is None:
            return await self._relay(target, chat_body, deadline=deadline, on_chunk=on_chunk, retries=retries)
        started = time.monotonic()
        where = (target.endpoint, target.served_id)
        usage = UsageSeen()
        answered = False

        async def seen(chunk: dict[str, Any]) -> None:
            nonlocal answered
            usage.read(chunk)
            answered = answered or bool(chunk.get("choices"))
            await on_chunk(chunk)

        try:
            result = await self._relay(target, chat_body, deadline=deadline, on_chunk=seen, retries=retries)
        except UpstreamError as error:
            self._ledger.failed(tag, where, started, error)
            raise
        except BaseException:  # the caller stopped the turn (its first-token window): it was still sent
            self._ledger.failed(tag, where, started, UpstreamError("stopped", kind="timeout"))
            raise
        self._ledger.answered(tag, where, started, attempts=result.attempts, empty=not answered, usage=usage)
        return result

    async def _relay(
        self,
        target: Target,
        chat_body: Mapping[str, Any],
        *,
        deadline: float,
        on_chunk: OnChunk,
        retries: bool,
    ) -> RelayResult:
        api = outbound_api(target.api)
        if api is None:
            raise UpstreamError(
                f"endpoint `{target.endpoint}` speaks the `{target.api}` API, which panelgate cannot call"
                " yet; it calls `chat` (OpenAI chat completions), `anthropic` and `gemini` endpoints",
                kind="structural",
                provider=target.endpoint,
            )
        key, extra = self._credentials(target.key_name, target.header_keys, target.endpoint)
        route = _Route(
            target.endpoint,
            api.url(target.base_url.rstrip("/"), target.served_id),
            api.headers(key, extra),
            _secrets(key, extra),
            target.served_id,
        )
        started = time.monotonic()
        attempts = failures = 0
        with_stream_options = True
        delivered = False
        usage = UsageSeen()

        async def take(chunk: dict[str, Any]) -> None:
            nonlocal delivered
            delivered = True
            usage.read(chunk)
            await on_chunk(chunk)

        while True:
            try:
                if isinstance(api, ChatOutbound):
                    body = api.body_with(target.served_id, chat_body, stream_options=with_stream_options)
                else:
                    body = api.body(target.served_id, chat_body)
            except UpstreamError as refused:  # the turn cannot be said in this API
                refused.provider = refused.provider or target.endpoint
                raise
            await self._admit(route, deadline, attempts, may_wait=retries)
            attempts += 1
            try:
                await self._relay_once(route, api, body, deadline, take, with_stream_options)
            except _StreamOptionsRefused:
                with_stream_options = False
                continue
            except UpstreamError as error:
                error.attempts = attempts
                wait = self._retry_wait(error, failures, deadline, delivered=delivered or not retries)
                if wait is None:
                    raise
                failures += 1
                await asyncio.sleep(wait)
                continue
            await self._spent(route, (usage.tokens_in or 0) + (usage.tokens_out or 0))
            return RelayResult(attempts=attempts, seconds=time.monotonic() - started)

    async def _admit(self, route: _Route, deadline: float, sent: int, *, may_wait: bool = True) -> None:
        """Wait for the limits to let the call through; a refusal counts the `sent` attempts before it,
        so a retry refused after a 429 still leaves its ledger row."""
        if self._pacer is not None:
            try:
                await self._pacer.admit(route.provider, route.served_id, deadline, may_wait=may_wait)
            except UpstreamError as refused:
                refused.attempts = sent
                raise

    async def _spent(self, route: _Route, tokens: int) -> None:
        if self._pacer is not None:
            await self._pacer.spent(route.provider, route.served_id, tokens)

    async def _observe(self, route: _Route, reply: Reply, body: bytes = b"") -> None:
        if self._pacer is not None:
            await self._pacer.observe(route.provider, route.served_id, reply.status, reply.headers, body)

    def _credentials(
        self, key_name: str | None, header_keys: Mapping[str, str], provider: str
    ) -> tuple[str | None, dict[str, str]]:
        """The endpoint's key, and its extra headers with their values, from the key store.

        Without extra headers this is the one `get` a call always cost; with
        them the key and every value are read in one pass. A header whose
        value is kept nowhere is not sent, as a key kept nowhere is not.
        """
        try:
            if not header_keys:
                return (self._keys.get(key_name) if key_name else None), {}
            found = self._keys.get_each([*header_keys.values(), *([key_name] if key_name else [])])
        except KeyFileError as exc:
            raise UpstreamError(
                f"`{provider}`'s key cannot be read: {exc}", kind="signin", provider=provider
            ) from None
        headers = {name: found[kept] for name, kept in header_keys.items() if kept in found}
        return (found.get(key_name) if key_name else None), headers

    def _retry_wait(
        self, error: UpstreamError, failures: int, deadline: float, *, delivered: bool
    ) -> float | None:
        """Seconds to wait before sending the call again, or None to give up now."""
        if not error.retryable or delivered or failures >= MAX_RETRIES:
            return None
        wait = wait_before_retry(error.retry_after, failures + 1, self._settings.retry_after_cap_s)
        return None if time.monotonic() + wait >= deadline else wait

    async def _chat_once(
        self,
        route: _Route,
        body: bytes,
        reader: openai_chat.ChatReplyReader,
        deadline: float,
        on_text: OnText | None,
        with_stream_options: bool,
    ) -> None:
        """One request of a panel seat: the reply into `reader`, its text to `on_text`."""

        async def take(data: bytes | None) -> None:
            for piece in reader.feed(data) if data is not None else reader.close():
                if on_text is not None:
                    await on_text(piece)

        await self._exchange(
            route,
            body,
            deadline,
            take,
            error_text=openai_chat.error_text,
            partial=lambda: reader.text,
            with_stream_options=with_stream_options,
        )

    async def _relay_once(
        self,
        route: _Route,
        api: OutboundApi,
        body: bytes,
        deadline: float,
        on_chunk: OnChunk,
        with_stream_options: bool,
    ) -> None:
        """One request of a route turn: its chunks to `on_chunk`."""
        reader = api.reader(route.provider, self._settings.upstream_max_reply_bytes)

        async def take(data: bytes | None) -> None:
            for chunk in reader.feed(data) if data is not None else reader.close():
                await on_chunk(chunk)

        await self._exchange(
            route,
            body,
            deadline,
            take,
            error_text=api.error_text,
            partial=lambda: "",
            with_stream_options=with_stream_options,
        )

    async def _exchange(
        self,
        route: _Route,
        body: bytes,
        deadline: float,
        take: Callable[[bytes | None], Awaitable[None]],
        *,
        error_text: Callable[[bytes], str],
        partial: Callable[[], str],
        with_stream_options: bool,
    ) -> None:
        """One request: each piece of the reply's body to `take` (then None), or raise why not."""
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            raise UpstreamTimeout(
                f"`{route.provider}` was not asked: the deadline had already passed",
                kind="timeout",
                provider=route.provider,
            )
        replying = False
        try:
            async with (
                asyncio.timeout(remaining),
                self._pool.request("POST", route.url, route.headers, body) as reply,
            ):
                if not 200 <= reply.status < 300:
                    raw = await _error_body(reply)
                    await self._observe(route, reply, raw)
                    said = error_text(raw)
                    if with_stream_options and openai_chat.refuses_stream_options(reply.status, said):
                        raise _StreamOptionsRefused
                    raise _status_error(reply, said, route)
                await self._observe(route, reply)
                replying = True
                while data := await reply.read():
                    await take(data)
                await take(None)
        except TransportError as exc:
            raise _transport_error(exc, route, partial(), replying=replying) from None
        except TimeoutError:
            raise _timed_out(route.provider, remaining, partial()) from None

    async def list_models(
        self,
        base_url: str,
        *,
        key: str | None = None,
        key_name: str | None = None,
        header_keys: Mapping[str, str] | None = None,
        headers: Mapping[str, str] | None = None,
        timeout: float = 15.0,
        endpoint: str = "",
    ) -> list[dict[str, Any]]:
        """The models `<base_url>/models` lists (`data`, `models` or a bare list).

        `key` and `headers` are sent as given (an endpoint being tested before
        it is saved); else `key_name` and `header_keys` are read from the key store.
        """
        found, kept = self._credentials(None if key else key_name, header_keys or {}, endpoint or base_url)
        key = key or found
        extra = {**kept, **(headers or {})}
        sent = {"accept": "application/json", **({"authorization": f"Bearer {key}"} if key else {}), **extra}
        route = _Route(
            endpoint or urlsplit(base_url).netloc or base_url,
            base_url.rstrip("/") + "/models",
            sent,
            _secrets(key, extra),
        )
        cap = self._settings.upstream_max_reply_bytes
        try:
            async with (
                asyncio.timeout(timeout),
                self._pool.request("GET", route.url, route.headers) as reply,
            ):
                if not 200 <= reply.status < 300:
                    said = (
                        "" if 300 <= reply.status < 400 else openai_chat.error_text(await _error_body(reply))
                    )
                    raise _status_error(reply, said, route)
                body = await _read_capped(reply, cap, route.provider)
        except TransportError as exc:
            raise _transport_error(exc, route, "", replying=False) from None
        except TimeoutError:
            raise _timed_out(route.provider, timeout, "") from None
        return _model_list(body, route.provider)


# ---- helpers ---------------------------------------------------------------------


def _secrets(key: str | None, headers: Mapping[str, str]) -> tuple[str, ...]:
    """Values no message may repeat: the key and any long extra header value."""
    return tuple(value for value in (key, *headers.values()) if value and len(value) >= 8)


def _chat_tool_call(call: ToolCall) -> dict[str, Any]:
    return {"id": call.id, "type": "function", "function": {"name": call.name, "arguments": call.arguments}}


def _refuse_notice(result: ChatResult, provider: str) -> None:
    """Raise the failure a 200 notice stands for, as the same words sent as an error status would be."""
    kind = None if result.tool_calls else notice_kind(result.text)
    if kind is not None:
        error = UpstreamStatusError(
            f"`{provider}` answered HTTP 200 with a notice instead of an answer: {result.text}",
            kind=kind,
            provider=provider,
            status=200,
        )
        error.attempts = result.attempts
        raise error


def _timed_out(provider: str, seconds: float, partial: str) -> UpstreamTimeout:
    return UpstreamTimeout(
        f"`{provider}` did not finish within {seconds:.1f}s",
        kind="timeout",
        provider=provider,
        partial_text=partial,
    )


def _transport_error(exc: TransportError, route: _Route, partial: str, *, replying: bool) -> UpstreamError:
    """A broken connection: before the reply it may be tried again; during it the reply is cut."""
    why = str(exc) or type(exc).__name__
    provider = route.provider
    if isinstance(exc, BadRequest):
        return UpstreamError(f"`{provider}` cannot be called: {why}", provider=provider)
    if replying:
        return UpstreamBadReply(
            f"`{provider}` cut the reply off: {why}",
            provider=provider,
            partial_text=partial,
            secrets=route.secrets,
        )
    return UpstreamConnectError(
        f"could not reach `{provider}` at {route.url}: {why}",
        kind="timeout" if exc.timed_out else "other",
        provider=provider,
        retryable=not (isinstance(exc, ProxyRefused) and exc.lasting),
        secrets=route.secrets,
    )


async def _read_capped(reply: Reply, cap: int, provider: str) -> bytes:
    parts: list[bytes] = []
    size = 0
    while data := await reply.read():
        size += len(data)
        if size > cap:
            raise UpstreamBadReply(f"`{provider}`: the reply passed the {cap:,}-byte cap", provider=provider)
        parts.append(data)
    return b"".join(parts)


async def _error_body(reply: Reply) -> bytes:
    """An error reply's body (its first 64 KiB: an error page can be huge); nothing for a redirect."""
    if 300 <= reply.status < 400:
        return b""
    body = b""
    while data := await reply.read():
        body += data
        if len(body) >= _ERROR_BODY_BYTES:
            break
    return body[:_ERROR_BODY_BYTES]


def _status_error(reply: Reply, said: str, route: _Route) -> UpstreamStatusError:
    """The refusal an HTTP error status (or a redirect) stands for."""
    status, provider = reply.status, route.provider
    if 300 <= status < 400:
        where = reply.headers.get("location", "elsewhere")
        return UpstreamStatusError(
            f"`{provider}` redirected (HTTP {status}) to {where}; redirects are not followed, "
            "so set the endpoint's base URL to the address it points to",
            kind="other",
            provider=provider,
            status=status,
            secrets=route.secrets,
        )
    return UpstreamStatusError(
        f"`{provider}` answered HTTP {status}: {said or reply.reason or 'no reason given'}",
        kind=classify(status, said),
        provider=provider,
        status=status,
        retry_after=retry_after(reply.headers),
        retryable=is_retry_status(status),
        secrets=route.secrets,
    )


def _model_list(body: bytes, provider: str) -> list[dict[str, Any]]:
    try:
        listing = orjson.loads(body)
    except orjson.JSONDecodeError:
        raise UpstreamBadReply(
            f"`{provider}` listed its models in something that is not JSON", provider=provider
        ) from None
    if isinstance(listing, dict):
        listing = listing.get("data", listing.get("models"))
    if not isinstance(listing, list):
        raise UpstreamBadReply(f"`{provider}` answered /models without a list of models", provider=provider)
    return [entry for entry in listing if isinstance(entry, dict)]
