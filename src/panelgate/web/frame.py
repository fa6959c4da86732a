"""The frame every page shares: the sidebar, the theme, the first-run banner, and how a page renders.

A page module says which template it fills and with what; `render` adds
the frame's own facts and the headers every page carries. The Content
Security Policy lets a page load nothing but this app's own files, which is
also what keeps it working offline.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from starlette.requests import Request
from starlette.responses import HTMLResponse

from panelgate import __version__
from panelgate.http.dashboard.first_run import first_run
from panelgate.http.services import services

if TYPE_CHECKING:
    from starlette.templating import Jinja2Templates

HERE = Path(__file__).parent
STATIC_DIR = HERE / "static"
THEMES = ("system", "light", "dark")
THEME_COOKIE = "panelgate_theme"
PAGE_HEADERS = {
    "Content-Security-Policy": (
        "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; "
        "connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'"
    ),
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "same-origin",
    "Cache-Control": "no-store",
}


@cache
def templates() -> Jinja2Templates:
    """The pages' templates, loaded by the first page asked for (Jinja is 2 MB a gateway may never use)."""
    from starlette.templating import Jinja2Templates

    return Jinja2Templates(directory=HERE / "templates")


@dataclass(frozen=True)
class PageLink:
    slug: str
    title: str
    at: str | None = None
    """Its address when that is not `/<slug>` (the home page is `/`)."""

    @property
    def path(self) -> str:
        return self.at or f"/{self.slug}"


NAV = (
    PageLink("glance", "At a glance", "/"),
    PageLink("gateway", "Gateway"),
    PageLink("judge", "Judge"),
    PageLink("record", "Record"),
    PageLink("collections", "Collections"),
    PageLink("models", "Models"),
    PageLink("endpoints", "Endpoints"),
    PageLink("discover", "Discover"),
    PageLink("benchmarks", "Benchmarks"),
    PageLink("quotas", "Quotas"),
    PageLink("activity", "Activity"),
    PageLink("settings", "Settings"),
    PageLink("logs", "Logs"),
    PageLink("info", "Info"),
)


def theme_of(request: Request) -> str:
    chosen = request.cookies.get(THEME_COOKIE, "system")
    return chosen if chosen in THEMES else "system"


async def render(request: Request, slug: str, **context: Any) -> HTMLResponse:
    """The page `slug` (its template is `<slug>.html`) inside the frame."""
    found = services(request)
    page = next(link for link in NAV if link.slug == slug)
    frame = {
        "nav": NAV,
        "page": page,
        "version": __version__,
        "theme": theme_of(request),
        "themes": THEMES,
        "first_run": await first_run(found),
        "login": found.settings.admin_token is not None,
    }
    template = f"{slug}.html"
    return templates().TemplateResponse(request, template, {**frame, **context}, headers=PAGE_HEADERS)
