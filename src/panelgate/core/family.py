"""A model's family: what two served ids share when they are the same weights.

The same open model is often served by several endpoints under slightly
different names (`meta-llama/Llama-3.3-70B-Instruct:free`,
`llama-3.3-70b-instruct`). Seating never puts two of one family on a panel,
because two copies of one model agreeing is not two opinions.
"""

from __future__ import annotations

from functools import lru_cache

_DROPPED_TAGS = (":free", ":latest")
_SEPARATORS = str.maketrans("", "", "-_.")


@lru_cache(maxsize=4096)
def family(served_id: str) -> str:
    """The served id's last path segment, lower-cased, without `:free`/`:latest` or `-_.`.

    Remembered: seating asks it for every candidate of every panel, and a
    bench has a few hundred served ids at most.
    """
    name = served_id.strip().rsplit("/", 1)[-1].lower()
    for tag in _DROPPED_TAGS:
        name = name.removesuffix(tag)
    return name.translate(_SEPARATORS)
