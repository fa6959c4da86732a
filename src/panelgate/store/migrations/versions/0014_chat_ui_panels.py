"""Chat UIs: what a collection's panels do with offered tools, and which panels owe verdicts.

Revision ID: 0014
Revises: 0013
Create Date: 2026-12-02

Open WebUI attaches its built-in tools to every chat and asks the chat's
model for titles, tags and follow-ups. A collection now says whether a panel
leaves offered tools out (`drop`, the default) or refuses them as before, and
which of its panels owe verdicts (`all`, the default; `chats`: not a chat
UI's background tasks; `none`). A panel records whether it owes any, so
"verdicts owed" lists can leave out the ones that do not.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0014"
down_revision = "0013"
branch_labels = None
depends_on = None


def _text_column(name: str, default: str) -> sa.Column[str]:
    return sa.Column(name, sa.Text, nullable=False, server_default=sa.text(f"'{default}'"))


def upgrade() -> None:
    with op.batch_alter_table("collections") as collections:
        collections.add_column(_text_column("offered_tools", "drop"))
        collections.add_column(_text_column("verdicts_owed", "all"))
    with op.batch_alter_table("panels") as panels:
        panels.add_column(
            sa.Column("owes_verdicts", sa.Boolean, nullable=False, server_default=sa.text("true"))
        )


def downgrade() -> None:
    with op.batch_alter_table("panels") as panels:
        panels.drop_column("owes_verdicts")
    with op.batch_alter_table("collections") as collections:
        collections.drop_column("verdicts_owed")
        collections.drop_column("offered_tools")
