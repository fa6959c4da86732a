"""Which outbound API serves an endpoint's `api` value in route mode."""

from __future__ import annotations

from panelgate.upstream.anthropic_messages import AnthropicOutbound
from panelgate.upstream.gemini_generate import GeminiOutbound
from panelgate.upstream.openai_chunks import ChatOutbound
from panelgate.upstream.outbound import OutboundApi

_APIS: dict[str, OutboundApi] = {
    "chat": ChatOutbound(),
    "anthropic": AnthropicOutbound(),
    "gemini": GeminiOutbound(),
}


def outbound_api(api: str) -> OutboundApi | None:
    """The adapter for endpoints speaking `api`, or None when route mode cannot call them."""
    return _APIS.get(api)
