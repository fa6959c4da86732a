"""An endpoint's extra headers: their names in the database, their values with the other secrets.

A header such as `X-Custom-Auth: ...` often carries a credential, and the
gateway cannot tell which ones do, so no header value is kept in the
database, an audit row, an export or a reply. The endpoints table keeps,
per header name, the key name its value is kept under:

    {"X-Custom-Auth": {"key_name": "up-header-x-custom-auth"}}

and the value sits in the key store like the endpoint's own key: the
environment variable `PANELGATE_KEY_UP_HEADER_X_CUSTOM_AUTH`, else the key
file. `header_key_name` is the naming rule. Rows written before kept the
value itself (`{"X-Custom-Auth": "s3cr3t"}`); `literal_values` finds those
so they can be moved into the key store (at start, and on importing an old
export), and `references` is the row's form once they are.

The store cannot reach the key store (it belongs to upstream), so whoever
has the values hands over a `KeepSecret`: `KeyStore.set`.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import Any

from panelgate.store.errors import Invalid
from panelgate.store.rules import HEADER_NAME_RULE, SECRET_HEADERS

KeepSecret = Callable[[str, str], None]
"""Keep `(key_name, value)` in the key store."""

HEADER_KEY_NAME_RULE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,127}$")


def header_key_name(endpoint: str, header: str) -> str:
    """The key name a header's value is kept under: `<endpoint>-header-<header name, lower-cased>`."""
    return f"{endpoint}-header-{header.lower()}"


def check_header_keys(value: object) -> dict[str, dict[str, str]]:
    """The stored form: each header name to the key name its value is kept under; never a value."""
    if value is None:
        return {}
    if not isinstance(value, Mapping):
        raise Invalid("headers must be a mapping of header name to {key_name: ...}", field="headers")
    checked: dict[str, dict[str, str]] = {}
    for name, kept in value.items():
        check_header_name(name)
        key_name = kept.get("key_name") if isinstance(kept, Mapping) else None
        if not isinstance(key_name, str) or not HEADER_KEY_NAME_RULE.fullmatch(key_name):
            raise Invalid(
                f"header {name} must name the key its value is kept under ({{key_name: ...}}: letters, "
                "digits, `_`, `.` or `-`); its value belongs in the key file or the environment",
                field="headers",
            )
        checked[name] = {"key_name": key_name}
    return checked


def check_header_name(name: object) -> str:
    """A header name the gateway may send; those the endpoint's key already covers are refused."""
    if not isinstance(name, str) or not HEADER_NAME_RULE.fullmatch(name):
        raise Invalid("headers must be named by letters, digits and `-`", field="headers")
    if name.lower() in SECRET_HEADERS:
        raise Invalid(
            f"header {name} carries a secret; store the key under key_name and it is sent for you",
            field="headers",
        )
    return name


def check_header_value(name: str, value: object) -> str:
    """A value to keep: one line of text, stripped (the key store takes nothing else)."""
    text = value.strip() if isinstance(value, str) else ""
    if not text or any(ord(c) < 32 or ord(c) == 127 for c in text):
        raise Invalid(f"header {name}'s value must be one line of text", field="headers")
    return text


def key_names(endpoint: str, stored: Mapping[str, Any]) -> dict[str, str]:
    """Each header name to its key name, from a row's `headers` (a value not yet moved: its rule name)."""
    return {name: str(kept["key_name"]) for name, kept in references(endpoint, stored).items()}


def literal_values(endpoint: str, stored: Mapping[str, Any]) -> dict[str, str]:
    """`{key name: value}` for each header whose value the row still holds itself."""
    return {
        header_key_name(endpoint, name): value.strip()
        for name, value in stored.items()
        if isinstance(value, str) and value.strip()
    }


def references(endpoint: str, stored: Mapping[str, Any]) -> dict[str, dict[str, str]]:
    """The row's `headers` with every value replaced by the key name it is (or will be) kept under."""
    return {
        name: dict(kept) if isinstance(kept, Mapping) else {"key_name": header_key_name(endpoint, name)}
        for name, kept in stored.items()
    }


def keep_values(endpoint: str, values: Mapping[str, str], keep: KeepSecret) -> dict[str, str]:
    """Keep each header's value under its rule name; each header name to that key name."""
    kept: dict[str, str] = {}
    for name, value in values.items():
        key_name = header_key_name(endpoint, check_header_name(name))
        keep(key_name, check_header_value(name, value))
        kept[name] = key_name
    return kept
