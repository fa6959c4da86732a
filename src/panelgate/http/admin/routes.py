"""Route conversations on the record: the newest ones, and one with every turn (never the prompt)."""

from __future__ import annotations

from datetime import datetime
from typing import Literal

from fastapi import APIRouter, Request
from pydantic import BaseModel, Field
from starlette.responses import Response

from panelgate.core.errors import NotFound
from panelgate.http.admin.shapes import plain
from panelgate.http.responses import json_response
from panelgate.http.services import services

router = APIRouter()


class ConversationShown(BaseModel):
    key: str
    id: str
    collection: str
    caller: str
    alias: str = Field(description="the model it sticks to: the one that answered its last turn")
    answered_by: list[str] = Field(description="every model that answered a turn, in order")
    turns: int
    started_at: datetime
    last_at: datetime


class TurnShown(BaseModel):
    call: str
    conversation: str
    turn: int
    at: datetime
    collection: str
    caller: str
    alias: str
    status: str
    seconds: float
    first_token_s: float | None
    tool_calls: int
    finish: str | None
    tokens_in: int | None
    tokens_out: int | None
    tokens_reasoning: int | None
    tried: list[dict[str, str]] = Field(description="members that failed first: `alias` and `error` each")
    error: str
    purpose: Literal["turn", "shadow"]
    answer: str = Field(description="kept for shadows only")


class Conversation(BaseModel):
    conversation: ConversationShown | None
    turns: list[TurnShown]


class RecentConversations(BaseModel):
    conversations: list[ConversationShown]


@router.get("/routes", response_model=RecentConversations)
async def recent_conversations(request: Request, limit: int = 20, collection: str | None = None) -> Response:
    """The conversations with the newest turns first (`limit` 1–200)."""
    found = await services(request).db.routes.recent_conversations(
        limit=max(1, min(limit, 200)), collection=collection
    )
    return json_response({"conversations": plain(found)})


@router.get("/routes/{conversation}", response_model=Conversation)
async def show_conversation(request: Request, conversation: str) -> Response:
    db = services(request).db
    found = await db.routes.by_id(conversation)
    turns = await db.routes.turns(conversation)
    if found is None and not turns:
        raise NotFound(f"no route conversation `{conversation}` is recorded", param="conversation")
    return json_response({"conversation": None if found is None else plain(found), "turns": plain(turns)})
