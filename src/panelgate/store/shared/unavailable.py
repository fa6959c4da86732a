"""The one error the shared state raises, kept apart from the Redis client so that naming it (as
pacing and the HTTP errors do) never loads redis-py: a gateway on the database alone never needs it."""

from panelgate.core.errors import Unavailable


class SharedStateUnavailable(Unavailable):
    """Redis, which keeps what the gateway processes share, did not answer (or refused a command)."""
