"""What a panel does with tools: tools offered are not tools used.

Chat UIs attach their built-in tools to every chat (Open WebUI sends about
36: timestamps, notes, web search, ...), whether or not the person wants one
called. A panel answers in text and sends no seat any tools, so a request
that only *offers* tools is answered with them left out, and the reply's
`bench.note` says so. A conversation that already holds tool calls or tool
results is an agent's tool loop, which only one member can carry on: that is
refused pointing to `:route`, as is every offer when the collection says
`offered_tools: refuse`.
"""

from __future__ import annotations

from panelgate.core.errors import BadRequest
from panelgate.core.types import CollectionInfo, PanelRequest

TEXT_ONLY = "a panel answers with text only, so tools and tool calls are refused here"


def _route_advice(collection: str) -> str:
    return f"ask bench/{collection}:route to let one member call your tools"


def tools_left_out(request: PanelRequest, collection: CollectionInfo) -> str:
    """The note saying the offered tools were left out ("" when none were offered).

    Raises `BadRequest` (pointing to `:route`) for a tool history, and for tools
    offered to a collection that refuses them.
    """
    name = collection.name
    if request.tool_history:
        raise BadRequest(
            f"{TEXT_ONLY}: the conversation holds tool calls or tool results; {_route_advice(name)}",
            param="messages",
        )
    if not request.tools_offered:
        return ""
    if collection.offered_tools == "refuse":
        raise BadRequest(
            f"{TEXT_ONLY} (bench/{name} refuses tools offered to a panel); {_route_advice(name)}",
            param="tools",
        )
    count = request.tools_offered
    return (
        f"the request offered {count} tool{'s' if count != 1 else ''}, left out because a panel "
        f"answers in text: ask bench/{name}:route for one member to call them"
    )
