"""An upstream request's JSON body, in a bytes object of its own size.

orjson writes into a 4 KiB buffer and hands that buffer back as the bytes
object, so a 200-byte body holds a 4 KiB allocation (and a page of memory)
for as long as it is kept. A call keeps its body from seating until its
answer ends, and under the per-host connection cap a crowd's calls wait in
line with theirs: 3,000 seats held 12 MiB of such buffers. Copying the body
to its size costs about 0.1 µs.
"""

from __future__ import annotations

from typing import Any

import orjson


def request_json(value: Any) -> bytes:
    return memoryview(orjson.dumps(value)).tobytes()
