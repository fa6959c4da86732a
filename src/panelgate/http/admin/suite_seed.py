"""Seeding through the admin API: name a repository on the server's machine, then plant pairs in it.

`PUT /api/suite/repos/{name}` registers (or moves) a folder, `GET
/api/suite/repos` lists them, and `POST /api/suite/seed` writes new pairs
into the data folder's tasks and answers with what it wrote. The work runs
here, in the server, because the repository is read where the server runs;
the CLI only asks. Reading and parsing a repository is blocking work, so
it runs on a worker thread, never on the event loop.
"""

from __future__ import annotations

import asyncio
import secrets
from typing import Literal, TypeVar

from fastapi import APIRouter, Request
from fastapi.exceptions import RequestValidationError
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from panelgate.http.body import json_body, read_json_object
from panelgate.http.services import services
from panelgate.suite.mutations import Kind
from panelgate.suite.seed import SeedPlan
from panelgate.suite.seed_repos import REPO_NAME, register, registered, repos_file
from panelgate.suite.seed_write import seed_into

router = APIRouter()
MAX_BODY = 100_000
MAX_PAIRS = 50
DEFAULT_PAIRS = 6
MAX_SEED = 2**53 - 1
"""The largest whole number every JSON reader keeps exactly."""
KindName = Literal[
    "comparison",
    "and-or",
    "returned-boolean",
    "removed-not",
    "off-by-one",
    "number",
    "swapped-arguments",
    "removed-call",
    "break-continue",
    "augmented-assignment",
]
"""`mutations.Kind`'s values, spelled out for the OpenAPI document (a test keeps the two equal)."""
Asked = TypeVar("Asked", bound=BaseModel)


class RepoAsked(BaseModel):
    """`PUT /api/suite/repos/{name}`: the folder, an absolute path on the server's machine."""

    model_config = ConfigDict(extra="forbid", strict=True)

    path: str = Field(min_length=1, max_length=4096, description="an absolute path on the server's machine")


class RepoShown(BaseModel):
    name: str
    path: str


class Repos(BaseModel):
    repos: list[RepoShown]


class SeedAsked(BaseModel):
    """`POST /api/suite/seed`: from which repository, how many pairs, of which kinds, with which seed."""

    model_config = ConfigDict(extra="forbid", strict=True)

    repo: str = Field(
        pattern=REPO_NAME.pattern, description="a name registered with PUT /api/suite/repos/{name}"
    )
    count: int = Field(default=DEFAULT_PAIRS, ge=1, le=MAX_PAIRS, description="bug/control pairs to write")
    kinds: list[KindName] | None = Field(default=None, min_length=1, description="null: every kind")
    seed: int | None = Field(
        default=None,
        ge=0,
        le=MAX_SEED,
        description="the same seed and code give the same pairs; null: a new one",
    )
    ready: bool = Field(
        default=False, description="false (default): the pairs are drafts until a person checks them"
    )
    whole_file: bool = Field(
        default=False, description="show the whole module (100–400 lines), the fault anywhere in it"
    )


class PairShown(BaseModel):
    bug: str = Field(description="the planted bug's task id (shape `seeded`)")
    control: str = Field(description="the untouched function's task id (shape `control`)")
    path: str
    function: str
    kind: KindName
    fault_lines: list[int] = Field(description="lines the answer may name (two for a deleted line)")
    change: str
    draft: bool


class Seeded(BaseModel):
    repo: str
    seed: int
    asked: int
    written: list[PairShown] = Field(description="fewer than asked when the code offers no more places")


@router.get("/suite/repos", response_model=Repos)
async def list_repos(request: Request) -> Repos:
    found = registered(repos_file(services(request).settings.data_dir))
    return Repos(repos=[RepoShown(name=name, path=str(path)) for name, path in found.items()])


@router.put("/suite/repos/{name}", response_model=RepoShown, openapi_extra=json_body(RepoAsked))
async def register_repo(request: Request, name: str) -> RepoShown:
    """Register a folder on the server's machine under `name` (a known name moves to the new folder)."""
    asked = valid(RepoAsked, await read_json_object(request, MAX_BODY))
    file = repos_file(services(request).settings.data_dir)
    path = await asyncio.to_thread(register, file, name, asked.path, name_field="name")
    return RepoShown(name=name, path=str(path))


@router.post("/suite/seed", response_model=Seeded, openapi_extra=json_body(SeedAsked))
async def seed(request: Request) -> Seeded:
    """Plant bugs in the registered repository's functions and write each with its control."""
    asked = valid(SeedAsked, await read_json_object(request, MAX_BODY))
    plan = SeedPlan(
        repo=asked.repo,
        count=asked.count,
        kinds=tuple(Kind(kind) for kind in asked.kinds) if asked.kinds else tuple(Kind),
        seed=secrets.randbelow(MAX_SEED) if asked.seed is None else asked.seed,
        draft=not asked.ready,
        whole_file=asked.whole_file,
    )
    pairs = await asyncio.to_thread(seed_into, services(request).settings.data_dir, plan)
    written = [PairShown.model_validate(pair.summary()) for pair in pairs]
    return Seeded(repo=plan.repo, seed=plan.seed, asked=plan.count, written=written)


def valid(model: type[Asked], body: dict[str, object]) -> Asked:
    """The body read as `model`, or the refusal FastAPI words for its own body errors."""
    try:
        return model.model_validate(body)
    except ValidationError as exc:
        # the app's handler for FastAPI's own body errors words the refusal
        raise RequestValidationError([{**e, "loc": ("body", *e["loc"])} for e in exc.errors()]) from None
