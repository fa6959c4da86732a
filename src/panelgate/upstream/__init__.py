"""Outbound calls to the endpoints that serve models.

The engine needs only what is re-exported here: a `Target` to call, the
pooled `UpstreamClient`, its `ChatResult`, the `KeyStore` secrets come from,
and the `UpstreamError` tree (`errors`) whose fields decide failover.
"""

from panelgate.upstream.client import ChatResult, OnText, Target, UpstreamClient
from panelgate.upstream.errors import (
    KINDS,
    Kind,
    UpstreamBadReply,
    UpstreamConnectError,
    UpstreamError,
    UpstreamStatusError,
    UpstreamTimeout,
    classify,
    redact,
)
from panelgate.upstream.keys import KeyFileError, KeyStore, env_name

__all__ = [
    "KINDS",
    "ChatResult",
    "KeyFileError",
    "KeyStore",
    "Kind",
    "OnText",
    "Target",
    "UpstreamBadReply",
    "UpstreamClient",
    "UpstreamConnectError",
    "UpstreamError",
    "UpstreamStatusError",
    "UpstreamTimeout",
    "classify",
    "env_name",
    "redact",
]
