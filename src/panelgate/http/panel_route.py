"""Serving a panel in one inbound format: decode, start, reply whole or streamed.

Every API format's route ends here, so the rules of SPEC §4 hold for all of
them: a refusal before seating keeps its status; once seated the 200 goes out
at once and the rest streams as it happens; a caller that hangs up stops
reading, not the panel.
"""

from __future__ import annotations

from collections.abc import Callable

from starlette.requests import Request
from starlette.responses import Response

from panelgate.core.errors import error_for_status
from panelgate.core.types import Failed
from panelgate.engine.reply_mode import reply_mode
from panelgate.formats.protocol import InboundFormat
from panelgate.formats.request_fields import read_bench_field, read_model
from panelgate.formats.route_protocol import RouteFormat
from panelgate.http.body import read_json_object
from panelgate.http.key_scope import check_collection, check_nominees
from panelgate.http.responses import StreamedReply, json_response
from panelgate.http.route_reply import answer_route
from panelgate.http.services import services

STREAM_HEADERS = {"Cache-Control": "no-cache", "X-Accel-Buffering": "no"}


def caller_of(request: Request) -> str:
    """Who is asking: the gateway key's name, or `local` when no key was needed or sent."""
    return str(getattr(request.state, "caller", "local"))


async def answer_panel(
    request: Request,
    fmt: InboundFormat,
    route: RouteFormat | None = None,
    *,
    model: str | None = None,
    model_name: Callable[[str], str] = str.strip,
    untyped: bool = False,
) -> Response:
    """A panel, or a route turn when the request asks for one and `route` can read it.

    `model` is the model the path names, for APIs that put it there (Gemini);
    `model_name` reads a body's model the way the API's adapter does (Ollama
    clients add `:latest`); `untyped` takes a JSON body sent without a JSON
    type, as Ollama's clients do.
    """
    svc = services(request)
    body = await read_json_object(request, svc.settings.max_body_bytes, untyped=untyped)
    if route is not None:
        asked_model = model if model is not None else model_name(read_model(body))
        if await reply_mode(svc.db, asked_model, read_bench_field(body)) == "route":
            return await answer_route(request, fmt, route, body, caller_of(request))
    asked = fmt.decode(body, caller=caller_of(request))
    check_collection(request, asked.collection)
    await check_nominees(request, asked.nominees)
    run = await svc.panels.start(asked)
    headers = {"X-Bench-Panel": run.panel}
    if asked.stream:
        return StreamedReply(
            fmt.stream(asked, run.events()),
            media_type=fmt.stream_media_type,
            headers={**STREAM_HEADERS, **headers},
        )
    events = await run.collect()
    last = events[-1]
    if isinstance(last, Failed):
        return json_response(
            fmt.error_body(error_for_status(last.status, last.message)), last.status, headers
        )
    return json_response(fmt.render(asked, events), 200, {**headers, **fmt.reply_headers(events)})
