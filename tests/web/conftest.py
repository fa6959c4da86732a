"""One Chromium for the whole web test session; each test opens its own context.

Every test here is marked `browser`: CI runs them once, with the SQLite run
(the pages read the store through calls the rest of the suite runs on both
databases), and leaves them out of the PostgreSQL run.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser

from tests.web.browser import chromium

HERE = Path(__file__).parent


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        if HERE in Path(item.fspath).parents:
            item.add_marker(pytest.mark.browser)


@pytest.fixture(scope="session")
def browser() -> Iterator[Browser]:
    with chromium() as launched:
        yield launched
