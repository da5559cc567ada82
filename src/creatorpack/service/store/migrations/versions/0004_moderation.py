"""Names that cannot impersonate, moderation, and tokens a platform can manage.

- ``packs.normalized_id``: the pack id as ownership compares it (PEP 503: case folded, runs of
  ``-``, ``_`` and ``.`` as one ``-``), unique. A database whose packs already collide keeps every
  pack: the oldest of each colliding group holds the name, the others keep a NULL ``normalized_id``
  (their owners still upload to them by their exact id) and each collision is reported as a warning
  (logger ``creatorpack.service``). Nothing is deleted.
- ``packs.takedown_*``: a platform admin's takedown; ``accounts.role`` (``member`` or ``admin``)
  and ``accounts.disabled*``; ``tokens.expires``, ``last_used``, ``packs`` (the normalized pack ids
  a token is limited to, as JSON) and ``name``.
- ``reports`` (readers' reports of packs) and ``admin_events`` (the platform's journal).
"""

from __future__ import annotations

import logging
import re

import sqlalchemy as sa
from alembic import op

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None

_log = logging.getLogger("creatorpack.service")
_SEPARATORS = re.compile(r"[-_.]+")


def _normalized(pack_id: str) -> str:
    # The same rule as creatorpack.service.names.normalize_pack_id, written here so that this migration
    # keeps meaning what it meant when it was written.
    return _SEPARATORS.sub("-", pack_id).lower()


def upgrade() -> None:
    """Add the columns and tables, then give every pack its normalized id (collisions reported, kept)."""
    op.add_column("accounts", sa.Column("role", sa.String(16), nullable=False, server_default="member"))
    op.add_column("accounts", sa.Column("disabled", sa.DateTime(timezone=True), nullable=True))
    op.add_column("accounts", sa.Column("disabled_reason", sa.Text, nullable=True))
    op.add_column("tokens", sa.Column("expires", sa.DateTime(timezone=True), nullable=True))
    op.add_column("tokens", sa.Column("last_used", sa.DateTime(timezone=True), nullable=True))
    op.add_column("tokens", sa.Column("packs", sa.Text, nullable=True))
    op.add_column("tokens", sa.Column("name", sa.String(100), nullable=True))
    op.add_column("packs", sa.Column("normalized_id", sa.String(80), nullable=True))
    op.add_column("packs", sa.Column("takedown_reason", sa.Text, nullable=True))
    op.add_column("packs", sa.Column("takedown_at", sa.DateTime(timezone=True), nullable=True))
    op.add_column("packs", sa.Column("takedown_by", sa.String(80), nullable=True))
    _normalize_existing()
    op.create_index("ix_packs_normalized_id", "packs", ["normalized_id"], unique=True)
    op.create_table(
        "reports",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("pack_id", sa.String(80), sa.ForeignKey("packs.pack_id"), nullable=False),
        sa.Column("reason", sa.String(32), nullable=False),
        sa.Column("details", sa.Text, nullable=False),
        sa.Column("reporter", sa.String(80), nullable=True),
        sa.Column("created", sa.DateTime(timezone=True), nullable=False),
        sa.Column("resolved", sa.DateTime(timezone=True), nullable=True),
        sa.Column("resolved_by", sa.String(80), nullable=True),
        sa.Column("resolution", sa.Text, nullable=True),
    )
    op.create_index("ix_reports_open", "reports", ["resolved", "id"])
    op.create_table(
        "admin_events",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("kind", sa.String(32), nullable=False),
        sa.Column("account", sa.String(80), nullable=False),
        sa.Column("token_id", sa.String(32), nullable=True),
        sa.Column("at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("target_account", sa.String(80), nullable=True),
        sa.Column("pack_id", sa.String(80), nullable=True),
        sa.Column("detail", sa.Text, nullable=True),
    )


def _normalize_existing() -> None:
    conn = op.get_bind()
    packs = sa.table(
        "packs",
        sa.column("pack_id", sa.String),
        sa.column("created", sa.DateTime),
        sa.column("normalized_id", sa.String),
    )
    holders: dict[str, str] = {}
    rows = conn.execute(sa.select(packs.c.pack_id).order_by(packs.c.created, packs.c.pack_id)).scalars().all()
    for pack_id in rows:
        name = _normalized(pack_id)
        holder = holders.get(name)
        if holder is not None:
            _log.warning(
                "pack ids collide once normalized: %r and %r are both %r; %r keeps the name, %r keeps its "
                "revisions but no other pack can be told apart from it (nothing was deleted: review them)",
                holder,
                pack_id,
                name,
                holder,
                pack_id,
            )
            continue
        holders[name] = pack_id
        conn.execute(sa.update(packs).where(packs.c.pack_id == pack_id).values(normalized_id=name))


def downgrade() -> None:
    """Drop what upgrade added."""
    op.drop_table("admin_events")
    op.drop_index("ix_reports_open", "reports")
    op.drop_table("reports")
    op.drop_index("ix_packs_normalized_id", "packs")
    with op.batch_alter_table("packs") as batch:
        for column in ("takedown_by", "takedown_at", "takedown_reason", "normalized_id"):
            batch.drop_column(column)
    with op.batch_alter_table("tokens") as batch:
        for column in ("name", "packs", "last_used", "expires"):
            batch.drop_column(column)
    with op.batch_alter_table("accounts") as batch:
        for column in ("disabled_reason", "disabled", "role"):
            batch.drop_column(column)
