"""One Redis client per gateway process: its key prefix, its start-up check, and how its failures read.

Every Redis command of the shared state goes through `RedisLink.run`, so a
Redis that is down or stuck fails the call it serves at once with one
clear error (`SharedStateUnavailable`, a 503 in the caller's API shape)
instead of a hang or a stack trace: each command may take
`PANELGATE_REDIS_TIMEOUT_S`, a dropped connection is retried once with no
pause, a timeout is never retried (a counter might then count twice).
Redis is named in errors and logs by `redis_address`: the URL without its
password (nor a query string, where one may also travel).
"""

from __future__ import annotations

from collections.abc import Awaitable
from typing import TypeVar
from urllib.parse import urlsplit

from redis.asyncio import Redis
from redis.asyncio.retry import Retry
from redis.backoff import NoBackoff
from redis.commands.core import AsyncScript
from redis.exceptions import AuthenticationError, RedisError
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError

from panelgate.store.shared.unavailable import SharedStateUnavailable

T = TypeVar("T")

MAX_REASON_CHARS = 200


def redis_address(url: str) -> str:
    """`url` as it may be shown: scheme, user, host, port and path, never a password or a query."""
    parts = urlsplit(url)
    host = parts.hostname or ""
    if ":" in host:
        host = f"[{host}]"
    try:
        port = parts.port
    except ValueError:  # not a number: shown as nothing rather than as a guess
        port = None
    netloc = host if port is None else f"{host}:{port}"
    if parts.username:
        netloc = f"{parts.username}@{netloc}"
    return f"{parts.scheme}://{netloc}{parts.path}"


class RedisLink:
    """The process's Redis client; `key(...)` names a key under this bench's prefix."""

    def __init__(self, client: Redis, address: str, prefix: str) -> None:
        self.client = client
        self.address = address
        self._prefix = prefix

    @classmethod
    async def connect(cls, url: str, *, prefix: str, timeout_s: float) -> RedisLink:
        """A link to Redis at `url` that answered a PING; raises `SharedStateUnavailable` saying why not."""
        address = redis_address(url)
        try:
            client = Redis.from_url(
                url,
                socket_timeout=timeout_s,
                socket_connect_timeout=timeout_s,
                retry=Retry(NoBackoff(), 1, supported_errors=(RedisConnectionError,)),
            )
        except ValueError:
            raise SharedStateUnavailable(
                f"PANELGATE_REDIS_URL is not a Redis URL (redis://, rediss:// or unix://): {address}"
            ) from None
        try:
            await client.ping()
        except AuthenticationError as exc:
            await client.aclose()
            raise SharedStateUnavailable(
                f"PANELGATE_REDIS_URL names {address}, which refused the gateway ({_reason(exc)}): "
                "check the user and password in PANELGATE_REDIS_URL"
            ) from None
        except RedisError as exc:
            await client.aclose()
            raise SharedStateUnavailable(
                f"PANELGATE_REDIS_URL names {address}, which did not answer ({_reason(exc)}): start Redis "
                "there, or unset PANELGATE_REDIS_URL to keep the shared state in the database"
            ) from None
        return cls(client, address, prefix)

    def key(self, *parts: object) -> str:
        return ":".join((self._prefix, *(str(part) for part in parts)))

    def script(self, lua: str) -> AsyncScript:
        """A Lua script run by its digest (loaded again by the client when Redis has forgotten it)."""
        return self.client.register_script(lua)

    async def run(self, pending: Awaitable[T]) -> T:
        """Await one Redis command (or script, or transaction); its failure as `SharedStateUnavailable`."""
        try:
            return await pending
        except RedisError as exc:
            raise self._unavailable(exc) from exc

    def _unavailable(self, exc: RedisError) -> SharedStateUnavailable:
        where = f"the gateway's shared state (Redis at {self.address})"
        if isinstance(exc, RedisConnectionError | RedisTimeoutError):
            return SharedStateUnavailable(
                f"{where} is unreachable ({_reason(exc)}); calls that need it fail until it answers"
            )
        return SharedStateUnavailable(f"{where} refused a command: {_reason(exc)}")

    async def close(self) -> None:
        await self.client.aclose()


def _reason(exc: Exception) -> str:
    return (str(exc) or type(exc).__name__)[:MAX_REASON_CHARS]
