"""Sign-ins to providers: the ones under way, and what keeps a signed-in endpoint signed in.

Revision ID: 0021
Revises: 0020
Create Date: 2026-12-02

A sign-in (OpenRouter's key flow, an OAuth code with PKCE, a device code)
is started by one request and finished by another, which may reach
another gateway process: `signins` holds it in between, and its `state`
is claimed once. `signin_grants` keeps, per signed-in endpoint, what its
renewal needs (provider, public client id, expiry) and the claim of the
process renewing it. Tokens are never kept here: they are secrets, kept
with the others (environment or the key file).
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0021"
down_revision = "0020"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "signins",
        sa.Column("id", sa.Text, primary_key=True),
        sa.Column("state", sa.Text, nullable=False, unique=True),
        sa.Column("provider", sa.Text, nullable=False),
        sa.Column("flow", sa.Text, nullable=False),
        sa.Column("endpoint", sa.Text, nullable=False),
        sa.Column("client_id", sa.Text, nullable=True),
        sa.Column("redirect_uri", sa.Text, nullable=True),
        sa.Column("verifier", sa.Text, nullable=True),
        sa.Column("device_code", sa.Text, nullable=True),
        sa.Column("user_code", sa.Text, nullable=True),
        sa.Column("verification_uri", sa.Text, nullable=True),
        sa.Column("interval_s", sa.Float, nullable=True),
        sa.Column("next_poll_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("status", sa.Text, nullable=False),
        sa.Column("error", sa.Text, nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("expires_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("finished_at", sa.DateTime(timezone=True), nullable=True),
    )
    op.create_index("ix_signins_status_expires_at", "signins", ["status", "expires_at"])
    op.create_table(
        "signin_grants",
        sa.Column(
            "endpoint",
            sa.Text,
            sa.ForeignKey("endpoints.name", ondelete="CASCADE"),
            primary_key=True,
        ),
        sa.Column("provider", sa.Text, nullable=False),
        sa.Column("client_id", sa.Text, nullable=True),
        sa.Column("client_from", sa.Text, nullable=False),
        sa.Column("connected_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("expires_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("refreshes", sa.Boolean, nullable=False),
        sa.Column("renewed_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("renewal_error", sa.Text, nullable=True),
        sa.Column("renewing_by", sa.Text, nullable=True),
        sa.Column("renewing_until", sa.DateTime(timezone=True), nullable=True),
        sa.Column("key_digest", sa.Text, nullable=True),
    )


def downgrade() -> None:
    op.drop_table("signin_grants")
    op.drop_index("ix_signins_status_expires_at", table_name="signins")
    op.drop_table("signins")
