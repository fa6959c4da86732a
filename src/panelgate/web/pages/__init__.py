"""One route module per dashboard page; a new page is a module here, a template, and a `NAV` entry."""

from panelgate.web.pages import home, info, logs

ROUTERS = (home.router, info.router, logs.router)
