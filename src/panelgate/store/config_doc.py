"""The YAML configuration document: its layout, and reading it into checked entries.

One document holds what a person edits: gateway limits, endpoints (without
secrets), models with their facts (retired ones too), and collections. It is
read whole and every value is run through the same rules the repositories
use before anything is written; the first problem is refused with its place
in the document (`models[2].role: ...`). Checks that need the database
(references, aliases already taken) happen in `config_io.py`. PyYAML is
imported by the first export or import, not with the store.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from functools import partial
from typing import Any, TypeVar

from panelgate.core.types import CollectionInfo
from panelgate.store.endpoints import checked_fields
from panelgate.store.errors import Invalid
from panelgate.store.gateway import checked_limits
from panelgate.store.header_keys import (
    check_header_name,
    check_header_value,
    header_key_name,
    references,
)
from panelgate.store.model_rows import EDITABLE as MODEL_FACTS
from panelgate.store.model_rows import checked_facts
from panelgate.store.records import ModelRecord
from panelgate.store.rules import (
    check_alias,
    check_bool,
    check_int,
    check_name,
    check_required_text,
    check_text,
)

VERSION = 1
HEADER = """\
# panelgate configuration: gateway limits, endpoints, models and collections.
# Secrets are not included. Each endpoint names its key by `key_name`; on the
# machine that imports this file, put the key in the environment variable
# PANELGATE_KEY_<KEY_NAME> (upper-case, `-` as `_`) or in the key file in the
# data folder (keys.json, readable only by you). An endpoint's extra headers
# are named the same way: each header's `key_name` holds its value.
"""

ENDPOINT_FIELDS = (
    "name",
    "base_url",
    "kind",
    "api",
    "key_name",
    "headers",
    "default",
    "hub",
    "admin_key_name",
    "preferred",
)
MODEL_FIELDS = ("alias", "served_id", "endpoint", *MODEL_FACTS, "former_aliases", "retired")
RETIRED_FIELDS = ("at", "by", "why", "collections", "merger_of")
COLLECTION_FIELDS = (
    "name",
    "members",
    "shape",
    "description",
    "tags",
    "reply",
    "merger",
    "shadows",
    "offered_tools",
    "verdicts_owed",
)

MODEL_DEFAULTS: dict[str, Any] = {
    "role": "general",
    "ad_hoc": False,
    "context_window": None,
    "max_output": None,
    "vision": None,
    "tools": None,
    "options": {},
}

T = TypeVar("T")


@dataclass(frozen=True)
class EndpointEntry:
    name: str
    fields: dict[str, Any]
    default: bool
    header_values: dict[str, str] = field(default_factory=dict)
    """`{key name: value}` of headers an older export wrote with their values, for the key store."""


@dataclass(frozen=True)
class Retirement:
    at: datetime
    by: str
    why: str
    where: dict[str, Any]


@dataclass(frozen=True)
class ModelEntry:
    alias: str
    served_id: str
    endpoint: str
    facts: dict[str, Any]
    former: tuple[str, ...] = ()
    retired: Retirement | None = None

    def as_dict(self) -> dict[str, Any]:
        """The entry as the document writes it (see `exported_model`)."""
        retired = self.retired
        return {
            "alias": self.alias,
            "served_id": self.served_id,
            "endpoint": self.endpoint,
            **self.facts,
            "former_aliases": list(self.former),
            "retired": None
            if retired is None
            else {"at": retired.at.isoformat(), "by": retired.by, "why": retired.why, **retired.where},
        }


def exported_model(model: ModelRecord) -> dict[str, Any]:
    """A model as the document writes it: its public fields, old aliases and retirement."""
    retired = None
    if model.retired_at is not None:
        where = model.restore or {}
        retired = {
            "at": model.retired_at.isoformat(),
            "by": model.retired_by or "",
            "why": model.retired_why,
            "collections": list(where.get("collections", [])),
            "merger_of": list(where.get("merger_of", [])),
        }
    return {**model.public(), "former_aliases": list(model.former_aliases), "retired": retired}


@dataclass(frozen=True)
class Document:
    gateway: dict[str, Any] = field(default_factory=dict)
    endpoints: list[EndpointEntry] = field(default_factory=list)
    models: list[ModelEntry] = field(default_factory=list)
    collections: list[CollectionInfo] = field(default_factory=list)


def dump(document: Mapping[str, Any]) -> str:
    import yaml

    return HEADER + yaml.safe_dump(
        dict(document), sort_keys=False, allow_unicode=True, default_flow_style=False
    )


def parse(text: str) -> Document:
    """The document's checked entries, or `Invalid` naming the first problem and where it is."""
    import yaml

    try:
        raw = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" at line {mark.line + 1}" if mark is not None else ""
        raise Invalid(f"the file is not valid YAML{where}") from exc
    top = _mapping(raw, "the document", ("version", "gateway", "endpoints", "models", "collections"))
    if top.get("version") != VERSION:
        raise Invalid(f"version must be {VERSION}; this file says {top.get('version')!r}", field="version")
    document = Document(
        gateway=located(
            "gateway", lambda: checked_limits(_mapping(top.get("gateway") or {}, "gateway", None))
        ),
        endpoints=_entries(top, "endpoints", _endpoint),
        models=_entries(top, "models", _model),
        collections=_entries(top, "collections", _collection),
    )
    _refuse_repeats(document)
    return document


def located(place: str, read: Callable[[], T]) -> T:
    """Run `read`, putting `place` in front of any refusal."""
    try:
        return read()
    except Invalid as exc:
        raise Invalid(f"{place}: {exc.message}", field=exc.field) from exc


def _mapping(value: object, place: str, known: tuple[str, ...] | None) -> dict[str, Any]:
    if not isinstance(value, Mapping):
        raise Invalid(f"{place} must be a mapping of field: value")
    unknown = [key for key in value if known is not None and key not in known]
    if unknown:
        raise Invalid(f"{place} has an unknown field `{unknown[0]}`; fields: {', '.join(known or ())}")
    return dict(value)


def _entries(top: Mapping[str, Any], section: str, read: Callable[[dict[str, Any]], T]) -> list[T]:
    items = top.get(section) or []
    if not isinstance(items, list):
        raise Invalid(f"{section} must be a list")
    return [located(f"{section}[{index}]", partial(read, item)) for index, item in enumerate(items)]


def _required(entry: Mapping[str, Any], key: str) -> Any:
    if key not in entry:
        raise Invalid(f"`{key}` is missing", field=key)
    return entry[key]


def _endpoint(item: object) -> EndpointEntry:
    entry = _mapping(item, "an endpoint", ENDPOINT_FIELDS)
    fields: dict[str, Any] = {
        key: entry[key]
        for key in ("kind", "api", "key_name", "headers", "hub", "admin_key_name", "preferred")
        if key in entry
    }
    fields["base_url"] = _required(entry, "base_url")
    name = check_name(_required(entry, "name"), "endpoint")
    headers = fields.get("headers")
    values: dict[str, str] = {}
    if isinstance(headers, Mapping):  # an older export holds the values themselves: they go to the key store
        values = {
            header_key_name(name, check_header_name(header)): check_header_value(header, value)
            for header, value in headers.items()
            if isinstance(value, str)
        }
        fields["headers"] = references(name, headers)
    defaults: dict[str, Any] = {
        "kind": "provider",
        "api": "chat",
        "key_name": None,
        "headers": {},
        "hub": None,
        "preferred": False,
    }
    return EndpointEntry(
        name=name,
        fields=checked_fields({**defaults, "admin_key_name": None, **fields}),
        default=check_bool(entry.get("default", False), "default"),
        header_values=values,
    )


def _model(item: object) -> ModelEntry:
    entry = _mapping(item, "a model", MODEL_FIELDS)
    facts = {key: entry[key] for key in MODEL_FACTS if key in entry}
    former = entry.get("former_aliases") or []
    if not isinstance(former, list):
        raise Invalid("former_aliases must be a list of aliases", field="former_aliases")
    return ModelEntry(
        alias=check_alias(_required(entry, "alias")),
        served_id=check_required_text(_required(entry, "served_id"), "served_id", 512),
        endpoint=check_name(_required(entry, "endpoint"), "endpoint", "endpoint"),
        facts=checked_facts({**MODEL_DEFAULTS, **facts}),
        former=tuple(check_alias(alias, "former_aliases") for alias in former),
        retired=None if entry.get("retired") is None else _retirement(entry["retired"]),
    )


def _retirement(item: object) -> Retirement:
    entry = _mapping(item, "retired", RETIRED_FIELDS)
    at = _required(entry, "at")
    try:
        when = at if isinstance(at, datetime) else datetime.fromisoformat(str(at))
    except ValueError:
        when = None
    if when is None or when.tzinfo is None:
        raise Invalid("retired.at must be a time with its zone, like 2025-01-31T09:30:00+00:00", field="at")
    places = entry.get("collections") or []
    merger_of = entry.get("merger_of") or []
    if not isinstance(places, list) or not isinstance(merger_of, list):
        raise Invalid("retired.collections and retired.merger_of must be lists", field="collections")
    return Retirement(
        at=when,
        by=check_text(entry.get("by", ""), "retired.by", 200),
        why=check_text(entry.get("why", ""), "retired.why", 500),
        where={
            "collections": [_place(place) for place in places],
            "merger_of": [check_name(name, "collection", "merger_of") for name in merger_of],
        },
    )


def _place(item: object) -> dict[str, Any]:
    entry = _mapping(item, "a place in a collection", ("name", "position"))
    return {
        "name": check_name(_required(entry, "name"), "collection"),
        "position": check_int(_required(entry, "position"), "position", 0, 10_000),
    }


def _collection(item: object) -> CollectionInfo:
    entry = _mapping(item, "a collection", COLLECTION_FIELDS)
    members = _required(entry, "members")
    if not isinstance(members, list):
        raise Invalid("members must be a list of aliases", field="members")
    return CollectionInfo(
        name=check_name(_required(entry, "name"), "collection"),
        members=tuple(members),
        shape=entry.get("shape"),
        description=entry.get("description", ""),
        tags=tuple(entry.get("tags") or ()),
        reply=entry.get("reply", "all"),
        merger=entry.get("merger") or "",
        shadows=entry.get("shadows", 0),
        offered_tools=entry.get("offered_tools", "drop"),
        verdicts_owed=entry.get("verdicts_owed", "all"),
    )


def _refuse_repeats(document: Document) -> None:
    """Within the document: names once each, one default, no alias or served id twice on the bench."""
    _once([entry.name for entry in document.endpoints], "endpoints", "an endpoint name")
    _once([info.name for info in document.collections], "collections", "a collection name")
    if sum(entry.default for entry in document.endpoints) > 1:
        raise Invalid("endpoints: only one endpoint can be the default", field="default")
    live = [entry for entry in document.models if entry.retired is None]
    _once([entry.alias.lower() for entry in live], "models", "an alias on the bench")
    _once([(entry.endpoint, entry.served_id) for entry in live], "models", "a served id on one endpoint")
    former = [alias.lower() for entry in document.models for alias in entry.former]
    _once(former + [entry.alias.lower() for entry in live], "models", "an alias (current or former)")


def _once(values: list[Any], section: str, what: str) -> None:
    seen: set[Any] = set()
    for value in values:
        if value in seen:
            shown = value if isinstance(value, str) else " on ".join(reversed(value))
            raise Invalid(f"{section}: {what} appears twice: `{shown}`")
        seen.add(value)
