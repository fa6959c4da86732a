"""Sign-ins: the ones under way, and what each signed-in endpoint needs to stay signed in.

No token is ever a column here: access and refresh tokens live in the key
store (environment or the 0600 key file). A pending sign-in keeps its PKCE
verifier or device code until it ends (see `store.signins` for why).
"""

from __future__ import annotations

from sqlalchemy import Boolean, Column, Float, ForeignKey, Index, Table, Text

from panelgate.store.tables.columns import UtcDateTime, metadata

signins = Table(
    "signins",
    metadata,
    Column("id", Text, primary_key=True),
    Column("state", Text, nullable=False, unique=True),
    Column("provider", Text, nullable=False),
    Column("flow", Text, nullable=False),
    Column("endpoint", Text, nullable=False),
    Column("client_id", Text, nullable=True),
    Column("redirect_uri", Text, nullable=True),
    Column("verifier", Text, nullable=True),
    Column("device_code", Text, nullable=True),
    Column("user_code", Text, nullable=True),
    Column("verification_uri", Text, nullable=True),
    Column("interval_s", Float, nullable=True),
    Column("next_poll_at", UtcDateTime, nullable=True),
    Column("status", Text, nullable=False),
    Column("error", Text, nullable=True),
    Column("created_at", UtcDateTime, nullable=False),
    Column("expires_at", UtcDateTime, nullable=False),
    Column("finished_at", UtcDateTime, nullable=True),
)
"""One row per sign-in started (migration 0021); `status` pending, connected, failed or expired. The
verifier and device code are emptied the moment the sign-in ends."""
Index("ix_signins_status_expires_at", signins.c.status, signins.c.expires_at)

signin_grants = Table(
    "signin_grants",
    metadata,
    Column(
        "endpoint",
        Text,
        ForeignKey("endpoints.name", ondelete="CASCADE"),
        primary_key=True,
    ),
    Column("provider", Text, nullable=False),
    Column("client_id", Text, nullable=True),
    Column("client_from", Text, nullable=False),
    Column("connected_at", UtcDateTime, nullable=False),
    Column("expires_at", UtcDateTime, nullable=True),
    Column("refreshes", Boolean, nullable=False),
    Column("renewed_at", UtcDateTime, nullable=True),
    Column("renewal_error", Text, nullable=True),
    Column("renewing_by", Text, nullable=True),
    Column("renewing_until", UtcDateTime, nullable=True),
    Column("key_digest", Text, nullable=True),
)
"""What keeps a signed-in endpoint signed in (migration 0021): the provider, the public client id it
signed in with (`client_from`: built-in or yours), when its token expires, and the claim a process holds
while it renews it (`renewing_by` until `renewing_until`), so one process of a cluster renews;
`key_digest`, the SHA-256 of the token it last kept, tells a key typed over the sign-in (never
overwritten by a renewal) from its own."""
