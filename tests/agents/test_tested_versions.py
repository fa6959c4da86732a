"""docs/agents.md names the client versions CI tests: the ones scripts/clients installs."""

from __future__ import annotations

import re

from tests.agents.clients import ROOT
from tests.agents.doc import DOC


def test_the_doc_names_every_version_scripts_clients_installs():
    script = (ROOT / "scripts" / "clients").read_text(encoding="utf-8")
    pins = re.findall(r'"((?:@[\w-]+/)?[\w-]+(?:@|==)[\w.-]+)"', script)
    assert len(pins) == 4, f"expected the four clients' pins in scripts/clients, found {pins}"
    doc = DOC.read_text(encoding="utf-8")
    assert [pin for pin in pins if pin not in doc] == [], "docs/agents.md's table names other versions"
