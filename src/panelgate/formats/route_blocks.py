"""Laying a route turn out in numbered blocks, one open at a time, for block-structured streams.

Anthropic content blocks and Responses output items are both streamed as
blocks that open, grow and close; clients take a block as final when it
closes (Claude Code and Codex run a tool call then). `TurnBlocks` turns the
engine's pieces into that shape once, for both formats.
"""

from __future__ import annotations

from dataclasses import dataclass

import orjson

from panelgate.core.turn import ReasoningPiece, TextPiece, ToolCallArguments, ToolCallStarted, TurnPiece


@dataclass(frozen=True, slots=True)
class BlockOpened:
    block: int
    call: ToolCallStarted | None
    """The tool call this block holds; None for a text block."""


@dataclass(frozen=True, slots=True)
class BlockDelta:
    block: int
    call: ToolCallStarted | None
    delta: str


@dataclass(frozen=True, slots=True)
class BlockClosed:
    block: int
    call: ToolCallStarted | None
    content: str
    """The block's whole text, or its call's whole arguments."""


BlockEvent = BlockOpened | BlockDelta | BlockClosed


@dataclass(slots=True)
class _Block:
    number: int
    call: ToolCallStarted | None
    content: str = ""

    @property
    def complete(self) -> bool:
        """Text can stop anywhere; a call is over once its arguments are whole JSON."""
        if self.call is None:
            return True
        try:
            orjson.loads(self.content)
        except orjson.JSONDecodeError:
            return False
        return True


class TurnBlocks:
    """Lays a turn's text and tool calls out as numbered blocks, one open at a time.

    Clients of block-structured streams (Anthropic content blocks, Responses
    output items) take a block as final when it closes — Claude Code and Codex
    run a tool call then — so a block must not close while its call may still
    grow, nor get pieces after it closed. Pieces go out as they come while
    they belong to the open block; a piece for another block closes it, unless
    the open block is a call whose arguments are not yet whole JSON (an
    upstream interleaving two calls): then later pieces wait, in order, until
    it is whole or the turn ends. Text after a call opens a new text block.
    Reasoning has no block.
    """

    def __init__(self) -> None:
        self._count = 0
        self._open: _Block | None = None
        self._calls: dict[int, _Block] = {}
        self._held: list[TurnPiece] = []

    def add(self, piece: TurnPiece) -> list[BlockEvent]:
        if isinstance(piece, ReasoningPiece):
            return []
        if not self._in_open_block(piece) and (self._held or self._waiting()):
            self._held.append(piece)
            return []
        return self._place(piece) + self._release()

    def finish(self) -> list[BlockEvent]:
        """Close every block: held pieces go out in order, whole or not."""
        events: list[BlockEvent] = []
        for piece in self._held:
            events.extend(self._place(piece))
        self._held.clear()
        return events + self._close()

    def _waiting(self) -> bool:
        return self._open is not None and not self._open.complete

    def _in_open_block(self, piece: TurnPiece) -> bool:
        if isinstance(piece, ToolCallArguments):
            return self._open is not None and self._calls.get(piece.index) is self._open
        return False

    def _release(self) -> list[BlockEvent]:
        events: list[BlockEvent] = []
        while self._held and not self._waiting():
            events.extend(self._place(self._held.pop(0)))
        return events

    def _place(self, piece: TurnPiece) -> list[BlockEvent]:
        if isinstance(piece, ToolCallArguments):
            block = self._calls.get(piece.index)
            if block is None:
                return []  # the reader announces every call before its arguments
            block.content += piece.delta
            # After a closed call's JSON was whole, nothing valid can follow it: kept, not sent.
            return [BlockDelta(block.number, block.call, piece.delta)] if block is self._open else []
        if isinstance(piece, TextPiece) and self._open is not None and self._open.call is None:
            self._open.content += piece.text
            return [BlockDelta(self._open.number, None, piece.text)]
        events = self._close()
        call = piece if isinstance(piece, ToolCallStarted) else None
        block = self._open = _Block(self._count, call)
        self._count += 1
        events.append(BlockOpened(block.number, call))
        if call is not None:
            self._calls[call.index] = block
        elif isinstance(piece, TextPiece):
            block.content = piece.text
            events.append(BlockDelta(block.number, None, piece.text))
        return events

    def _close(self) -> list[BlockEvent]:
        if self._open is None:
            return []
        block, self._open = self._open, None
        return [BlockClosed(block.number, block.call, block.content)]
