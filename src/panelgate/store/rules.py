"""The rules a stored value must keep, one checker per kind of field.

Every editing path (the repositories and the YAML import) runs its values
through these checkers, so a rule lives in one place and a refusal reads the
same wherever it comes from. A checker returns the cleaned value or raises
`Invalid` naming the field; messages never repeat a value that might be a
secret (a URL with credentials, a header's value).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any, TypeVar
from urllib.parse import urlsplit

from panelgate.core.naming import valid_alias, valid_collection_name
from panelgate.store.errors import Invalid

KEY_NAME_RULE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")
HEADER_NAME_RULE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9-]{0,63}$")

ENDPOINT_KINDS = ("provider", "aggregator", "hub", "local")
ENDPOINT_APIS = ("chat", "anthropic", "gemini", "responses")
HUBS = ("litellm", "openwebui", "cliproxy")
"""The hub programs the gateway can add models to (`hubs/`): an endpoint's `hub`."""
SECRET_HEADERS = frozenset(
    {"authorization", "proxy-authorization", "x-api-key", "api-key", "x-goog-api-key", "cookie"}
)

MAX_DESCRIPTION = 300
MAX_SHADOWS = 4
MAX_TAGS = 8
MAX_TAG = 32
MAX_TEXT = 4000

T = TypeVar("T")
Check = Callable[[Any], Any]


def storable(text: str) -> bool:
    """Whether a database can keep or look up `text`: PostgreSQL refuses the NUL character in text."""
    return "\x00" not in text


def check_fields(fields: Mapping[str, Any], checks: Mapping[str, Check], what: str) -> dict[str, Any]:
    """Each field run through its check; a field that has none is refused, naming those that do."""
    clean: dict[str, Any] = {}
    for key, value in fields.items():
        check = checks.get(key)
        if check is None:
            raise Invalid(f"`{key}` cannot be set on {what}; settable: {', '.join(checks)}", field=key)
        clean[key] = check(value)
    return clean


def check_alias(value: object, field: str = "alias") -> str:
    if not isinstance(value, str) or not valid_alias(value):
        raise Invalid(
            f"{field} {_show(value)} is not allowed: use 2–64 letters, digits, `.`, `_` or `-`, "
            "starting with a letter or digit",
            field=field,
        )
    return value


def check_name(value: object, what: str, field: str = "name") -> str:
    """Collection and endpoint names: lower-case, 2–32 characters."""
    if not isinstance(value, str) or not valid_collection_name(value):
        raise Invalid(
            f"{what} name {_show(value)} is not allowed: use 2–32 lower-case letters, digits or `-`, "
            "starting with a letter or digit",
            field=field,
        )
    return value


def check_choice(value: object, choices: Sequence[T], field: str) -> T:
    for choice in choices:
        if value == choice and isinstance(value, str):
            return choice
    raise Invalid(f"{field} must be one of {', '.join(map(str, choices))}; got {_show(value)}", field=field)


def check_bool(value: object, field: str) -> bool:
    if not isinstance(value, bool):
        raise Invalid(f"{field} must be true or false", field=field)
    return value


def check_optional_bool(value: object, field: str) -> bool | None:
    return None if value is None else check_bool(value, field)


def check_int(value: object, field: str, low: int, high: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise Invalid(
            f"{field} must be a whole number from {low:,} to {high:,}; got {_show(value)}", field=field
        )
    return value


def check_optional_int(value: object, field: str, low: int, high: int) -> int | None:
    return None if value is None else check_int(value, field, low, high)


def check_number(value: object, field: str, low: float, high: float) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or not low <= value <= high:
        raise Invalid(f"{field} must be a number from {low:g} to {high:g}; got {_show(value)}", field=field)
    return float(value)


def check_text(value: object, field: str, limit: int = MAX_TEXT) -> str:
    if not isinstance(value, str):
        raise Invalid(f"{field} must be text", field=field)
    if not storable(value):
        raise Invalid(f"{field} must not contain the NUL character (\\x00)", field=field)
    value = value.strip()
    if len(value) > limit:
        raise Invalid(f"{field} is {len(value):,} characters; keep it to {limit:,}", field=field)
    return value


def check_required_text(value: object, field: str, limit: int = MAX_TEXT) -> str:
    text = check_text(value, field, limit)
    if not text:
        raise Invalid(f"{field} must not be empty", field=field)
    return text


def check_texts(value: object, field: str, *, most: int, each: int) -> tuple[str, ...]:
    """A list of short texts: stripped, blanks dropped, bounded in count and length."""
    if isinstance(value, str) or not isinstance(value, Sequence):
        raise Invalid(f"{field} must be a list of text", field=field)
    items = tuple(check_text(item, field, each) for item in value)
    items = tuple(item for item in items if item)
    if len(items) > most:
        raise Invalid(f"{field} has {len(items)} entries; keep it to {most}", field=field)
    return items


def check_tags(value: object) -> tuple[str, ...]:
    tags = check_texts(value, "tags", most=MAX_TAGS, each=MAX_TAG)
    if len(set(tags)) != len(tags):
        raise Invalid("tags must not repeat", field="tags")
    return tags


def check_key_name(value: object, field: str = "key_name") -> str | None:
    if value is None or value == "":
        return None
    if not isinstance(value, str) or not KEY_NAME_RULE.fullmatch(value):
        raise Invalid(
            f"{field} is the *name* a key is stored under (letters, digits, `_`, `.` or `-`, up to 64), "
            "never the key itself",
            field=field,
        )
    return value


def check_base_url(value: object) -> str:
    """An http(s) URL without credentials or a query: keys belong under a key name."""
    if not isinstance(value, str):
        raise Invalid("base_url must be text such as https://api.example.com/v1", field="base_url")
    url = value.strip()
    if not url.isprintable() or any(character.isspace() for character in url):
        raise Invalid("base_url must not contain spaces or control characters", field="base_url")
    try:
        parts = urlsplit(url)
    except ValueError:  # e.g. an unclosed `[` of an IPv6 address
        raise Invalid("base_url is not a URL such as https://api.example.com/v1", field="base_url") from None
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise Invalid("base_url must start with http:// or https:// and name a host", field="base_url")
    if parts.username or parts.password or parts.query or parts.fragment:
        raise Invalid(
            "base_url must not carry credentials, a query or a fragment; "
            "store the key under key_name instead",
            field="base_url",
        )
    return url.rstrip("/")


def check_headers(value: object) -> dict[str, str]:
    """Extra headers sent to an endpoint; none of them may carry a secret."""
    if value is None:
        return {}
    if not isinstance(value, Mapping):
        raise Invalid("headers must be a mapping of header name to text", field="headers")
    headers: dict[str, str] = {}
    for name, text in value.items():
        if not isinstance(name, str) or not HEADER_NAME_RULE.fullmatch(name) or not isinstance(text, str):
            raise Invalid("headers must map header names (letters, digits, `-`) to text", field="headers")
        if name.lower() in SECRET_HEADERS:
            raise Invalid(
                f"header {name} carries a secret; store the key under key_name and it is sent for you",
                field="headers",
            )
        headers[name] = text
    return headers


def check_options(value: object) -> dict[str, Any]:
    """Call options sent with every request to the model (e.g. temperature)."""
    if value is None:
        return {}
    if not isinstance(value, Mapping) or not all(isinstance(key, str) for key in value):
        raise Invalid("options must be a mapping of option name to value", field="options")
    return dict(value)


def _show(value: object) -> str:
    text = repr(value) if not isinstance(value, str) else f"`{value}`"
    return text if len(text) <= 70 else text[:67] + "…"
