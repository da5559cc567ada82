"""The SQL implementations of :class:`~creatorpack.service.ports.PackStore` and ``TokenStore``."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any, Final

from sqlalchemy import Connection, bindparam, insert, select, update
from sqlalchemy.exc import IntegrityError

from creatorpack.service.ports import AddOutcome, NewRevision, PackRecord, RevisionRecord, TokenRecord
from creatorpack.service.store.database import Database
from creatorpack.service.store.tables import accounts, packs, revisions, tokens

__all__ = ["SqlPackStore", "SqlTokenStore"]

_ATTEMPTS: Final = 5  # a unique-key race (two first uploads of one pack) is retried

# The hot reads, built once (SQLAlchemy caches their compiled form; building them costs more than running them).
_OWNED_REVISION: Final = (
    select(revisions, accounts.c.name)
    .join(packs, packs.c.pack_id == revisions.c.pack_id)
    .join(accounts, accounts.c.id == packs.c.account_id)
    .where(revisions.c.pack_id == bindparam("pack_id"), revisions.c.revision == bindparam("revision"))
)
_TOKEN_BY_HASH: Final = (
    select(tokens.c.id, accounts.c.name, tokens.c.scope, tokens.c.created, tokens.c.revoked)
    .join(accounts, accounts.c.id == tokens.c.account_id)
    .where(tokens.c.hash == bindparam("hash"))
)


def _utc(value: datetime | None) -> datetime | None:
    if value is None:
        return None
    return value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)


def _revision(row: Any) -> RevisionRecord:
    created = _utc(row.created)
    assert created is not None
    return RevisionRecord(row.pack_id, row.revision, row.sha256, row.size, row.version, created, _utc(row.deleted))


def _account_id(conn: Connection, name: str, when: datetime) -> int:
    found = conn.execute(select(accounts.c.id).where(accounts.c.name == name)).scalar()
    if found is not None:
        return int(found)
    return int(conn.execute(insert(accounts).values(name=name, created=when).returning(accounts.c.id)).scalar_one())


class SqlPackStore:
    """Packs and revisions in SQL; every method is one transaction."""

    def __init__(self, database: Database) -> None:
        self._db = database

    def add_revision(self, account: str, new: NewRevision) -> AddOutcome:
        """See :meth:`~creatorpack.service.ports.PackStore.add_revision`."""
        for attempt in range(_ATTEMPTS):
            try:
                with self._db.write() as conn:
                    return self._add(conn, account, new)
            except IntegrityError:
                if attempt == _ATTEMPTS - 1:
                    raise
        raise AssertionError("unreachable")  # pragma: no cover

    @staticmethod
    def _add(conn: Connection, account: str, new: NewRevision) -> AddOutcome:
        owner_id = _account_id(conn, account, new.created)
        pack = conn.execute(
            select(packs.c.account_id, packs.c.latest_revision).where(packs.c.pack_id == new.pack_id).with_for_update()
        ).one_or_none()
        if pack is None:
            conn.execute(
                insert(packs).values(
                    pack_id=new.pack_id,
                    account_id=owner_id,
                    created=new.created,
                    latest_revision=0,
                    published_revision=None,
                    visibility="private",
                )
            )
            latest = 0
        elif pack.account_id != owner_id:
            return AddOutcome.OTHER_OWNER
        else:
            latest = int(pack.latest_revision)
        existing = conn.execute(
            select(revisions.c.sha256, revisions.c.deleted).where(
                revisions.c.pack_id == new.pack_id, revisions.c.revision == new.revision
            )
        ).one_or_none()
        if existing is not None:
            if existing.deleted is not None:
                return AddOutcome.DELETED
            return AddOutcome.SAME if existing.sha256 == new.sha256 else AddOutcome.DIFFERENT
        if new.revision <= latest:
            return AddOutcome.NOT_ABOVE_LATEST
        conn.execute(
            insert(revisions).values(
                pack_id=new.pack_id,
                revision=new.revision,
                sha256=new.sha256,
                size=new.size,
                version=new.version,
                created=new.created,
                deleted=None,
            )
        )
        conn.execute(update(packs).where(packs.c.pack_id == new.pack_id).values(latest_revision=new.revision))
        return AddOutcome.CREATED

    def pack(self, pack_id: str) -> PackRecord | None:
        """See :meth:`~creatorpack.service.ports.PackStore.pack`."""
        with self._db.read() as conn:
            row = conn.execute(
                select(packs, accounts.c.name)
                .join(accounts, accounts.c.id == packs.c.account_id)
                .where(packs.c.pack_id == pack_id)
            ).one_or_none()
            if row is None:
                return None
            found = conn.execute(
                select(revisions).where(revisions.c.pack_id == pack_id).order_by(revisions.c.revision)
            ).all()
        created = _utc(row.created)
        assert created is not None
        return PackRecord(
            row.pack_id,
            row.name,
            created,
            int(row.latest_revision),
            row.published_revision,
            row.visibility,
            tuple(_revision(r) for r in found),
        )

    def revision(self, pack_id: str, revision: int) -> RevisionRecord | None:
        """See :meth:`~creatorpack.service.ports.PackStore.revision`."""
        with self._db.read() as conn:
            row = conn.execute(
                select(revisions).where(revisions.c.pack_id == pack_id, revisions.c.revision == revision)
            ).one_or_none()
        return _revision(row) if row is not None else None

    def owned_revision(self, pack_id: str, revision: int) -> tuple[str, RevisionRecord] | None:
        """See :meth:`~creatorpack.service.ports.PackStore.owned_revision`."""
        with self._db.read() as conn:
            row = conn.execute(_OWNED_REVISION, {"pack_id": pack_id, "revision": revision}).one_or_none()
        return (row.name, _revision(row)) if row is not None else None

    def delete_revision(self, pack_id: str, revision: int, when: datetime) -> bool:
        """See :meth:`~creatorpack.service.ports.PackStore.delete_revision`."""
        with self._db.write() as conn:
            published = conn.execute(
                select(packs.c.published_revision).where(packs.c.pack_id == pack_id).with_for_update()
            ).scalar()
            if published == revision:
                return False
            done = conn.execute(
                update(revisions)
                .where(revisions.c.pack_id == pack_id, revisions.c.revision == revision, revisions.c.deleted.is_(None))
                .values(deleted=when)
            )
            return bool(done.rowcount)

    def referenced_blobs(self) -> set[str]:
        """See :meth:`~creatorpack.service.ports.PackStore.referenced_blobs`."""
        with self._db.read() as conn:
            return set(conn.execute(select(revisions.c.sha256).where(revisions.c.deleted.is_(None))).scalars())


class SqlTokenStore:
    """Accounts and token hashes in SQL."""

    def __init__(self, database: Database) -> None:
        self._db = database

    def add_token(self, record: TokenRecord, token_hash: str) -> None:
        """See :meth:`~creatorpack.service.ports.TokenStore.add_token`."""
        for attempt in range(_ATTEMPTS):
            try:
                with self._db.write() as conn:
                    account_id = _account_id(conn, record.account, record.created)
                    conn.execute(
                        insert(tokens).values(
                            id=record.id,
                            account_id=account_id,
                            scope=record.scope,
                            hash=token_hash,
                            created=record.created,
                            revoked=record.revoked,
                        )
                    )
                    return
            except IntegrityError:
                if attempt == _ATTEMPTS - 1:
                    raise

    _COLUMNS = (tokens.c.id, accounts.c.name, tokens.c.scope, tokens.c.created, tokens.c.revoked)

    @staticmethod
    def _record(row: Any) -> TokenRecord:
        created = _utc(row.created)
        assert created is not None
        return TokenRecord(row.id, row.name, row.scope, created, _utc(row.revoked))

    def token_by_hash(self, token_hash: str) -> TokenRecord | None:
        """See :meth:`~creatorpack.service.ports.TokenStore.token_by_hash`."""
        with self._db.read() as conn:
            row = conn.execute(_TOKEN_BY_HASH, {"hash": token_hash}).one_or_none()
        return self._record(row) if row is not None else None

    def tokens(self, account: str | None = None) -> list[TokenRecord]:
        """See :meth:`~creatorpack.service.ports.TokenStore.tokens`."""
        query = select(*self._COLUMNS).join(accounts, accounts.c.id == tokens.c.account_id)
        if account is not None:
            query = query.where(accounts.c.name == account)
        with self._db.read() as conn:
            rows = conn.execute(query.order_by(tokens.c.created, tokens.c.id)).all()
        return [self._record(r) for r in rows]

    def revoke(self, token_id: str, when: datetime) -> bool:
        """See :meth:`~creatorpack.service.ports.TokenStore.revoke`."""
        with self._db.write() as conn:
            done = conn.execute(
                update(tokens).where(tokens.c.id == token_id, tokens.c.revoked.is_(None)).values(revoked=when)
            )
            return bool(done.rowcount)
