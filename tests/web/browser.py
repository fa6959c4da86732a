"""Debian's Chromium driven by Playwright, watching every page for console errors and foreign requests.

A dashboard page must load nothing but the app's own files and log no
error; `Watched` records both as they happen and `check()` fails the test
with what it saw. Chromium is launched with the flags that keep it off the
network on its own (updates, sync, first-run pings).
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlsplit

from playwright.sync_api import Browser, ConsoleMessage, Page, Playwright, Request, sync_playwright

CHROMIUM_FLAGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
DESKTOP = {"width": 1280, "height": 900}
PHONE = {"width": 390, "height": 844}


def chromium_path() -> str:
    """Debian's Chromium (`apt-get install chromium`; scripts/test installs it when run as root)."""
    found = (
        os.environ.get("PANELGATE_CHROMIUM") or shutil.which("chromium") or shutil.which("chromium-browser")
    )
    if not found:
        raise RuntimeError("no Chromium: run `apt-get install chromium` (scripts/test does it as root)")
    return found


@contextmanager
def chromium() -> Iterator[Browser]:
    with sync_playwright() as playwright:
        browser = _launch(playwright)
        try:
            yield browser
        finally:
            browser.close()


def _launch(playwright: Playwright) -> Browser:
    return playwright.chromium.launch(executable_path=chromium_path(), args=CHROMIUM_FLAGS)


@dataclass
class Watched:
    """A page of the app at `origin`, with what went wrong on it so far."""

    page: Page
    origin: str
    errors: list[str] = field(default_factory=list)
    foreign: list[str] = field(default_factory=list)

    def _console(self, message: ConsoleMessage) -> None:
        if message.type == "error":
            self.errors.append(message.text)

    def _request(self, request: Request) -> None:
        parts = urlsplit(request.url)
        if parts.scheme in ("data", "blob", "about"):
            return
        if f"{parts.scheme}://{parts.netloc}" != self.origin:
            self.foreign.append(request.url)

    def check(self) -> None:
        assert not self.errors, f"console errors: {self.errors}"
        assert not self.foreign, f"requests to other hosts: {self.foreign}"


@contextmanager
def watched_page(
    browser: Browser, origin: str, *, viewport: dict[str, int] = DESKTOP, theme: str = "light"
) -> Iterator[Watched]:
    """A fresh browser context at `viewport`, preferring `theme`; checked when the block ends."""
    context = browser.new_context(viewport=viewport, color_scheme=theme)  # type: ignore[arg-type]
    page = context.new_page()
    watched = Watched(page, origin)
    page.on("console", watched._console)
    page.on("pageerror", lambda error: watched.errors.append(str(error)))
    page.on("request", watched._request)
    try:
        yield watched
        watched.check()
    finally:
        context.close()


def screenshot_dir() -> Path | None:
    """Where page screenshots go when asked for (`PANELGATE_SCREENSHOTS`); None when they are not.

    A full-page screenshot costs more than the page's checks, so runs that
    only check (CI) take none."""
    wanted = os.environ.get("PANELGATE_SCREENSHOTS")
    if not wanted:
        return None
    folder = Path(wanted)
    folder.mkdir(parents=True, exist_ok=True)
    return folder
