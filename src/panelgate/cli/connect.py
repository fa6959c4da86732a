"""`panelgate connect [PROVIDER]`: sign in to a provider from a terminal and get an endpoint for it.

The sign-in runs on the server (`/api/connect/*`): this command starts it,
prints where to sign in (an address to open, or a device code and where to
enter it) and then asks the server every second how it stands until it is
connected, failed or expired. The provider sends the browser back to the
server at the address this command reached it by (or the server's
`PANELGATE_PUBLIC_URL`), so the address must be opened where that one
works; a device code works from any device. Without a provider the command
lists what the server can sign in to.

The token the sign-in wins stays on the server; nothing here ever sees it.
"""

from __future__ import annotations

from typing import Annotated, Any

import typer

from panelgate.cli.client import segment
from panelgate.cli.common import JsonFlag, Session, UrlOption, session
from panelgate.cli.failures import CliFailure, Refused, UsageProblem
from panelgate.cli.signin_wait import SigninWait, clock

LIST_HINT = "`panelgate connect --list` lists the providers"


def connect(
    ctx: typer.Context,
    provider: Annotated[
        str | None,
        typer.Argument(help="the provider to sign in to (none: list them)", show_default=False),
    ] = None,
    device: Annotated[
        bool, typer.Option("--device", help="sign in on another device with a code (where the provider can)")
    ] = False,
    endpoint: Annotated[
        str | None,
        typer.Option("--endpoint", help="the endpoint's name (default: the provider's)", show_default=False),
    ] = None,
    client_id: Annotated[
        str | None,
        typer.Option(
            "--client-id", help="the client id of your own app with the provider", show_default=False
        ),
    ] = None,
    no_wait: Annotated[
        bool, typer.Option("--no-wait", help="print where to sign in and return without waiting")
    ] = False,
    list_providers: Annotated[
        bool, typer.Option("--list", help="list the providers and what they connect")
    ] = False,
    follow: Annotated[
        str | None,
        typer.Option(
            "--follow",
            metavar="SIGNIN",
            help="wait for a sign-in started earlier (its id, from --no-wait)",
            show_default=False,
        ),
    ] = None,
    as_json: JsonFlag = False,
    url: UrlOption = None,
) -> None:
    """Sign in to a provider (OpenRouter, Hugging Face, GitHub, Ollama…) and get an endpoint for it."""
    options = device or endpoint is not None or client_id is not None or no_wait
    if follow is not None and (provider is not None or options or list_providers):
        raise UsageProblem("--follow waits for a sign-in already started: it takes no provider or option")
    if (provider is None or list_providers) and options:
        raise UsageProblem("--device, --endpoint, --client-id and --no-wait need a PROVIDER to sign in to")
    if provider is not None and list_providers:
        raise UsageProblem("--list takes no provider; pick one")
    with session(ctx, url, as_json) as s:
        if follow is not None:
            _end(s, SigninWait(s, {"signin": follow}).run())
        elif provider is None or list_providers:
            _list(s)
        else:
            body = {"endpoint": endpoint, "client_id": client_id, "device": device or None}
            _sign_in(s, provider, {k: v for k, v in body.items() if v is not None}, wait=not no_wait)


def _sign_in(s: Session, provider: str, body: dict[str, Any], *, wait: bool) -> None:
    started = _start(s, provider, body)
    _tell(s, started)
    if started.get("status") != "pending":
        _end(s, started)
    elif wait:
        _end(s, SigninWait(s, started).run())
    else:
        s.output.note(
            f"not waiting: the sign-in stays open until {clock(started.get('expires_at'))}; "
            f"`panelgate connect --follow {started.get('signin')}` waits for it"
        )
        if s.as_json:
            s.output.json(started)


def _list(s: Session) -> None:
    found = s.client.call("GET", "/api/connect/providers")
    if s.as_json:
        s.output.json(found)
        return
    rows = [
        (
            p.get("name"),
            p.get("label"),
            p.get("flow"),
            p.get("device"),
            p.get("client_id"),
            p.get("connected"),
        )
        for p in found.get("providers", [])
    ]
    s.output.table(
        ("provider", "label", "flow", "device code", "client id", "connected"),
        rows,
        empty="this server offers no provider to sign in to",
    )


def _start(s: Session, provider: str, body: dict[str, Any]) -> dict[str, Any]:
    try:
        started: dict[str, Any] = s.client.call("POST", f"/api/connect/{segment(provider)}", body=body)
    except Refused as refused:
        if refused.status == 404 and "no route" not in refused.message:
            raise Refused(f"{refused.message} ({LIST_HINT})", refused.status) from None
        raise
    return started


def _tell(s: Session, started: dict[str, Any]) -> None:
    """Where to sign in: stdout for the address and code (the command's result), stderr for the words."""
    if started.get("status") != "pending":
        return
    if started.get("user_code"):
        s.output.note(f"On any device, open the address and enter the code ({_until(started)}):")
        pairs = [("open", started.get("verification_uri")), ("code", started.get("user_code"))]
    else:
        s.output.note(f"Open this address in a browser to sign in ({_until(started)}):")
        pairs = [("open", started.get("url"))]
    if s.as_json:
        for name, value in pairs:
            s.output.note(f"  {name}  {value}")
    else:
        s.output.fields(pairs)


def _until(started: dict[str, Any]) -> str:
    return f"the sign-in expires at {clock(started.get('expires_at'))}"


def _end(s: Session, signin: dict[str, Any]) -> None:
    """Connected: the endpoint on stdout. Anything else: exit 1 with the reason."""
    status = signin.get("status")
    if status == "connected":
        s.output.result(signin, f"connected: endpoint {signin.get('endpoint')}")
        return
    if status == "expired":
        raise CliFailure(
            f"not connected: the sign-in expired before it was finished; run `panelgate connect "
            f"{signin.get('provider')}` again"
        )
    raise CliFailure(f"not connected: {signin.get('error') or 'the provider refused the sign-in'}")
