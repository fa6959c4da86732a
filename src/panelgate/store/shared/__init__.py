"""What every gateway process must see the same, kept where all of them see it.

Four things: the counts under hand-set rate rules (taken before each
upstream call), what providers stated about their limits, each gateway
key's requests this minute, and which member each live route conversation
sticks to. `protocols` names them as three interfaces (the first two are
one); the database implements them by default and Redis when
`PANELGATE_REDIS_URL` is set (`state` picks one at start). Everything a
person edits, and every record (turns, conversations, panels, the ledger),
stays in the database either way. redis-py is loaded only when Redis is.
"""

from panelgate.store.shared.unavailable import SharedStateUnavailable

__all__ = ["SharedStateUnavailable"]
