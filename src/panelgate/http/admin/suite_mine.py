"""`POST /api/suite/mine`: a judged panel's verified claims, written as draft claim tasks.

The caller sends the panel id and the files the panel was sent (the server
never kept them; `panelgate suite mine` sends what `panelgate ask -f`
kept). The answer says which tasks were written, which were already there
from an earlier mining, and anything worth a look before the drafts are
cleared (claims judged both ways, fixtures too large for small models).
"""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.exceptions import RequestValidationError
from pydantic import BaseModel, ConfigDict, Field, ValidationError
from starlette.responses import Response

from panelgate.http.body import json_body, read_json_object
from panelgate.http.responses import json_response
from panelgate.http.services import services
from panelgate.suite.mine import mine_panel
from panelgate.suite.mine_tasks import MinedTask, Truth

router = APIRouter()
MAX_BODY = 4_000_000
"""Room for a task's largest fixtures (400,000 bytes) however JSON escapes them."""
PANEL_ID = r"^[A-Za-z0-9][A-Za-z0-9._-]{0,199}$"


class MineAsked(BaseModel):
    """`POST /api/suite/mine`."""

    model_config = ConfigDict(extra="forbid", strict=True)

    panel: str = Field(pattern=PANEL_ID, description="the panel id a reply's `bench.panel` named")
    files: dict[str, str] = Field(
        default_factory=dict,
        description="the files the panel was sent: the path the models were shown → the file's text",
    )


class MinedShown(BaseModel):
    id: str
    claim: str
    truth: Truth = Field(description="the right first line: TRUE for a claim found real, FALSE for false")
    call: str = Field(description="the seat whose verdict verified the claim")
    alias: str
    draft: bool


class Mined(BaseModel):
    panel: str
    collection: str
    written: list[MinedShown] = Field(description="draft tasks written now")
    existing: list[MinedShown] = Field(description="mined before and left as they are")
    fixtures: list[str] = Field(description="the files each task attaches, under fixtures/")
    warnings: list[str]


@router.post("/suite/mine", response_model=Mined, openapi_extra=json_body(MineAsked))
async def mine(request: Request) -> Response:
    """Write one draft claim task per claim the panel's verdicts verified, fixtures the files sent."""
    body = await read_json_object(request, MAX_BODY)
    try:
        asked = MineAsked.model_validate(body)
    except ValidationError as exc:
        # the app's handler for FastAPI's own body errors words the refusal
        raise RequestValidationError([{**e, "loc": ("body", *e["loc"])} for e in exc.errors()]) from None
    svc = services(request)
    report = await mine_panel(svc.db, svc.settings.data_dir, asked.panel, asked.files)
    every = (*report.written, *report.existing)
    return json_response(
        {
            "panel": report.panel,
            "collection": report.collection,
            "written": [_shown(task) for task in report.written],
            "existing": [_shown(task) for task in report.existing],
            "fixtures": list(every[0].fixtures) if every else [],
            "warnings": list(report.warnings),
        }
    )


def _shown(task: MinedTask) -> dict[str, object]:
    return {
        "id": task.id,
        "claim": task.claim,
        "truth": task.truth,
        "call": task.call,
        "alias": task.alias,
        "draft": task.document["draft"],
    }
