"""A throwaway certificate authority for tests: a server context for one name, and what trusts it."""

from __future__ import annotations

import ssl
from dataclasses import dataclass, field
from pathlib import Path

import trustme


@dataclass
class LocalTls:
    """`server` serves a certificate for one name only; `client` and `ca_file` trust it;
    `server_names` keeps the SNI name of every handshake the server saw."""

    ca_file: Path
    server: ssl.SSLContext
    client: ssl.SSLContext
    server_names: list[str | None] = field(default_factory=list)


def local_tls(directory: Path, name: str = "localhost") -> LocalTls:
    authority = trustme.CA()
    ca_file = directory / "ca.pem"
    authority.cert_pem.write_to_path(str(ca_file))
    server = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    authority.issue_cert(name).configure_cert(server)
    client = ssl.create_default_context(cafile=str(ca_file))
    tls = LocalTls(ca_file, server, client)

    def seen(_socket: object, server_name: str | None, _context: object) -> None:
        tls.server_names.append(server_name)

    server.sni_callback = seen  # type: ignore[assignment]
    return tls
