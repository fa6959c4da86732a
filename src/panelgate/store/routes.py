"""Route mode's memory: which model each agent conversation sticks to, and every turn.

A conversation is found by its key (a hash of collection, caller, system
text and first user message, made by the engine) and is live while its last
turn is under the idle limit old. It is kept here rather than in a process,
so an agent keeps its model across restarts and on every gateway process.
A turn's record (never the prompt) and the conversation's new state are
written together; the first turn a model answers in a conversation also
leaves one evidence row (`<conversation>.<n>`), judgeable like a seat.
Turns are not batched as panels are: on SQLite the write is inline and
never yields, so a streamed turn's last chunks and its end go out in one
write to the caller. Waiting for a batch split them in two, and most
batches held a single turn.

The split with Redis: the database always keeps the record (every turn,
each conversation's row for the dashboard and `/api/routes`, evidence);
only the lookup on every turn's path, "which live conversation is this
and whom does it stick to", goes through a `StickyRoutes`. On the database
that is the conversation row itself (`DatabaseStickyRoutes`); with Redis it
is a copy of the row kept there after the turn is recorded.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import TYPE_CHECKING, Any

from sqlalchemy import func, select
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.engine import Connection

from panelgate.store.bulk import insert_rows, select_rows
from panelgate.store.connections import Connections
from panelgate.store.errors import Conflict
from panelgate.store.records import ConversationRecord, TurnRecord
from panelgate.store.tables import evidence, route_conversations, route_turns

if TYPE_CHECKING:
    from panelgate.store.shared.protocols import StickyRoutes


class DatabaseStickyRoutes:
    """The conversation rows as the sticky lookup: `Routes.record_turn` writes them with each turn."""

    def __init__(self, connections: Connections) -> None:
        self._connections = connections

    async def live(self, key: str, *, live_since: datetime) -> ConversationRecord | None:
        where = [("key", "=", key), ("last_at", ">=", live_since)]

        def read(connection: Connection) -> ConversationRecord | None:
            rows = select_rows(connection, route_conversations, where)
            return _conversation(rows[0]) if rows else None

        return await self._connections.read_all_at_once(read)

    async def keep(self, conversation: ConversationRecord) -> None:
        """Nothing more to do: the row written in the turn's transaction is what `live` reads."""

    async def claim(self, conversation: ConversationRecord, *, live_since: datetime) -> ConversationRecord:
        """One statement decides, on SQLite and PostgreSQL alike: the row is written only when its key
        is free or idle, and whichever row then holds the key is read back."""
        table = route_conversations

        def write(connection: Connection) -> ConversationRecord:
            dialect = sqlite if connection.dialect.name == "sqlite" else postgresql
            statement = dialect.insert(table).values(_conversation_values(conversation))
            values = {c.name: statement.excluded[c.name] for c in table.columns if c.name != "key"}
            connection.execute(
                statement.on_conflict_do_update(
                    index_elements=[table.c.key], set_=values, where=table.c.last_at < live_since
                )
            )
            return _conversation(select_rows(connection, table, [("key", "=", conversation.key)])[0])

        return await self._connections.write_all_at_once(write)


class Routes:
    def __init__(self, connections: Connections, sticky: StickyRoutes) -> None:
        self._connections = connections
        self._sticky = sticky

    async def conversation(self, key: str, *, live_since: datetime) -> ConversationRecord | None:
        """The conversation with this key whose last turn is not older than `live_since`."""
        return await self._sticky.live(key, live_since=live_since)

    async def claim(self, conversation: ConversationRecord, *, live_since: datetime) -> ConversationRecord:
        """Start `conversation` before its first turn is answered, unless another turn of the same
        key started one first (on any process): then that one, which this turn joins.

        Clients send requests of one session at once (opencode asks for a title
        while it sends the first turn); without a claim each would start a
        conversation of its own and could stick to a different member.
        """
        return await self._sticky.claim(conversation, live_since=live_since)

    async def record_turn(
        self,
        turn: TurnRecord,
        conversation: ConversationRecord | None,
        *,
        model_id: int | None,
        new_answerer: bool = True,
    ) -> None:
        """Write the turn and the conversation as it stands after it, with new evidence if any.

        A conversation that went idle is replaced by `conversation` under the
        same key (its turns stay on the record under its old id); `None`
        leaves the conversation as it was (no member answered this turn).
        `model_id` is the answering model's id (None: not on the bench, no
        evidence); `new_answerer` False says it answered this conversation
        before, so its evidence exists already. Once the record is written,
        the sticky lookup is told where the conversation now stands.
        """

        def write(connection: Connection) -> None:
            insert_rows(connection, route_turns, [_turn_values(turn)])
            if turn.purpose == "shadow" and turn.status == "ok" and model_id is not None:
                _add_evidence(connection, turn, turn.call, model_id, source="shadow")
            if conversation is None:
                return
            insert_rows(
                connection, route_conversations, [_conversation_values(conversation)], on_conflict=("key",)
            )
            if new_answerer and turn.status == "ok" and model_id is not None:
                number = conversation.answered_by.index(turn.alias) + 1
                _add_evidence(connection, turn, f"{conversation.id}.{number}", model_id, source="route")

        try:
            await self._connections.write_all_at_once(write)
        except Conflict:
            # Turns of one new conversation recorded at the same moment: PostgreSQL's upsert settles
            # the clash on `key` but a row racing in on the unique `id` still fails. Written again,
            # the row is there, and the upsert updates it.
            await self._connections.write_all_at_once(write)
        if conversation is not None:
            await self._sticky.keep(conversation)

    async def shadow_calls_since(self, since: datetime) -> int:
        """Shadow calls made since `since`, by every gateway process (the daily budget counts them)."""
        query = select(func.count()).where(route_turns.c.purpose == "shadow", route_turns.c.at >= since)

        def read(connection: Connection) -> int:
            return int(connection.execute(query).scalar_one())

        return await self._connections.read_all_at_once(read)

    async def turns(self, conversation: str) -> list[TurnRecord]:
        query = (
            select(route_turns).where(route_turns.c.conversation == conversation).order_by(route_turns.c.turn)
        )
        async with self._connections.read() as connection:
            rows = (await connection.execute(query)).all()
        return [_turn(row) for row in rows]

    async def recent_turns(self, limit: int = 50) -> list[TurnRecord]:
        """The newest route turns first, shadows included."""
        query = select(route_turns).order_by(route_turns.c.at.desc()).limit(max(1, limit))
        async with self._connections.read() as connection:
            rows = (await connection.execute(query)).all()
        return [_turn(row) for row in rows]

    async def recent_conversations(
        self, limit: int = 20, collection: str | None = None
    ) -> list[ConversationRecord]:
        """The conversations with the newest turns first."""
        query = (
            select(route_conversations).order_by(route_conversations.c.last_at.desc()).limit(max(1, limit))
        )
        if collection is not None:
            query = query.where(route_conversations.c.collection == collection)
        async with self._connections.read() as connection:
            rows = (await connection.execute(query)).all()
        return [_conversation(dict(row._mapping)) for row in rows]

    async def by_id(self, conversation: str) -> ConversationRecord | None:
        query = select(route_conversations).where(route_conversations.c.id == conversation)
        async with self._connections.read() as connection:
            row = (await connection.execute(query)).first()
        return None if row is None else _conversation(dict(row._mapping))


def _conversation_values(conversation: ConversationRecord) -> dict[str, Any]:
    return {
        "key": conversation.key,
        "id": conversation.id,
        "collection": conversation.collection,
        "caller": conversation.caller,
        "alias": conversation.alias,
        "answered_by": list(conversation.answered_by),
        "turns": conversation.turns,
        "started_at": conversation.started_at,
        "last_at": conversation.last_at,
    }


def _turn_values(turn: TurnRecord) -> dict[str, Any]:
    return {
        "call": turn.call,
        "conversation": turn.conversation,
        "turn": turn.turn,
        "at": turn.at,
        "collection": turn.collection,
        "caller": turn.caller,
        "alias": turn.alias,
        "status": turn.status,
        "seconds": turn.seconds,
        "first_token_s": turn.first_token_s,
        "tool_calls": turn.tool_calls,
        "finish": turn.finish,
        "tokens_in": turn.tokens_in,
        "tokens_out": turn.tokens_out,
        "tokens_reasoning": turn.tokens_reasoning,
        "tried": [dict(t) for t in turn.tried],
        "error": turn.error,
        "purpose": turn.purpose,
        "answer": turn.answer,
    }


def _add_evidence(connection: Connection, turn: TurnRecord, call: str, model_id: int, *, source: str) -> None:
    """One judgeable answer of `turn`'s model (kept as it was if another process wrote it first)."""
    row = {
        "call": call,
        "model_id": model_id,
        "source": source,
        "collection": turn.collection,
        "shape": None,
        "at": turn.at,
        "status": "ok",
    }
    insert_rows(connection, evidence, [row], on_conflict=())


def _conversation(row: Mapping[str, Any]) -> ConversationRecord:
    return ConversationRecord(
        key=row["key"],
        id=row["id"],
        collection=row["collection"],
        caller=row["caller"],
        alias=row["alias"],
        answered_by=tuple(row["answered_by"]),
        turns=row["turns"],
        started_at=row["started_at"],
        last_at=row["last_at"],
    )


def _turn(row: Any) -> TurnRecord:
    return TurnRecord(
        call=row.call,
        conversation=row.conversation,
        turn=row.turn,
        at=row.at,
        collection=row.collection,
        caller=row.caller,
        alias=row.alias,
        status=row.status,
        seconds=row.seconds,
        first_token_s=row.first_token_s,
        tool_calls=row.tool_calls,
        finish=row.finish,
        tokens_in=row.tokens_in,
        tokens_out=row.tokens_out,
        tokens_reasoning=row.tokens_reasoning,
        tried=tuple(row.tried),
        error=row.error,
        purpose=row.purpose,
        answer=row.answer,
    )
