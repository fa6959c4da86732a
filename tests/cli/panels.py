"""Panels asked over real HTTP for the CLI's judging tests: the call ids a person would judge."""

from __future__ import annotations

import httpx

from tests.support.gateway import Gateway


def panel_calls(bench: Gateway, prompt: str = "hi") -> dict[str, str]:
    """Ask `bench/core` once; each seat's call id by its model's alias."""
    reply = httpx.post(
        f"{bench.url}/v1/chat/completions",
        timeout=60,
        json={"model": "bench/core", "messages": [{"role": "user", "content": prompt}]},
    )
    return {seat["alias"]: seat["call"] for seat in reply.json()["bench"]["seats"]}
