"""The outbound transport's two errors, apart so the pool, the dialer and the proxy tunnel share them.

    TransportError        the connection failed (`timed_out`: the connect timeout passed)
     └── BadRequest       the request could never be sent: not an http(s) URL, a header
                          holding a line break, a proxy of a kind the pool cannot use

Messages name hosts and ports, never a proxy's user name or password.
"""

from __future__ import annotations


class TransportError(Exception):
    """The connection failed; `timed_out` when the connect timeout passed."""

    def __init__(self, message: str, *, timed_out: bool = False) -> None:
        super().__init__(message)
        self.timed_out = timed_out


class BadRequest(TransportError):
    """A request that cannot be sent: not an http(s) URL, a header holding a line break, an unusable proxy."""
