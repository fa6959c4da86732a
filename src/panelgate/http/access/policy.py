"""What the settings say about access, worked out once at start-up."""

from __future__ import annotations

from dataclasses import dataclass
from urllib.parse import urlsplit

from panelgate.http.access.host_header import is_ip, parse_host
from panelgate.http.access.proxies import proxy_problems, trusted_proxies
from panelgate.settings import Settings

LOOPBACK_BINDS = frozenset({"127.0.0.1", "::1", "localhost"})
LOOPBACK_NAMES = ("127.0.0.1", "localhost", "[::1]")
MIN_TOKEN_CHARS = 16


@dataclass(frozen=True)
class AccessPolicy:
    hosts: frozenset[str]
    """Host header values answered: `name:port` exactly, or `name` on any port (lower case)."""
    origins: frozenset[str]
    """Web origins (`scheme://host[:port]`) whose pages may call the gateway routes."""
    own_origins: frozenset[str]
    """Origins that are this gateway itself besides `http://<Host>` (the public URL's)."""
    keys_required: bool
    admin_token: bytes | None
    secure_cookie: bool
    login_per_minute: int
    """Login tries a minute from one client address (an IPv6 /64 counts as one)."""
    login_overall_per_minute: int
    """Login tries a minute from every address together: what rotating addresses can get."""
    max_body_bytes: int
    metrics_public: bool = False
    """`/metrics` takes no credential (`PANELGATE_METRICS_PUBLIC`)."""

    @classmethod
    def from_settings(cls, settings: Settings) -> AccessPolicy:
        port = settings.port
        hosts = {f"{name}:{port}" for name in LOOPBACK_NAMES}
        hosts |= {name.strip().lower() for name in settings.allowed_hosts.split(",") if name.strip()}
        if settings.bind not in LOOPBACK_BINDS and not _wildcard(settings.bind):
            hosts.add(f"{_bracketed(settings.bind)}:{port}")
        own: set[str] = set()
        public = urlsplit(settings.public_url) if settings.public_url else None
        if public is not None and public.netloc:
            hosts |= {public.netloc.rpartition("@")[2].lower(), (public.hostname or "").lower()}
            own.add(f"{public.scheme}://{public.netloc}".lower())
        origins = {_origin(o) for o in settings.allowed_origins.split(",") if o.strip()} | own
        token = settings.admin_token.get_secret_value() if settings.admin_token else None
        return cls(
            hosts=frozenset(hosts),
            origins=frozenset(origins),
            own_origins=frozenset(own),
            keys_required=settings.require_keys or reached_from_elsewhere(settings),
            admin_token=token.encode() if token else None,
            secure_cookie=public is not None and public.scheme == "https",
            login_per_minute=settings.login_attempts_per_minute,
            login_overall_per_minute=settings.login_attempts_overall_per_minute,
            max_body_bytes=settings.max_body_bytes,
            metrics_public=settings.metrics_public,
        )

    def host_allowed(self, host: str) -> bool:
        """A listed name, or an IP address: a rebinding page always sends its own domain name.

        An exact listed value is answered at once (the usual case: one set lookup); anything else
        must parse as `name[:port]` before its name is looked at (`host_header`).
        """
        host = host.lower()
        if host in self.hosts:
            return True
        parsed = parse_host(host)
        if parsed is None:
            return False
        name = parsed[0]
        return name in self.hosts or is_ip(name)

    def same_origin(self, origin: str, host: str) -> bool:
        origin = origin.lower()
        return origin in (f"http://{host.lower()}", f"https://{host.lower()}") or origin in self.own_origins


def problems(settings: Settings) -> list[str]:
    """Why the server must not start with these settings; each says what to set."""
    found = []
    token = settings.admin_token.get_secret_value() if settings.admin_token else None
    if token is not None and len(token) < MIN_TOKEN_CHARS:
        found.append(f"PANELGATE_ADMIN_TOKEN must be at least {MIN_TOKEN_CHARS} characters long")
    if settings.bind not in LOOPBACK_BINDS and token is None:
        found.append(
            f"serving on {settings.bind} (not loopback) needs a login: set PANELGATE_ADMIN_TOKEN "
            f"to a secret of {MIN_TOKEN_CHARS}+ characters (gateway keys are then required on the API)"
        )
    elif reached_from_elsewhere(settings) and token is None:
        found.append(
            "behind a proxy (PANELGATE_PUBLIC_URL or PANELGATE_TRUSTED_PROXIES set) other machines reach "
            f"the gateway, so it needs a login: set PANELGATE_ADMIN_TOKEN to a secret of {MIN_TOKEN_CHARS}+ "
            "characters (gateway keys are then required on the API)"
        )
    if settings.public_url and urlsplit(settings.public_url).scheme not in ("http", "https"):
        found.append("PANELGATE_PUBLIC_URL must start with https:// (or http://)")
    if settings.login_attempts_overall_per_minute <= settings.login_attempts_per_minute:
        found.append(
            "PANELGATE_LOGIN_ATTEMPTS_OVERALL_PER_MINUTE must be larger than "
            "PANELGATE_LOGIN_ATTEMPTS_PER_MINUTE, or one address could use up everyone's login tries"
        )
    return found + proxy_problems(settings)


def reached_from_elsewhere(settings: Settings) -> bool:
    """Other machines reach the gateway: it listens beyond loopback, or a proxy passes them in.

    Behind a proxy on the same machine every request comes from loopback, yet
    none is the laptop's own: a public URL or a trusted proxy says so, and the
    gateway then asks for what it asks for on any other bind.
    """
    return settings.bind not in LOOPBACK_BINDS or bool(settings.public_url) or bool(trusted_proxies(settings))


def _origin(text: str) -> str:
    parts = urlsplit(text.strip())
    return f"{parts.scheme}://{parts.netloc}".lower()


def _wildcard(bind: str) -> bool:
    return bind in ("0.0.0.0", "::", "")


def _bracketed(address: str) -> str:
    return f"[{address}]" if ":" in address else address
