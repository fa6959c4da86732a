"""Cut a JSON schema down to what Gemini's `Schema` accepts.

Tool parameters and `response_format` schemas are written in JSON Schema, and
Gemini refuses the whole request over a key its `Schema` does not know. So
only the keys it knows (`_SCHEMA_KEYS`) are kept: `additionalProperties`,
`$schema`, `$id`, `exclusiveMinimum`/`Maximum`, `multipleOf`, `examples`,
`not`, `uniqueItems`, `patternProperties` and string formats other than
`enum`/`date-time` are dropped. Local `$ref`s are inlined (one that is not
local, not found or recursive becomes a plain object), `allOf` merged,
`oneOf` read as `anyOf`, `const` as a one-value enum, a type list
(`["string", "null"]`) as a type plus `nullable`, and `required` names
without a property are left out.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

_SCHEMA_KEYS = frozenset({
    "type", "format", "title", "description", "nullable", "enum", "items", "properties", "required",
    "minItems", "maxItems", "minProperties", "maxProperties", "minLength", "maxLength", "pattern",
    "minimum", "maximum", "anyOf", "propertyOrdering", "default", "example",
})  # fmt: skip
_FORMATS = frozenset({"enum", "date-time", "int32", "int64", "float", "double"})


def gemini_schema(schema: object, definitions: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """A JSON schema cut down to what Gemini's `Schema` accepts (see the module docstring)."""
    if not isinstance(schema, Mapping):
        return {}
    if definitions is None:
        found = {**_mapping(schema.get("definitions")), **_mapping(schema.get("$defs"))}
        definitions = found
    return _SchemaCleaner(definitions).clean(schema, frozenset())


def _mapping(value: object) -> Mapping[str, Any]:
    return value if isinstance(value, Mapping) else {}


class _SchemaCleaner:
    """Cleans one schema tree; `definitions` are what its local `$ref`s point into."""

    def __init__(self, definitions: Mapping[str, Any]) -> None:
        self.definitions = definitions

    def clean(self, schema: object, seen: frozenset[str]) -> dict[str, Any]:
        if not isinstance(schema, Mapping):
            return {}
        cleaned: dict[str, Any] = {}
        ref = schema.get("$ref")
        if isinstance(ref, str):
            name = ref.rsplit("/", 1)[-1]
            target = self.definitions.get(name) if ref.startswith("#/") and name not in seen else None
            cleaned.update(self.clean(target, seen | {name}) if target is not None else {"type": "object"})
        for part in schema.get("allOf") or []:
            cleaned.update(self.clean(part, seen))
        for key, value in schema.items():
            cleaned.update(self._key(key, value, seen))
        if isinstance(cleaned.get("required"), list):
            known = cleaned.get("properties", {})
            cleaned["required"] = [name for name in cleaned["required"] if name in known]
            if not cleaned["required"]:
                del cleaned["required"]
        return cleaned

    def _key(self, key: str, value: Any, seen: frozenset[str]) -> dict[str, Any]:
        if key == "type" and isinstance(value, list):
            kinds = [kind for kind in value if kind != "null"]
            typed: dict[str, Any] = {"nullable": True} if "null" in value else {}
            if len(kinds) == 1:
                return {**typed, "type": kinds[0]}
            return {**typed, "anyOf": [{"type": kind} for kind in kinds]} if kinds else typed
        if key == "properties" and isinstance(value, Mapping):
            return {"properties": {name: self.clean(sub, seen) for name, sub in value.items()}}
        if key == "items":
            return {"items": self.clean(value, seen)}
        if key in ("anyOf", "oneOf") and isinstance(value, list):
            return self._variants(value, seen)
        if key == "const":
            return {"enum": [value]} if isinstance(value, str) else {}
        if key == "enum":
            return (
                {"enum": value} if isinstance(value, list) and all(isinstance(v, str) for v in value) else {}
            )
        if key == "format":
            return {"format": value} if value in _FORMATS else {}
        return {key: value} if key in _SCHEMA_KEYS else {}

    def _variants(self, variants: list[Any], seen: frozenset[str]) -> dict[str, Any]:
        """`anyOf`/`oneOf`: a `null` variant becomes `nullable`, a single variant is inlined."""
        kept = [
            self.clean(v, seen) for v in variants if not (isinstance(v, Mapping) and v.get("type") == "null")
        ]
        nullable: dict[str, Any] = {"nullable": True} if len(kept) < len(variants) else {}
        if len(kept) == 1:
            return {**kept[0], **nullable}
        return {**nullable, "anyOf": kept} if kept else nullable
