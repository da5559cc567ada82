"""Every live revision row, read for ``creatorpack db check``.

The pack store answers per pack; checking the storage needs them all. This reads the store's
tables and changes nothing (the store's own modules stay as they are: accounts and moderation are
being added there).
"""

from __future__ import annotations

from datetime import UTC, datetime

from sqlalchemy import select

from creatorpack.service.ports import RevisionRecord
from creatorpack.service.store import Database
from creatorpack.service.store.tables import revisions

__all__ = ["live_revisions"]


def live_revisions(database: Database) -> list[RevisionRecord]:
    """Every revision that is not deleted, by pack id and number."""
    columns = revisions.c
    query = (
        select(columns.pack_id, columns.revision, columns.sha256, columns.size, columns.version, columns.created)
        .where(columns.deleted.is_(None))
        .order_by(columns.pack_id, columns.revision)
    )
    with database.read() as conn:
        rows = conn.execute(query).all()
    return [RevisionRecord(r.pack_id, r.revision, r.sha256, r.size, r.version, _utc(r.created)) for r in rows]


def _utc(value: datetime) -> datetime:
    return value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)
