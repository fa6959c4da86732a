"""The clients' configuration, read from docs/agents.md, so the doc says what CI tested.

A block the tests use is marked by an HTML comment on the line before its
fence, `<!-- tested: NAME -->`, which a reader of the rendered page never
sees. Its address, `http://127.0.0.1:8122` as a person would run the gateway,
is replaced by the test gateway's.
"""

from __future__ import annotations

import re
import shlex

from tests.agents.clients import ROOT

DOC = ROOT / "docs" / "agents.md"
DOC_URL = "http://127.0.0.1:8122"
_BLOCK = re.compile(r"<!-- tested: ([\w-]+) -->\n```\w*\n(.*?)```", re.DOTALL)


def doc_block(name: str, url: str = DOC_URL) -> str:
    """The text of the block marked `name`, pointed at `url`."""
    blocks = dict(_BLOCK.findall(DOC.read_text(encoding="utf-8")))
    assert name in blocks, f"docs/agents.md has no fenced block after `<!-- tested: {name} -->`"
    return str(blocks[name]).replace(DOC_URL, url)


def exports(block: str) -> dict[str, str]:
    """The `export NAME=value` lines of a shell block, as an environment."""
    found: dict[str, str] = {}
    for line in block.splitlines():
        if line.startswith("export "):
            name, _, value = line.removeprefix("export ").partition("=")
            found[name.strip()] = " ".join(shlex.split(value, comments=True))
    assert found, f"no `export NAME=value` line in:\n{block}"
    return found
