"""Route stickiness in Redis: which live conversation a turn belongs to, and whom it sticks to.

`route:<conversation key>` under the bench's prefix is a hash of `last` (the
conversation's last turn, ms since the epoch) and `record` (the
conversation as its database row has it, as JSON). The database still
keeps every turn and conversation row; this is only the lookup on every
turn's path (see `store.routes`).

Claiming a conversation before its first turn is answered is a Lua script
too: it writes only when no live conversation holds the key, and answers
with whichever record holds it then. Keeping a conversation after a turn is a Lua script: it writes only when
no later turn of the same conversation is kept already, and refreshes the
expiry, in one step. Turns of one conversation can finish at once (on one
process or several); each writes the database first and Redis after, so
their Redis writes can arrive in either order, and whichever it is, the
later turn is what the next one finds. The choice depends on the value
read, so a plain MULTI cannot make it, and WATCH would send the loser
round again only to find it should not write.

A conversation is live exactly as in the database: its last turn is not
older than the `live_since` the engine asks with. The expiry only lets
Redis forget conversations idle for long; it is set well past the
engine's idle limit (an hour), so that limit, not the expiry, decides.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

import orjson

from panelgate.store.records import ConversationRecord
from panelgate.store.shared.redis_link import RedisLink

FORGOTTEN_AFTER = timedelta(days=1)
"""How long after its last turn a conversation is dropped from Redis."""
MS = timedelta(milliseconds=1)

_KEEP_LATER = """
local kept = tonumber(redis.call('HGET', KEYS[1], 'last') or '-1')
if kept > tonumber(ARGV[1]) then
    return 0
end
redis.call('HSET', KEYS[1], 'last', ARGV[1], 'record', ARGV[2])
redis.call('PEXPIRE', KEYS[1], ARGV[3])
return 1
"""
"""KEYS[1]: the conversation; ARGV: its last turn (ms), its record, its expiry (ms). 1 if written."""


_CLAIM = """
local last = tonumber(redis.call('HGET', KEYS[1], 'last') or '-1')
if last >= tonumber(ARGV[1]) then
    return redis.call('HGET', KEYS[1], 'record')
end
redis.call('HSET', KEYS[1], 'last', ARGV[2], 'record', ARGV[3])
redis.call('PEXPIRE', KEYS[1], ARGV[4])
return ARGV[3]
"""
"""KEYS[1]: the conversation; ARGV: live since (ms), its start (ms), its record, its expiry (ms).
The record that holds the key afterwards: the live one kept already, else this one."""


class RedisStickyRoutes:
    def __init__(self, link: RedisLink) -> None:
        self._link = link
        self._keep_later = link.script(_KEEP_LATER)
        self._claim = link.script(_CLAIM)

    async def live(self, key: str, *, live_since: datetime) -> ConversationRecord | None:
        raw = await self._link.run(self._link.client.hget(self._link.key("route", key), "record"))
        if raw is None:
            return None
        conversation = _conversation(raw)
        return conversation if conversation.last_at >= live_since else None

    async def keep(self, conversation: ConversationRecord) -> None:
        last_ms = int(conversation.last_at.timestamp() * 1000)
        args: list[int | bytes] = [last_ms, orjson.dumps(conversation), int(FORGOTTEN_AFTER / MS)]
        keys = [self._link.key("route", conversation.key)]
        await self._link.run(self._keep_later(keys=keys, args=args))

    async def claim(self, conversation: ConversationRecord, *, live_since: datetime) -> ConversationRecord:
        since_ms = int(live_since.timestamp() * 1000)
        last_ms = int(conversation.last_at.timestamp() * 1000)
        expiry_ms = int(FORGOTTEN_AFTER / MS)
        args: list[int | bytes] = [since_ms, last_ms, orjson.dumps(conversation), expiry_ms]
        keys = [self._link.key("route", conversation.key)]
        return _conversation(await self._link.run(self._claim(keys=keys, args=args)))


def _conversation(raw: bytes | str) -> ConversationRecord:
    fields: dict[str, Any] = orjson.loads(raw)
    fields["answered_by"] = tuple(fields["answered_by"])
    fields["started_at"] = datetime.fromisoformat(fields["started_at"])
    fields["last_at"] = datetime.fromisoformat(fields["last_at"])
    return ConversationRecord(**fields)
