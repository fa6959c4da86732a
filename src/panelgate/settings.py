"""Server settings, read once from `PANELGATE_*` and frozen.

Everything a person edits at run time (endpoints, models, collections,
gateway limits) lives in the database, not here; this is only what a process
needs before it can open the database.

Each field is read from the environment variable `PANELGATE_<FIELD>` (in any
case) unless it is given as an argument, and checked by pydantic like any
model's field: "8123" is a port, "true" a yes. A plain model reading the
environment itself, not pydantic-settings, whose sources (dotenv files,
secrets folders, YAML and TOML) a gateway process would load and keep
without using.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from functools import cached_property
from pathlib import Path
from typing import Any, Literal

from platformdirs import user_data_dir
from pydantic import BaseModel, ConfigDict, Field, SecretStr

ENV_PREFIX = "PANELGATE_"


def from_environment(fields: Iterable[str]) -> dict[str, str]:
    """The `PANELGATE_*` variables that name one of `fields`, keyed by field."""
    found = {name.lower(): value for name, value in os.environ.items() if name.upper().startswith(ENV_PREFIX)}
    prefix = ENV_PREFIX.lower()
    return {field: found[prefix + field] for field in fields if prefix + field in found}


class Settings(BaseModel):
    model_config = ConfigDict(frozen=True, extra="ignore")

    def __init__(self, **given: Any) -> None:
        super().__init__(**{**from_environment(type(self).model_fields), **given})

    home: Path | None = Field(default=None, description="data folder; the OS per-user folder when unset")
    database_url: str | None = Field(
        default=None, description="SQLAlchemy URL; SQLite in the data folder when unset"
    )
    redis_url: SecretStr | None = Field(
        default=None,
        description="Redis for what gateway processes share (rate windows, key rpm, route stickiness); "
        "the database keeps them when unset",
    )
    redis_prefix: str = Field(
        default="panelgate", min_length=1, description="start of every Redis key, so benches can share one"
    )
    redis_timeout_s: float = Field(
        default=2.0, gt=0, description="seconds a Redis command may take before the call it serves fails"
    )
    bind: str = "127.0.0.1"
    port: int = Field(default=8122, ge=1, le=65535)
    keepalive_s: float = Field(default=10.0, gt=0, description="seconds between stream keep-alives")
    max_body_bytes: int = Field(default=20_000_000, gt=0)
    max_header_bytes: int = Field(
        default=64 * 1024, ge=1024, description="bytes of a request line and its headers; more gets 431"
    )
    max_headers: int = Field(default=100, ge=1, description="headers one request may carry; more gets 431")
    head_timeout_s: float = Field(
        default=10.0, gt=0, description="seconds a connection has to send a whole request head (slowloris)"
    )
    body_read_timeout_s: float = Field(
        default=30.0, gt=0, description="seconds the server waits for the next piece of a request body"
    )
    upstream_max_reply_bytes: int = Field(default=32 * 1024 * 1024, gt=0)
    upstream_connections_per_host: int = Field(
        default=512, ge=1, description="upstream connections open at once per host; more calls wait in line"
    )
    retry_after_cap_s: float = Field(default=60.0, ge=0)
    route_first_token_s: float = Field(
        default=90.0, gt=0, description="seconds a route member may stay silent before the next is asked"
    )
    seating_seed: int | None = Field(
        default=None, description="seeds the explorer rule's random draws: the same panels seat alike"
    )
    admin_token: SecretStr | None = Field(
        default=None, description="opens the dashboard and admin API (login or Bearer); 16+ characters"
    )
    public_url: str | None = Field(
        default=None, description="the address people reach the gateway at through a proxy (https://...)"
    )
    require_keys: bool = Field(default=False, description="ask for gateway keys on loopback too")
    allowed_hosts: str = Field(default="", description="more Host names to answer, comma-separated")
    allowed_origins: str = Field(
        default="", description="web origins whose pages may call the gateway routes (CORS), comma-separated"
    )
    login_attempts_per_minute: int = Field(default=5, ge=1, description="login tries per address a minute")
    login_attempts_overall_per_minute: int = Field(
        default=30, ge=1, description="login tries a minute from all addresses together (rotating addresses)"
    )
    trusted_proxies: str = Field(
        default="", description="proxies whose X-Forwarded-For counts: addresses or CIDRs, comma-separated"
    )
    workers: int = Field(default=1, ge=1, le=16, description="gateway processes sharing the port")
    metrics_public: bool = Field(
        default=False, description="serve /metrics without the admin token (a scraper on a trusted network)"
    )
    log_format: Literal["text", "json"] = Field(
        default="text", description="`json`: one JSON object per log line, for a log collector"
    )
    connect_providers: Path | None = Field(
        default=None,
        description="YAML or JSON file changing sign-in providers' URLs and client ids, or adding some",
    )
    connect_renew_check_s: float = Field(
        default=30.0, gt=0, description="seconds between looks for sign-in tokens about to expire"
    )

    @cached_property
    def data_dir(self) -> Path:
        return (self.home or Path(user_data_dir("panelgate", appauthor=False))).expanduser()

    @cached_property
    def sqlalchemy_url(self) -> str:
        """The async SQLAlchemy URL: PostgreSQL when configured, else SQLite in the data folder."""
        url = self.database_url
        if not url:
            return f"sqlite+aiosqlite:///{self.data_dir / 'panelgate.db'}"
        if url.startswith(("postgres://", "postgresql://")):
            return "postgresql+asyncpg://" + url.split("://", 1)[1]
        return url

    @cached_property
    def key_file(self) -> Path:
        return self.data_dir / "keys.json"

    def ensure_data_dir(self) -> Path:
        """Make the data folder on first run (private to the user)."""
        self.data_dir.mkdir(parents=True, exist_ok=True, mode=0o700)
        return self.data_dir
