"""Settings: gateway keys (made and revoked through `/api/keys`), the scheduler (its mode and jobs, changed
through `/api/scheduler`), the theme, and the server's access state.

The keys and the scheduler are read by `http/dashboard/settings.py`. The
"server and access" table is read-only: those facts come from
`PANELGATE_*` when the process starts, so the page says what is in force
and which variable changes it. Whether keys are required is the access
policy's answer (the same object the guard checks), never worked out again
here. No secret is shown: the admin token only as "set", a database
password as `***`, a gateway key only by its hint.
"""

from __future__ import annotations

from dataclasses import dataclass

from fastapi import APIRouter, Request
from sqlalchemy.engine import make_url
from starlette.responses import HTMLResponse

from panelgate.http.access.policy import AccessPolicy
from panelgate.http.dashboard.settings import read_settings
from panelgate.http.services import services
from panelgate.settings import Settings
from panelgate.web.frame import THEME_COOKIE, render

router = APIRouter(include_in_schema=False)
SCHEDULER_MODES = (
    ("off", "Off", "Nothing runs on its own and nothing is sent (a fresh install starts here)."),
    ("log-only", "Log only", "Each job's due runs are recorded as “would run”; nothing is sent."),
    ("run", "Run", "Jobs run when due and send their calls, from one gateway process at a time."),
)
RUN_TONES = {"ok": "ok", "running": "empty", "would run": "skipped", "stopped": "skipped"}
"""A last run's outcome as a chip's tone; any other outcome (failed, timed out, abandoned) is an error."""
THEME_NOTES = {
    "system": "Follows the browser's preference",
    "light": "Dark text on a pale page",
    "dark": "Pale text on a deep grey page",
}


@dataclass(frozen=True)
class Fact:
    name: str
    value: str
    how: str = ""
    """The setting that changes it, when there is one."""


@router.get("/settings")
async def settings_page(request: Request) -> HTMLResponse:
    found = services(request)
    policy: AccessPolicy = request.app.state.login.policy
    shown = await read_settings(found)
    return await render(
        request,
        "settings",
        keys=shown.keys,
        spent=shown.spent,
        collections=shown.collections,
        theme_notes=THEME_NOTES,
        theme_cookie=THEME_COOKIE,
        server=server_and_access(found.settings, policy),
        scheduler=shown.scheduler,
        runner=shown.runner,
        modes=SCHEDULER_MODES,
        run_tones=RUN_TONES,
    )


def server_and_access(settings: Settings, policy: AccessPolicy) -> tuple[Fact, ...]:
    """What this process serves and who may reach it, in words; secrets never included."""
    keys_how = "PANELGATE_REQUIRE_KEYS"
    if not policy.keys_required:
        keys = "not required: loopback only, so callers on this machine need no key"
    elif settings.require_keys:
        keys = "required on every gateway call (PANELGATE_REQUIRE_KEYS is set)"
    else:
        keys, keys_how = "required on every gateway call (the gateway serves off loopback)", "PANELGATE_BIND"
    if policy.admin_token:
        login = "on: the dashboard and admin API ask for the admin token"
    else:
        login = "off: no admin token is set, which is allowed on loopback only"
    return (
        Fact("Bind address", settings.bind, "PANELGATE_BIND"),
        Fact("Port", str(settings.port), "PANELGATE_PORT"),
        Fact("Gateway processes", str(settings.workers), "PANELGATE_WORKERS"),
        Fact("Login", login, "PANELGATE_ADMIN_TOKEN"),
        Fact("Gateway keys", keys, keys_how),
        Fact("Public URL", settings.public_url or "not set", "PANELGATE_PUBLIC_URL"),
        Fact(
            "Allowed hosts",
            ", ".join(sorted(policy.hosts)) + ", and any IP address",
            "PANELGATE_ALLOWED_HOSTS",
        ),
        Fact(
            "Allowed origins",
            ", ".join(sorted(policy.origins)) or "none: only this gateway's own pages",
            "PANELGATE_ALLOWED_ORIGINS",
        ),
        Fact("Data folder", str(settings.data_dir), "PANELGATE_HOME"),
        Fact(
            "Database",
            make_url(settings.sqlalchemy_url).render_as_string(hide_password=True),
            "PANELGATE_DATABASE_URL",
        ),
    )
