"""Serving a panel in one inbound format: decode, start, reply whole or streamed.

Every API format's route ends here, so the rules of SPEC §4 hold for all of
them: a refusal before seating keeps its status; once seated the 200 goes out
at once and the rest streams as it happens; a caller that hangs up stops
reading, not the panel.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any

from starlette.requests import Request
from starlette.responses import Response

from panelgate.core.errors import error_for_status
from panelgate.core.route import RouteRequest
from panelgate.core.types import Failed, PanelRequest
from panelgate.engine.entry import Asked, StartedTurn
from panelgate.formats.client_session import client_session
from panelgate.formats.protocol import ApiAdapter
from panelgate.formats.request_fields import read_bench_field, read_model, with_header_deadline
from panelgate.http.body import read_json_object
from panelgate.http.key_scope import caller_scope
from panelgate.http.responses import StreamedReply, json_response
from panelgate.http.route_reply import answer_route
from panelgate.http.services import services

STREAM_HEADERS = {"Cache-Control": "no-cache", "X-Accel-Buffering": "no"}


def caller_of(request: Request) -> str:
    """Who is asking: the gateway key's name, or `local` when no key was needed or sent."""
    return str(getattr(request.state, "caller", "local"))


async def answer_panel(
    request: Request,
    api: ApiAdapter,
    *,
    model: str | None = None,
    model_name: Callable[[str], str] = str.strip,
    untyped: bool = False,
) -> Response:
    """A panel, or a route turn when the request asks for one, read and answered in `api`'s shape.

    `model` is the model the path names, for APIs that put it there (Gemini);
    `model_name` reads a body's model the way the API's adapter does (Ollama
    clients add `:latest`); `untyped` takes a JSON body sent without a JSON
    type, as Ollama's clients do.
    """
    svc = services(request)
    body = await read_json_object(request, svc.settings.max_body_bytes, untyped=untyped)
    asked_either_way = _asked(request, body, api, model, model_name)
    started = await svc.entry.start(asked_either_way, caller_scope(request))
    if isinstance(started, StartedTurn):
        return await answer_route(api, started)
    asked, run = started.request, started.run
    headers = {"X-Bench-Panel": run.panel}
    if asked.stream:
        return StreamedReply(
            api.stream(asked, run.events()),
            media_type=api.stream_media_type,
            headers={**STREAM_HEADERS, **headers},
        )
    events = await run.collect()
    last = events[-1]
    if isinstance(last, Failed):
        return json_response(
            api.error_body(error_for_status(last.status, last.message)), last.status, headers
        )
    return json_response(api.render(asked, events), 200, {**headers, **api.reply_headers(events)})


def _asked(
    request: Request,
    body: dict[str, Any],
    api: ApiAdapter,
    model: str | None,
    model_name: Callable[[str], str],
) -> Asked:
    """The request as this API reads it, either way; the engine decides which way it is answered."""

    def as_panel(caller: str) -> PanelRequest:
        return with_header_deadline(api.decode(body, caller=caller), request.headers.get("x-bench-deadline"))

    def as_route(caller: str) -> RouteRequest:
        turn = api.decode_route(body, caller=caller)
        return replace(turn, session=client_session(request.headers, body))

    asked_model = model if model is not None else model_name(read_model(body))
    return Asked(asked_model, read_bench_field(body), as_panel, as_route)
