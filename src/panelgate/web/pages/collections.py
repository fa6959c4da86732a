"""Collections: the list and its editor, the gateway limits, and how to ask one.

The page shows the collections, the bench's models and the limits as
`http/dashboard/collections.py` reads them; the editor and the limits dialog
change them through the admin API (`/api/collections/{name}`,
`/api/settings/gateway`). The panels asked lately are on the Gateway page
(pages/gateway.py).
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from fastapi import APIRouter, Request
from starlette.responses import HTMLResponse

from panelgate.core.types import OFFERED_TOOLS, REPLY_MODES, SHAPES, VERDICTS_OWED
from panelgate.http.dashboard.collections import read_collections
from panelgate.http.services import services
from panelgate.web.frame import render

router = APIRouter(include_in_schema=False)
EXAMPLE_PROMPT = "When is a Python set faster than a list?"
REPLY_NOTES = {
    "all": "every seat's answer, side by side",
    "merged": "one answer, merged from the seats' answers by the merger",
    "route": "one model answers each turn; shadows answer too, for evaluation",
}
OFFERED_TOOLS_NOTES = {
    "drop": "left out: the panel answers in text and says so",
    "refuse": "refused, pointing to :route",
}
VERDICTS_OWED_NOTES = {
    "all": "every panel",
    "chats": "not a chat UI's background tasks (titles, tags, follow-ups)",
    "none": "no panel; answers can still be judged",
}


@dataclass(frozen=True)
class Snippet:
    title: str
    code: str


@router.get("/collections")
async def collections_page(request: Request) -> HTMLResponse:
    found = await read_collections(services(request))
    origin = str(request.base_url).rstrip("/")
    keys_required = request.app.state.login.policy.keys_required
    return await render(
        request,
        "collections",
        collections=found.collections,
        models=found.models,
        shapes=SHAPES,
        replies=REPLY_MODES,
        reply_notes=REPLY_NOTES,
        offered_tools={choice: OFFERED_TOOLS_NOTES[choice] for choice in OFFERED_TOOLS},
        verdicts_owed={choice: VERDICTS_OWED_NOTES[choice] for choice in VERDICTS_OWED},
        limits=found.limits,
        asks={c.name: ask_snippets(origin, c.name, keys_required) for c in found.collections},
        keys_required=keys_required,
        editor=found.editor,
    )


def ask_snippets(origin: str, name: str, keys_required: bool) -> tuple[Snippet, ...]:
    """How to ask `bench/<name>` at `origin` with curl, the OpenAI Python SDK and the CLI.

    When keys are required every snippet reads the key from `PANELGATE_KEY` (the CLI does so itself).
    """
    body = json.dumps({"model": f"bench/{name}", "messages": [{"role": "user", "content": EXAMPLE_PROMPT}]})
    key_header = '  -H "Authorization: Bearer $PANELGATE_KEY" \\\n' if keys_required else ""
    api_key = 'os.environ["PANELGATE_KEY"]' if keys_required else '"none"'
    curl = (
        f"curl {origin}/v1/chat/completions \\\n"
        '  -H "Content-Type: application/json" \\\n'
        f"{key_header}"
        f"  -d '{body}'"
    )
    sdk = (
        ("import os\n\n" if keys_required else "")
        + "from openai import OpenAI\n\n"
        + f'client = OpenAI(base_url="{origin}/v1", api_key={api_key})\n'
        "reply = client.chat.completions.create(\n"
        f'    model="bench/{name}",\n'
        f'    messages=[{{"role": "user", "content": "{EXAMPLE_PROMPT}"}}],\n'
        ")\n"
        "print(reply.choices[0].message.content)"
    )
    cli = f'PANELGATE_URL={origin} panelgate ask {name} "{EXAMPLE_PROMPT}"'
    return (Snippet("curl", curl), Snippet("Python (OpenAI SDK)", sdk), Snippet("panelgate CLI", cli))
