"""One Chromium for the whole web test session; each test opens its own context.

Every test here is marked `browser`: CI runs them once, with the SQLite run
(the pages read the store through calls the rest of the suite runs on both
databases), and leaves them out of the PostgreSQL run.

They run after every other test: Playwright's synchronous API keeps an event
loop marked running in the main thread while Chromium is open, and an async
test after it could not start its own.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser

from tests.web.browser import chromium

HERE = Path(__file__).parent


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    in_browser = [item for item in items if HERE in Path(item.fspath).parents]
    for item in in_browser:
        item.add_marker(pytest.mark.browser)
    chosen = set(in_browser)
    items[:] = [item for item in items if item not in chosen] + in_browser


@pytest.fixture(scope="session")
def browser() -> Iterator[Browser]:
    with chromium() as launched:
        yield launched
