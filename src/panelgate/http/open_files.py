"""Room for connections: `serve` raises its soft limit on open files to the hard limit.

Many systems start a process allowed 1,024 open files (the soft limit)
though it may ask for far more (the hard limit). A gateway holds a socket
per client and per upstream connection (up to `upstream_connections_per_host`
to each host), so a crowd of a thousand streamed panels needs more than
1,024; past the limit new clients wait while the listener rests
(`eager_accept`). The soft limit is raised as far as the hard one allows,
to at most `CEILING`, and never lowered.
"""

from __future__ import annotations

import logging
import resource

log = logging.getLogger(__name__)

CEILING = 1 << 16


def raise_open_files_limit() -> int:
    """Raise the soft limit on open files; returns the limit now in force."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    wanted = CEILING if hard == resource.RLIM_INFINITY else min(hard, CEILING)
    if soft == resource.RLIM_INFINITY or soft >= wanted:
        return soft
    try:
        resource.setrlimit(resource.RLIMIT_NOFILE, (wanted, hard))
    except (ValueError, OSError) as exc:
        log.warning("could not raise the open-files limit from %d to %d: %s", soft, wanted, exc)
        return soft
    log.info("open files: up to %d (was %d)", wanted, soft)
    return wanted
