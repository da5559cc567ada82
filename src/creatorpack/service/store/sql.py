"""The SQL implementations of :class:`~creatorpack.service.ports.PackStore` and ``TokenStore``."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any, Final

import orjson
from sqlalchemy import Connection, and_, bindparam, delete, insert, select, update
from sqlalchemy.exc import IntegrityError

from creatorpack.service.names import normalize_pack_id
from creatorpack.service.ports import (
    AccountRecord,
    Actor,
    AddOutcome,
    DeleteOutcome,
    NewPublication,
    NewRevision,
    PackEvent,
    PackEventKind,
    PackRecord,
    PublicationRecord,
    RevisionRecord,
    RevisionSlot,
    Role,
    Takedown,
    TokenRecord,
)
from creatorpack.service.store.catalog import relist
from creatorpack.service.store.database import Database
from creatorpack.service.store.tables import (
    accounts,
    catalog_clock,
    pack_events,
    packs,
    publications,
    revisions,
    tokens,
)

__all__ = [
    "SqlPackStore",
    "SqlTokenStore",
    "account_record",
    "hidden_pack",
    "journal",
    "takedown_of",
    "utc",
]

_ATTEMPTS: Final = 5  # a unique-key race (two first uploads of one pack) is retried

# The hot reads, built once (SQLAlchemy caches their compiled form; building them costs more than running them).
_OWNED_REVISION: Final = (
    select(revisions, accounts.c.name)
    .join(packs, packs.c.pack_id == revisions.c.pack_id)
    .join(accounts, accounts.c.id == packs.c.account_id)
    .where(revisions.c.pack_id == bindparam("pack_id"), revisions.c.revision == bindparam("revision"))
)
_REVISION_SLOT: Final = (
    select(packs.c.latest_revision, accounts.c.name, revisions)
    .select_from(packs)
    .join(accounts, accounts.c.id == packs.c.account_id)
    .outerjoin(
        revisions,
        and_(revisions.c.pack_id == packs.c.pack_id, revisions.c.revision == bindparam("revision")),
    )
    .where(packs.c.pack_id == bindparam("pack_id"))
)
_PUBLICATION: Final = (
    select(publications, accounts.c.name, packs.c.takedown_at, accounts.c.disabled)
    .join(packs, packs.c.pack_id == publications.c.pack_id)
    .join(accounts, accounts.c.id == packs.c.account_id)
    .where(publications.c.pack_id == bindparam("pack_id"))
)
_CLOCK: Final = select(catalog_clock.c.seq).where(catalog_clock.c.id == 1)
_TOKEN_COLUMNS: Final = (
    tokens.c.id,
    accounts.c.name,
    tokens.c.scope,
    tokens.c.created,
    tokens.c.revoked,
    tokens.c.expires,
    tokens.c.last_used,
    tokens.c.packs,
    tokens.c.name.label("token_name"),
    accounts.c.role,
    accounts.c.disabled,
)
_TOKEN_BY_HASH: Final = (
    select(*_TOKEN_COLUMNS)
    .join(accounts, accounts.c.id == tokens.c.account_id)
    .where(tokens.c.hash == bindparam("hash"))
)


class _RacedError(Exception):
    """The transaction read before a concurrent one committed what it must see: it is run again."""


def utc(value: datetime | None) -> datetime | None:
    """A database time as an aware UTC datetime (SQLite hands back naive ones); None stays None."""
    if value is None:
        return None
    return value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)


def _revision(row: Any) -> RevisionRecord:
    created = utc(row.created)
    assert created is not None
    return RevisionRecord(row.pack_id, row.revision, row.sha256, row.size, row.version, created, utc(row.deleted))


def journal(
    conn: Connection, kind: PackEventKind, pack_id: str, actor: Actor, when: datetime, revision: int | None
) -> None:
    """Add an entry to the pack's audit journal, in ``conn``'s transaction."""
    conn.execute(
        insert(pack_events).values(
            pack_id=pack_id,
            kind=str(kind),
            account=actor.account,
            token_id=actor.token_id,
            at=when,
            revision=revision,
        )
    )


def hidden_pack(conn: Connection, pack_id: str) -> bool:
    """Whether moderation hides the pack (taken down, or its owner disabled), read in ``conn``'s transaction."""
    row = conn.execute(
        select(packs.c.takedown_at, accounts.c.disabled)
        .join(accounts, accounts.c.id == packs.c.account_id)
        .where(packs.c.pack_id == pack_id)
    ).one_or_none()
    return row is not None and (row.takedown_at is not None or row.disabled is not None)


def takedown_of(row: Any) -> Takedown | None:
    """The takedown a row of ``packs`` records, if any."""
    at = utc(row.takedown_at)
    if at is None:
        return None
    return Takedown(row.takedown_reason or "", at, row.takedown_by or "")


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
            except (IntegrityError, _RacedError):
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
            name = normalize_pack_id(new.pack_id)
            holder = conn.execute(select(packs.c.pack_id).where(packs.c.normalized_id == name)).scalar()
            if holder == new.pack_id:  # a concurrent first upload created it after this transaction looked
                raise _RacedError
            if holder is not None:
                return AddOutcome.NAME_TAKEN
            conn.execute(
                insert(packs).values(
                    pack_id=new.pack_id,
                    account_id=owner_id,
                    created=new.created,
                    latest_revision=0,
                    published_revision=None,
                    visibility="private",
                    normalized_id=name,
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
        journal(conn, PackEventKind.UPLOAD, new.pack_id, Actor(account, new.token_id), new.created, new.revision)
        return AddOutcome.CREATED

    def pack(self, pack_id: str) -> PackRecord | None:
        """See :meth:`~creatorpack.service.ports.PackStore.pack`."""
        with self._db.read() as conn:
            row = conn.execute(
                select(packs, accounts.c.name, accounts.c.disabled)
                .join(accounts, accounts.c.id == packs.c.account_id)
                .where(packs.c.pack_id == pack_id)
            ).one_or_none()
            if row is None:
                return None
            found = conn.execute(
                select(revisions).where(revisions.c.pack_id == pack_id).order_by(revisions.c.revision)
            ).all()
        created = utc(row.created)
        assert created is not None
        return PackRecord(
            row.pack_id,
            row.name,
            created,
            int(row.latest_revision),
            row.published_revision,
            row.visibility,
            tuple(_revision(r) for r in found),
            takedown_of(row),
            row.disabled is not None,
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

    def revision_slot(self, pack_id: str, revision: int) -> RevisionSlot | None:
        """See :meth:`~creatorpack.service.ports.PackStore.revision_slot`."""
        with self._db.read() as conn:
            row = conn.execute(_REVISION_SLOT, {"pack_id": pack_id, "revision": revision}).one_or_none()
        if row is None:
            return None
        existing = _revision(row) if row.revision is not None else None
        return RevisionSlot(row.name, int(row.latest_revision), existing)

    def delete_revision(self, pack_id: str, revision: int, when: datetime, actor: Actor | None = None) -> DeleteOutcome:
        """See :meth:`~creatorpack.service.ports.PackStore.delete_revision`."""
        with self._db.write() as conn:
            row = conn.execute(
                select(packs.c.published_revision, accounts.c.name)
                .join(accounts, accounts.c.id == packs.c.account_id)
                .where(packs.c.pack_id == pack_id)
                .with_for_update(of=packs)
            ).one_or_none()
            if row is None:
                return DeleteOutcome.MISSING
            if row.published_revision == revision:
                return DeleteOutcome.PUBLISHED
            done = conn.execute(
                update(revisions)
                .where(revisions.c.pack_id == pack_id, revisions.c.revision == revision, revisions.c.deleted.is_(None))
                .values(deleted=when)
            )
            if not done.rowcount:
                return DeleteOutcome.MISSING
            journal(conn, PackEventKind.DELETE, pack_id, actor or Actor(row.name), when, revision)
            return DeleteOutcome.DELETED

    def publish(self, publication: NewPublication, actor: Actor) -> bool:
        """See :meth:`~creatorpack.service.ports.PackStore.publish`."""
        pack_id = publication.pack_id
        with self._db.write() as conn:
            locked = conn.execute(select(packs.c.pack_id).where(packs.c.pack_id == pack_id).with_for_update()).scalar()
            live = conn.execute(
                select(revisions.c.revision).where(
                    revisions.c.pack_id == pack_id,
                    revisions.c.revision == publication.revision,
                    revisions.c.deleted.is_(None),
                )
            ).scalar()
            if locked is None or live is None:
                return False
            relist(conn, pack_id, None if hidden_pack(conn, pack_id) else publication.listing)
            conn.execute(
                update(packs)
                .where(packs.c.pack_id == pack_id)
                .values(published_revision=publication.revision, visibility=publication.visibility)
            )
            conn.execute(delete(publications).where(publications.c.pack_id == pack_id))
            conn.execute(
                insert(publications).values(
                    pack_id=pack_id,
                    revision=publication.revision,
                    visibility=publication.visibility,
                    published=publication.published,
                    reader=publication.reader.decode("utf-8"),
                    covers=orjson.dumps(dict(publication.covers)).decode("utf-8"),
                )
            )
            journal(conn, PackEventKind.PUBLISH, pack_id, actor, publication.published, publication.revision)
            return True

    def unpublish(self, pack_id: str, actor: Actor, when: datetime) -> int | None:
        """See :meth:`~creatorpack.service.ports.PackStore.unpublish`."""
        with self._db.write() as conn:
            published = conn.execute(
                select(packs.c.published_revision).where(packs.c.pack_id == pack_id).with_for_update()
            ).scalar()
            if published is None:
                return None
            relist(conn, pack_id, None)
            conn.execute(delete(publications).where(publications.c.pack_id == pack_id))
            conn.execute(
                update(packs).where(packs.c.pack_id == pack_id).values(published_revision=None, visibility="private")
            )
            journal(conn, PackEventKind.UNPUBLISH, pack_id, actor, when, int(published))
            return int(published)

    def publication(self, pack_id: str) -> PublicationRecord | None:
        """See :meth:`~creatorpack.service.ports.PackStore.publication`."""
        with self._db.read() as conn:
            row = conn.execute(_PUBLICATION, {"pack_id": pack_id}).one_or_none()
        if row is None:
            return None
        published = utc(row.published)
        assert published is not None
        covers = orjson.loads(row.covers)
        return PublicationRecord(
            row.pack_id,
            row.name,
            int(row.revision),
            row.visibility,
            published,
            row.reader.encode("utf-8"),
            covers,
            hidden=row.takedown_at is not None or row.disabled is not None,
        )

    def published_pack_ids(self) -> list[str]:
        """See :meth:`~creatorpack.service.ports.PackStore.published_pack_ids`."""
        with self._db.read() as conn:
            return list(conn.execute(select(publications.c.pack_id).order_by(publications.c.pack_id)).scalars())

    def refresh_publication(self, publication: NewPublication) -> bool:
        """See :meth:`~creatorpack.service.ports.PackStore.refresh_publication`."""
        pack_id = publication.pack_id
        with self._db.write() as conn:
            published = conn.execute(
                select(packs.c.published_revision).where(packs.c.pack_id == pack_id).with_for_update()
            ).scalar()
            if published is None or int(published) != publication.revision:
                return False
            when = conn.execute(select(publications.c.published).where(publications.c.pack_id == pack_id)).scalar()
            if utc(when) != publication.published:  # published again meanwhile: the new publication stands
                return False
            relist(conn, pack_id, None if hidden_pack(conn, pack_id) else publication.listing)
            conn.execute(
                update(publications)
                .where(publications.c.pack_id == pack_id)
                .values(
                    reader=publication.reader.decode("utf-8"),
                    covers=orjson.dumps(dict(publication.covers)).decode("utf-8"),
                )
            )
            return True

    def publications_version(self) -> int:
        """See :meth:`~creatorpack.service.ports.PackStore.publications_version`."""
        with self._db.read() as conn:
            return int(conn.execute(_CLOCK).scalar_one())

    def events(self, pack_id: str, *, after: int = 0, limit: int = 100) -> list[PackEvent]:
        """See :meth:`~creatorpack.service.ports.PackStore.events`."""
        with self._db.read() as conn:
            rows = conn.execute(
                select(pack_events)
                .where(pack_events.c.pack_id == pack_id, pack_events.c.id > after)
                .order_by(pack_events.c.id)
                .limit(limit)
            ).all()
        found = []
        for row in rows:
            at = utc(row.at)
            assert at is not None
            kind = PackEventKind(row.kind)
            found.append(PackEvent(int(row.id), row.pack_id, kind, row.account, row.token_id, at, row.revision))
        return found

    def referenced_blobs(self) -> set[str]:
        """See :meth:`~creatorpack.service.ports.PackStore.referenced_blobs`."""
        with self._db.read() as conn:
            return set(conn.execute(select(revisions.c.sha256).where(revisions.c.deleted.is_(None))).scalars())

    def live_revisions(self) -> list[RevisionRecord]:
        """See :meth:`~creatorpack.service.ports.PackStore.live_revisions`."""
        query = (
            select(revisions).where(revisions.c.deleted.is_(None)).order_by(revisions.c.pack_id, revisions.c.revision)
        )
        with self._db.read() as conn:
            return [_revision(row) for row in conn.execute(query)]


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
                            expires=record.expires,
                            packs=None if record.packs is None else orjson.dumps(list(record.packs)).decode(),
                            name=record.name,
                        )
                    )
                    return
            except IntegrityError:
                if attempt == _ATTEMPTS - 1:
                    raise

    @staticmethod
    def _record(row: Any) -> TokenRecord:
        created = utc(row.created)
        assert created is not None
        return TokenRecord(
            row.id,
            row.name,
            row.scope,
            created,
            utc(row.revoked),
            expires=utc(row.expires),
            last_used=utc(row.last_used),
            packs=None if row.packs is None else tuple(orjson.loads(row.packs)),
            name=row.token_name,
            role=row.role,
            account_disabled=utc(row.disabled),
        )

    def token_by_hash(self, token_hash: str) -> TokenRecord | None:
        """See :meth:`~creatorpack.service.ports.TokenStore.token_by_hash`."""
        with self._db.read() as conn:
            row = conn.execute(_TOKEN_BY_HASH, {"hash": token_hash}).one_or_none()
        return self._record(row) if row is not None else None

    def tokens(self, account: str | None = None) -> list[TokenRecord]:
        """See :meth:`~creatorpack.service.ports.TokenStore.tokens`."""
        query = select(*_TOKEN_COLUMNS).join(accounts, accounts.c.id == tokens.c.account_id)
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

    def touch(self, token_id: str, when: datetime) -> None:
        """See :meth:`~creatorpack.service.ports.TokenStore.touch`."""
        with self._db.write() as conn:
            conn.execute(update(tokens).where(tokens.c.id == token_id).values(last_used=when))

    def account(self, name: str) -> AccountRecord | None:
        """See :meth:`~creatorpack.service.ports.TokenStore.account`."""
        with self._db.read() as conn:
            row = conn.execute(select(accounts).where(accounts.c.name == name)).one_or_none()
        return account_record(row) if row is not None else None

    def accounts(self, *, after: str = "", limit: int = 100) -> list[AccountRecord]:
        """See :meth:`~creatorpack.service.ports.TokenStore.accounts`."""
        with self._db.read() as conn:
            rows = conn.execute(
                select(accounts).where(accounts.c.name > after).order_by(accounts.c.name).limit(limit)
            ).all()
        return [account_record(row) for row in rows]

    def set_role(self, name: str, role: Role) -> bool:
        """See :meth:`~creatorpack.service.ports.TokenStore.set_role`."""
        with self._db.write() as conn:
            done = conn.execute(update(accounts).where(accounts.c.name == name).values(role=role))
            return bool(done.rowcount)


def account_record(row: Any) -> AccountRecord:
    """An :class:`AccountRecord` from a row of ``accounts``."""
    created = utc(row.created)
    assert created is not None
    return AccountRecord(row.name, created, row.role, utc(row.disabled), row.disabled_reason)
