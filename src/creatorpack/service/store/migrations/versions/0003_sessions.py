"""Play sessions and their transcripts (part 3)."""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None


def upgrade() -> None:
    """Create the session tables."""
    op.create_table(
        "sessions",
        sa.Column("id", sa.String(32), primary_key=True),
        sa.Column("account_id", sa.Integer, sa.ForeignKey("accounts.id"), nullable=False),
        sa.Column("pack_id", sa.String(80), sa.ForeignKey("packs.pack_id"), nullable=False),
        sa.Column("revision", sa.BigInteger, nullable=False),
        sa.Column("turn", sa.Integer, nullable=False),
        sa.Column("seq", sa.Integer, nullable=False),
        sa.Column("saved", sa.Text, nullable=False),
        sa.Column("created", sa.DateTime(timezone=True), nullable=False),
        sa.Column("updated", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_index("ix_sessions_pack_revision", "sessions", ["pack_id", "revision"])
    op.create_table(
        "session_events",
        sa.Column("session_id", sa.String(32), sa.ForeignKey("sessions.id"), primary_key=True),
        sa.Column("seq", sa.Integer, primary_key=True, autoincrement=False),
        sa.Column("kind", sa.String(16), nullable=False),
        sa.Column("turn", sa.Integer, nullable=False),
        sa.Column("revision", sa.BigInteger, nullable=False),
        sa.Column("request", sa.Text, nullable=True),
        sa.Column("request_hash", sa.String(64), nullable=True),
        sa.Column("result", sa.Text, nullable=False),
        sa.Column("created", sa.DateTime(timezone=True), nullable=False),
    )


def downgrade() -> None:
    """Drop the session tables."""
    op.drop_table("session_events")
    op.drop_table("sessions")
