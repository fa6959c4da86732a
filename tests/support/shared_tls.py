"""One TLS context per set of arguments for every httpx client the test process makes.

httpx builds a new context for each client and loads the whole CA bundle into it: about 30 ms of
CPU. The tests make thousands of clients (`httpx.post`, each gateway's admin client, the official
SDKs), and CI runs on two cores, so that load was about an eighth of the suite's time. A context
is shared only between clients asking for the same verification, client certificate and
certificate environment, so a test that trusts its own CA still gets a context of its own.
"""

from __future__ import annotations

import functools
import os
import ssl
from typing import Any

import httpx._transports.default as httpx_transports

_CERTIFICATE_VARIABLES = ("SSL_CERT_FILE", "SSL_CERT_DIR")


def share_tls_contexts() -> None:
    """Have httpx's transports reuse a context built for the same arguments; calling again does nothing."""
    build = httpx_transports.create_ssl_context
    if isinstance(build, _SharedContexts):
        return
    httpx_transports.create_ssl_context = _SharedContexts(build)  # type: ignore[assignment]


class _SharedContexts:
    def __init__(self, build: Any) -> None:
        self._build = build
        self._built = functools.lru_cache(maxsize=64)(self._build_for)

    def __call__(self, verify: Any = True, cert: Any = None, trust_env: bool = True) -> ssl.SSLContext:
        environment = tuple(os.environ.get(name) for name in _CERTIFICATE_VARIABLES) if trust_env else ()
        try:
            return self._built(verify, cert, trust_env, environment)
        except TypeError:  # an argument that cannot be a key (a list, say): built afresh, as httpx does
            return self._build(verify=verify, cert=cert, trust_env=trust_env)

    def _build_for(
        self, verify: Any, cert: Any, trust_env: bool, _environment: tuple[str | None, ...]
    ) -> ssl.SSLContext:
        return self._build(verify=verify, cert=cert, trust_env=trust_env)
