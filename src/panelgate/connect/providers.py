"""The providers a person can sign in to, and how each one's sign-in works.

Four flows, one per way providers hand out access:

- `key`: PKCE in the browser, and the provider hands back an API key for
  the code (OpenRouter); the key never expires, so nothing renews;
- `oauth`: authorization code + PKCE, back to the gateway's
  `/connect/callback`, with a refresh token that renewal spends
  (Hugging Face);
- `device`: the person types a short code on the provider's page from any
  machine while the gateway polls (GitHub Models); any provider with a
  `device_url` offers it too, for a browser on another machine;
- `local`: a server on this machine that needs no key (Ollama).

Every URL is overridable, for tests and for self-hosted providers: the
file `PANELGATE_CONNECT_PROVIDERS` names (YAML or JSON, `{name: {field:
value}}`) changes fields of the built-in providers or adds new ones, and
is the place for "use your own app": a provider's `client_id` there is the
person's (`yours`). It is read once, with the settings.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

Flow = Literal["key", "oauth", "device", "local"]
ClientFrom = Literal["built-in", "yours"]
NEEDS_CLIENT: frozenset[Flow] = frozenset({"oauth", "device"})


@dataclass(frozen=True)
class Provider:
    name: str
    label: str
    flow: Flow
    api_base: str
    """The OpenAI-compatible base the endpoint is made with (`.../v1`)."""
    authorize_url: str | None = None
    """Where the browser goes: OAuth's authorization endpoint, or the key flow's page."""
    token_url: str | None = None
    """OAuth's token endpoint (code, refresh, device code), or the key flow's key exchange."""
    device_url: str | None = None
    """The device authorization endpoint, where one exists."""
    scope: str | None = None
    client_id: str | None = None
    client_from: ClientFrom | None = None
    """`built-in` when this program ships the client id, `yours` when the settings give it."""
    api: str = "chat"
    headers: dict[str, str] = field(default_factory=dict)
    """Sent with every call to the endpoint (OpenRouter's attribution)."""

    @property
    def needs_client_id(self) -> bool:
        return self.flow in NEEDS_CLIENT

    @property
    def has_device_flow(self) -> bool:
        return self.device_url is not None and self.token_url is not None

    def client_state(self) -> Literal["built-in", "yours", "needed"] | None:
        """What the providers list says of its client id."""
        if not self.needs_client_id and not self.client_id:
            return None
        if self.client_id:
            return self.client_from or "yours"
        return "needed"


BUILT_IN: tuple[Provider, ...] = (
    Provider(
        "openrouter",
        "OpenRouter",
        "key",
        "https://openrouter.ai/api/v1",
        authorize_url="https://openrouter.ai/auth",
        token_url="https://openrouter.ai/api/v1/auth/keys",
        headers={"HTTP-Referer": "https://github.com/panelgate/panelgate", "X-Title": "panelgate"},
    ),
    Provider(
        "huggingface",
        "Hugging Face",
        "oauth",
        "https://router.huggingface.co/v1",
        authorize_url="https://huggingface.co/oauth/authorize",
        token_url="https://huggingface.co/oauth/token",
        scope="openid profile inference-api",
    ),
    Provider(
        "github",
        "GitHub Models",
        "device",
        "https://models.github.ai/inference",
        token_url="https://github.com/login/oauth/access_token",
        device_url="https://github.com/login/device/code",
    ),
    Provider("ollama", "Ollama (this machine)", "local", "http://localhost:11434/v1", api="chat"),
)


class ProviderFileError(Exception):
    """The providers file cannot be used as it is."""


class _Override(BaseModel):
    model_config = ConfigDict(extra="forbid")

    label: str | None = None
    flow: Flow | None = None
    api_base: str | None = Field(default=None, pattern=r"^https?://")
    authorize_url: str | None = Field(default=None, pattern=r"^https?://")
    token_url: str | None = Field(default=None, pattern=r"^https?://")
    device_url: str | None = Field(default=None, pattern=r"^https?://")
    scope: str | None = None
    client_id: str | None = Field(default=None, min_length=1)
    headers: dict[str, str] | None = None


def load_providers(path: Path | None) -> dict[str, Provider]:
    """The built-in providers with the file's changes and additions (None: as built)."""
    providers = {p.name: p for p in BUILT_IN}
    if path is None:
        return providers
    import yaml  # only for a providers file: most gateways have none

    try:
        loaded: Any = yaml.safe_load(path.read_text())
    except (OSError, yaml.YAMLError) as exc:
        raise ProviderFileError(f"the providers file {path} cannot be read: {exc}") from None
    if not isinstance(loaded, dict):
        raise ProviderFileError(f"the providers file {path} must map provider names to their fields")
    for name, fields in loaded.items():
        try:
            override = _Override.model_validate(fields or {})
        except ValidationError as exc:
            raise ProviderFileError(f"the providers file {path}, provider `{name}`: {exc}") from None
        changes = override.model_dump(exclude_none=True)
        if override.client_id:
            changes["client_from"] = "yours"
        known = providers.get(str(name))
        if known is not None:
            providers[known.name] = replace(known, **changes)
        elif override.flow and override.api_base:
            providers[str(name)] = Provider(name=str(name), label=changes.pop("label", str(name)), **changes)
        else:
            raise ProviderFileError(
                f"the providers file {path}: new provider `{name}` needs `flow` and `api_base`"
            )
    return providers
