"""One route module per dashboard page; a new page is a module here, a template, and a `NAV` entry."""

from panelgate.web.pages import (
    activity,
    benchmarks,
    collections,
    discover,
    endpoints,
    gateway,
    home,
    info,
    judge,
    logs,
    models,
    quotas,
    record,
    settings,
)

ROUTERS = (
    home.router,
    collections.router,
    models.router,
    endpoints.router,
    discover.router,
    benchmarks.router,
    quotas.router,
    activity.router,
    settings.router,
    logs.router,
    info.router,
    gateway.router,
    judge.router,
    record.router,
)
