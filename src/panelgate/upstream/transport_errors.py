"""The outbound transport's errors, apart so the pool, the dialer and the proxy tunnel share them.

    TransportError        the connection failed (`timed_out`: the connect timeout passed)
     ├── BadRequest       the request could never be sent: not an http(s) URL, a header
     │                    holding a line break, a proxy of a kind the pool cannot use
     └── ProxyRefused     the proxy answered with a refusal (`status`): missing or wrong
                          credentials, a destination its rules forbid, a host it could not reach

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


class ProxyRefused(TransportError):
    """The proxy refused to carry the request, with `status` (0 when its reply was not HTTP)."""

    def __init__(self, message: str, *, status: int) -> None:
        super().__init__(message)
        self.status = status

    @property
    def lasting(self) -> bool:
        """A refusal the same request would get again (credentials, the proxy's rules), unlike a 502 or
        503 for a destination the proxy could not reach this time."""
        return self.status in (401, 403, 407)
