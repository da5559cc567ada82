"""Accounts, tokens, packs and revisions."""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    """Create the tables."""
    op.create_table(
        "accounts",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("name", sa.String(80), nullable=False, unique=True),
        sa.Column("created", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_table(
        "tokens",
        sa.Column("id", sa.String(32), primary_key=True),
        sa.Column("account_id", sa.Integer, sa.ForeignKey("accounts.id"), nullable=False),
        sa.Column("scope", sa.String(16), nullable=False),
        sa.Column("hash", sa.String(64), nullable=False, unique=True),
        sa.Column("created", sa.DateTime(timezone=True), nullable=False),
        sa.Column("revoked", sa.DateTime(timezone=True), nullable=True),
    )
    op.create_table(
        "packs",
        sa.Column("pack_id", sa.String(80), primary_key=True),
        sa.Column("account_id", sa.Integer, sa.ForeignKey("accounts.id"), nullable=False),
        sa.Column("created", sa.DateTime(timezone=True), nullable=False),
        sa.Column("latest_revision", sa.BigInteger, nullable=False),
        sa.Column("published_revision", sa.BigInteger, nullable=True),
        sa.Column("visibility", sa.String(16), nullable=False),
    )
    op.create_table(
        "revisions",
        sa.Column("pack_id", sa.String(80), sa.ForeignKey("packs.pack_id"), primary_key=True),
        sa.Column("revision", sa.BigInteger, primary_key=True, autoincrement=False),
        sa.Column("sha256", sa.String(64), nullable=False),
        sa.Column("size", sa.BigInteger, nullable=False),
        sa.Column("version", sa.String(8), nullable=False),
        sa.Column("created", sa.DateTime(timezone=True), nullable=False),
        sa.Column("deleted", sa.DateTime(timezone=True), nullable=True),
    )
    op.create_index("ix_revisions_sha256", "revisions", ["sha256"])


def downgrade() -> None:
    """Drop the tables."""
    op.drop_table("revisions")
    op.drop_table("packs")
    op.drop_table("tokens")
    op.drop_table("accounts")
