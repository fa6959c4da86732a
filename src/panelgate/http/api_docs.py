"""The API's documentation page, `/docs` (Swagger UI), working offline.

FastAPI's own page loads Swagger UI from a CDN, so on a gateway without
internet (the usual self-hosted case) it was blank. Here the same page loads
its script and style from this server: the files come from the
`fastapi-offline` package, a dependency, served under `/docs/assets/`. Only
its files are used, not its app class, so our app keeps its own
construction. ReDoc (`/redoc`) stays off: its page always loads its maker's
logo from the maker's site. The page, its assets and `/openapi.json` take
the same credential as the admin API (`http/access/paths.py`).
"""

from __future__ import annotations

from fastapi import FastAPI
from fastapi.openapi.docs import get_swagger_ui_html
from starlette.responses import HTMLResponse
from starlette.staticfiles import StaticFiles

PAGE = "/docs"
ASSETS = "/docs/assets"
ASSETS_PACKAGE = ("fastapi_offline", "static")
"""The package folder holding `swagger-ui-bundle.js` and `swagger-ui.css`."""
ICON = "/static/icon.svg"
SWAGGER_PARAMETERS = {"validatorUrl": None}
"""Swagger UI would otherwise send the document to a public validator for its badge."""


def install(app: FastAPI) -> None:
    """Add the page and its assets to `app`, made with `docs_url=None, redoc_url=None`."""
    openapi_url = app.openapi_url or "/openapi.json"
    title = f"{app.title} API"

    async def swagger_page() -> HTMLResponse:
        return get_swagger_ui_html(
            openapi_url=openapi_url,
            title=title,
            swagger_js_url=f"{ASSETS}/swagger-ui-bundle.js",
            swagger_css_url=f"{ASSETS}/swagger-ui.css",
            swagger_favicon_url=ICON,
            swagger_ui_parameters=SWAGGER_PARAMETERS,
        )

    app.add_api_route(PAGE, swagger_page, methods=["GET"], include_in_schema=False)
    app.mount(ASSETS, StaticFiles(packages=[ASSETS_PACKAGE]), name="docs-assets")
