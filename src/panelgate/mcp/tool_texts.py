"""What the MCP tools are called, what they take, and how they tell an agent to use a panel well.

An agent reads these words and nothing else before it calls a tool, so they
carry the practice: ask a collection for a second opinion, treat every
answer as a claim to verify before acting on it, name the seat whose point
is used, and send a verdict per seat judged so the bench learns.
"""

from __future__ import annotations

from typing import Any

import orjson
from mcp import types

from panelgate.core.types import SHAPES
from panelgate.engine.verdict_desk import CALL_EXAMPLE, MAX_NOTE, SOURCE_PATTERN
from panelgate.store.verdict_rules import MAX_BETTER_THAN
from panelgate.store.verdicts import MAX_CLAIMS

INSTRUCTIONS = """\
panelgate asks a collection of models (a panel) at once and returns every answer side by side, \
each with a call id.
Use it for a second opinion on a review, a design, a bug hunt or a claim you are unsure of:
1. `list_collections` shows which collections exist and what each is for.
2. `ask` a collection; a panel takes seconds to minutes, and progress arrives while it runs.
3. Treat every answer as a claim: verify it against the code or the facts before acting on it. \
Panels disagree, and a confident answer can be invented.
4. When you use a point, name the seat it came from (its seat label and model alias).
5. For each seat you checked, send `verdict` with its call id: useful or not, and the claims \
you verified as real or found false. `pending_verdicts` lists the seats still waiting.
Verdicts decide which models sit on the next panel; `record` shows what they say of each model, per \
shape of work (code, review, prose…)."""

_CLAIMS = {
    "type": "array",
    "items": {"type": "string", "maxLength": 1000},
    "maxItems": MAX_CLAIMS,
}

TOOLS = (
    types.Tool(
        name="list_collections",
        description=(
            "The collections you may ask: each with its members, what it is for (description, tags, "
            "shape), its reply mode, and what every member has in common (the smallest context window, "
            "shared capabilities). Call this first to pick a collection for `ask`."
        ),
        input_schema={"type": "object", "properties": {}, "additionalProperties": False},
    ),
    types.Tool(
        name="ask",
        description=(
            "Ask a panel: every member of the collection (and explorer seats) answers the same prompt "
            "at once. Returns every answer, each labelled with its seat, model alias and call id, then "
            "the seats as JSON. Include the code or text the panel must read in the prompt itself: the "
            "server never opens a file path. Verify each answer before acting on it, name the seat of "
            "every point you use, and send a `verdict` for each seat you checked."
        ),
        input_schema={
            "type": "object",
            "properties": {
                "collection": {
                    "type": "string",
                    "description": "a collection name from list_collections (`review` or `bench/review`)",
                },
                "prompt": {"type": "string", "description": "the question, with everything it needs"},
                "system": {"type": "string", "description": "optional system instructions for every seat"},
                "merged": {
                    "type": "boolean",
                    "description": "true: one merged answer written from every seat's answer",
                    "default": False,
                },
                "with": {
                    "type": "array",
                    "items": {"type": "string"},
                    "description": "model aliases to seat on the explorer seats",
                },
            },
            "required": ["collection", "prompt"],
            "additionalProperties": False,
        },
    ),
    types.Tool(
        name="verdict",
        description=(
            "Record whether one seat's answer was useful, after you verified it. `call` is the seat's "
            "call id from `ask`. List the claims you checked: `real` for those that held, `false` for "
            "those that did not (an invented line, a bug that is not there). When you compared the seats "
            "of one panel, name in `better_than` the call ids of the seats this answer beat. A seat that "
            "failed is not judged (failures count as health, not usefulness). A later verdict on the "
            "same call replaces the earlier one; fields left out keep their earlier value."
        ),
        input_schema={
            "type": "object",
            "properties": {
                "call": {"type": "string", "description": f"a seat's call id, e.g. {CALL_EXAMPLE}"},
                "useful": {"type": "boolean"},
                "note": {"type": "string", "maxLength": MAX_NOTE, "description": "why, in a sentence"},
                "real": {**_CLAIMS, "description": "claims of the answer you verified as true"},
                "false": {**_CLAIMS, "description": "claims of the answer you found false"},
                "better_than": {
                    "type": "array",
                    "items": {"type": "string"},
                    "maxItems": MAX_BETTER_THAN,
                    "description": "call ids of other seats of the same panel whose answers this one beat",
                },
                "source": {
                    "type": "string",
                    "pattern": SOURCE_PATTERN,
                    "description": "the agent you are, e.g. `claude-code`: people tell its verdicts apart",
                },
            },
            "required": ["call", "useful"],
            "additionalProperties": False,
        },
    ),
    types.Tool(
        name="pending_verdicts",
        description=(
            "The seats of your recent panels (the last day, newest first) that answered and have no "
            "verdict yet, with their call ids. Judge them with `verdict` before you finish."
        ),
        input_schema={"type": "object", "properties": {}, "additionalProperties": False},
    ),
    types.Tool(
        name="record",
        description=(
            "What the verdicts say: per shape of work (code, review, prose, quick…), each model's "
            "estimated share of useful answers with a 90% interval and the verdicts behind it, best "
            "first. Read it to choose models to name in `ask`'s `with`, or to weigh a seat's answer; "
            "a wide interval means few verdicts, so the rank is a guess."
        ),
        input_schema={
            "type": "object",
            "properties": {
                "collection": {
                    "type": "string",
                    "description": "only this collection's panels (`review` or `bench/review`); "
                    "left out: the whole bench",
                },
                "shape": {"type": "string", "enum": list(SHAPES), "description": "only this shape"},
            },
            "additionalProperties": False,
        },
    ),
)


def text(words: str) -> types.TextContent:
    return types.TextContent(type="text", text=words)


def refusal(words: str) -> types.CallToolResult:
    """A tool call that could not be done: the reason, for the agent to read."""
    return types.CallToolResult(content=[text(words)], is_error=True)


def answer(words: str, structured: dict[str, Any]) -> types.CallToolResult:
    """A tool's result: `words` for the agent to read, then the same facts as JSON.

    The JSON is also the structured result, for clients that read that instead.
    """
    return types.CallToolResult(
        content=[text(words), text(orjson.dumps(structured).decode())], structured_content=structured
    )
