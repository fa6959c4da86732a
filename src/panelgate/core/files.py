"""Writing a file whole or not at all.

The gateway's own files (provider keys, catalog copies, kept asked files, the
seed repository list) are read by other processes while being rewritten: a
reader must see the old text or the new, never half of one. mkstemp makes the
temporary file readable by its owner alone from the first byte, and the
rename keeps that mode.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path


def write_atomically(path: Path, body: bytes | str, *, durable: bool = False) -> None:
    """Replace `path` with `body` (text is UTF-8), creating private parent folders as needed.

    With `durable` the bytes reach the disk before the rename, for a file whose
    loss after a crash would lose something a person typed (keys)."""
    data = body.encode() if isinstance(body, str) else body
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(handle, "wb") as file:
            file.write(data)
            if durable:
                file.flush()
                os.fsync(file.fileno())
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
