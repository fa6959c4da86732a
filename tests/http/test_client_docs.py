"""Every snippet in docs/clients.md works against a real gateway, as written."""

from __future__ import annotations

import contextlib
import io
import re
from pathlib import Path

import pytest

from tests.http.helpers import ask, hello
from tests.support.gateway import Gateway
from tests.support.upstream import FakeUpstream

DOC = Path(__file__).resolve().parents[2] / "docs" / "clients.md"
DOC_URL = "http://127.0.0.1:8122"
DOC_CALL = "p20261130-101500-a1b2.member1"
SNIPPETS = re.findall(r"```python\n(.*?)```", DOC.read_text(encoding="utf-8"), flags=re.DOTALL)


def _run(snippet: str) -> str:
    printed, namespace = io.StringIO(), {}
    with contextlib.redirect_stdout(printed):
        exec(compile(snippet, str(DOC), "exec"), namespace)  # the doc's own code, as a reader would paste it
    for client in [namespace.get("client"), getattr(namespace.get("client"), "_client", None)]:
        if callable(getattr(client, "close", None)):
            client.close()  # a pasted script ends its process; the test process goes on
    return printed.getvalue()


@pytest.mark.parametrize("snippet", SNIPPETS, ids=[f"snippet{i + 1}" for i in range(len(SNIPPETS))])
def test_snippet_in_the_client_docs_works(bench: Gateway, upstream: FakeUpstream, snippet: str):
    assert DOC_URL in snippet, "every snippet talks to the gateway's documented address"
    call = ask(bench, hello()).json()["bench"]["seats"][0]["call"]
    printed = _run(snippet.replace(DOC_URL, bench.url).replace(DOC_CALL, call))
    if "/bench/verdict" in snippet:
        assert bench.api("POST", "/bench/pending", {"calls": [call]})["pending"] == []
    else:
        assert all(f"m{i}" in printed for i in (1, 2, 3)), printed
        asked = [r for r in upstream.requests if "2**61" in str(r.body["messages"])]
        assert {r.model for r in asked} == {"m1", "m2", "m3"}
