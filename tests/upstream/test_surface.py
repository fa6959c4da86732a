"""The upstream room's public surface is what `panelgate.upstream` re-exports, and all of it exists."""

from __future__ import annotations

import panelgate.upstream as upstream


def test_every_exported_name_exists():
    assert all(hasattr(upstream, name) for name in upstream.__all__)
    assert {"UpstreamClient", "Target", "ChatResult", "KeyStore", "UpstreamError"} <= set(upstream.__all__)
