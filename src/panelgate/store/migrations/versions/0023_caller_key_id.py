"""A panel remembers the id of the gateway key that asked it, not only the key's name.

Revision ID: 0023
Revises: 0022
Create Date: 2026-12-02

Owed verdicts were matched by the caller's name, and names were never
unique: two keys named alike saw each other's owed seats, and a key named
`local` saw the panels of callers without a key. `caller_key_id` is the
key's id (null for a caller without one); `caller` stays, the name shown.
Existing panels take the id of the one key with their caller's name; where
no key or several keys have it, the id stays null and no key is owed them.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0023"
down_revision = "0022"
branch_labels = None
depends_on = None

FILL = """
UPDATE panels SET caller_key_id = (
    SELECT MIN(gateway_keys.id) FROM gateway_keys WHERE gateway_keys.name = panels.caller
)
WHERE (SELECT COUNT(*) FROM gateway_keys WHERE gateway_keys.name = panels.caller) = 1
"""


def upgrade() -> None:
    # a plain ALTER on both databases, as 0016 does
    op.add_column("panels", sa.Column("caller_key_id", sa.Integer, nullable=True))
    op.execute(FILL)


def downgrade() -> None:
    with op.batch_alter_table("panels") as panels:
        panels.drop_column("caller_key_id")
