"""The dashboard's template engine and markdown renderer load with the first page, not with the gateway."""

from __future__ import annotations

import subprocess
import sys

PROBE = """
import sys
import panelgate.http.app
print(sorted({m.split('.')[0] for m in sys.modules} & {'jinja2', 'markdown_it'}))
from panelgate.web.frame import templates
from panelgate.web.pages.gateway import answer_fragment
from panelgate.http.dashboard.gateway import SeatAnswer
templates()
print(answer_fragment(SeatAnswer(answer='**bold**', error='')))
print(sorted({m.split('.')[0] for m in sys.modules} & {'jinja2', 'markdown_it'}))
"""


def test_the_gateway_app_loads_without_jinja_or_markdown_it_and_the_first_page_loads_them() -> None:
    done = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    before, *fragment, after = done.stdout.strip().splitlines()
    assert before == "[]"
    assert "<strong>bold</strong>" in "".join(fragment)
    assert after == "['jinja2', 'markdown_it']"
