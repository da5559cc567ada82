"""The seams of the service: the pack store, the token store, the blob store and the clock.

Each Protocol has an in-memory fake here, so that the domain (:mod:`~creatorpack.service.packs`,
:mod:`~creatorpack.service.auth`) is tested without a database; :mod:`~creatorpack.service.store` and
:mod:`~creatorpack.service.blobs` hold the real implementations.
"""

from __future__ import annotations

import hashlib
import threading
from collections.abc import Iterator
from dataclasses import dataclass, replace
from datetime import UTC, datetime, timedelta
from enum import StrEnum
from typing import Literal, Protocol, TypeAlias

__all__ = [
    "SCOPES",
    "AddOutcome",
    "BlobStore",
    "Clock",
    "FixedClock",
    "MemoryBlobStore",
    "MemoryPackStore",
    "MemoryTokenStore",
    "NewRevision",
    "PackRecord",
    "PackStore",
    "RevisionRecord",
    "Scope",
    "SystemClock",
    "TokenRecord",
    "TokenStore",
    "Visibility",
]

Scope: TypeAlias = Literal["creator", "reader", "host", "admin"]
SCOPES: tuple[Scope, ...] = ("creator", "reader", "host", "admin")
Visibility: TypeAlias = Literal["public", "unlisted", "private"]


@dataclass(frozen=True, slots=True)
class TokenRecord:
    """A stored token: its public id, account, scope and dates; the secret itself is never stored."""

    id: str
    account: str
    scope: Scope
    created: datetime
    revoked: datetime | None = None


@dataclass(frozen=True, slots=True)
class NewRevision:
    """A revision about to be stored; its bytes are already in the blob store under ``sha256``."""

    pack_id: str
    revision: int
    sha256: str
    size: int
    version: str
    created: datetime


@dataclass(frozen=True, slots=True)
class RevisionRecord:
    """One stored revision of a pack (``deleted`` set once it is deleted; its number stays taken)."""

    pack_id: str
    revision: int
    sha256: str
    size: int
    version: str
    created: datetime
    deleted: datetime | None = None


@dataclass(frozen=True, slots=True)
class PackRecord:
    """A pack: owner, highest revision number ever used, published revision and visibility."""

    pack_id: str
    owner: str
    created: datetime
    latest_revision: int
    published_revision: int | None
    visibility: Visibility
    revisions: tuple[RevisionRecord, ...]


class AddOutcome(StrEnum):
    """What :meth:`PackStore.add_revision` found; the domain decides what each means to the caller."""

    CREATED = "created"
    SAME = "same"  # this revision exists with these very bytes
    DIFFERENT = "different"  # this revision exists with other bytes
    DELETED = "deleted"  # this revision existed and was deleted
    NOT_ABOVE_LATEST = "not-above-latest"
    OTHER_OWNER = "other-owner"


class Clock(Protocol):
    """Tells the time (aware, UTC)."""

    def now(self) -> datetime:
        """The current time."""
        ...


class PackStore(Protocol):
    """Packs and their revisions; every method is one transaction."""

    def add_revision(self, account: str, new: NewRevision) -> AddOutcome:
        """Store ``new`` for ``account`` atomically (creating the pack on first upload), or say why not."""
        ...

    def pack(self, pack_id: str) -> PackRecord | None:
        """The pack with all its revisions (deleted ones included), or None."""
        ...

    def revision(self, pack_id: str, revision: int) -> RevisionRecord | None:
        """One revision (deleted or not), or None."""
        ...

    def owned_revision(self, pack_id: str, revision: int) -> tuple[str, RevisionRecord] | None:
        """The pack's owner and one of its revisions (deleted or not), in one read; None if either is missing."""
        ...

    def delete_revision(self, pack_id: str, revision: int, when: datetime) -> bool:
        """Mark an unpublished, undeleted revision deleted; False if there was none to delete."""
        ...

    def referenced_blobs(self) -> set[str]:
        """The sha256 of every revision not deleted (what the blob collector must keep)."""
        ...


class TokenStore(Protocol):
    """Accounts and their tokens, stored by hash."""

    def add_token(self, record: TokenRecord, token_hash: str) -> None:
        """Store a token (creating its account on first use)."""
        ...

    def token_by_hash(self, token_hash: str) -> TokenRecord | None:
        """The token with this hash, revoked or not, or None."""
        ...

    def tokens(self, account: str | None = None) -> list[TokenRecord]:
        """Every token (of one account), oldest first."""
        ...

    def revoke(self, token_id: str, when: datetime) -> bool:
        """Revoke a token; False if there is no such token or it was already revoked."""
        ...


class BlobStore(Protocol):
    """Bytes addressed by their sha256 (hex); writes are atomic and idempotent."""

    def put(self, data: bytes) -> str:
        """Store ``data`` (a no-op if already there) and return its sha256."""
        ...

    def get(self, sha256: str) -> bytes | None:
        """The bytes stored under ``sha256``, or None."""
        ...

    def delete(self, sha256: str) -> None:
        """Remove the bytes (a no-op if absent)."""
        ...

    def list(self) -> Iterator[tuple[str, datetime]]:
        """Every stored sha256 with the time it was written."""
        ...


class SystemClock:
    """The real clock."""

    def now(self) -> datetime:
        """The current time, UTC."""
        return datetime.now(UTC)


class FixedClock:
    """A clock that moves only when told to."""

    def __init__(self, start: datetime | None = None) -> None:
        self.current = start or datetime(2026, 1, 1, tzinfo=UTC)

    def now(self) -> datetime:
        """The current (fixed) time."""
        return self.current

    def advance(self, seconds: float) -> None:
        """Move the clock forward."""
        self.current += timedelta(seconds=seconds)


class MemoryBlobStore:
    """Blobs in a dict."""

    def __init__(self, clock: Clock | None = None) -> None:
        self._clock = clock or SystemClock()
        self._blobs: dict[str, tuple[bytes, datetime]] = {}
        self._lock = threading.Lock()

    def put(self, data: bytes) -> str:
        """Store ``data`` under its sha256."""
        digest = hashlib.sha256(data).hexdigest()
        with self._lock:
            self._blobs.setdefault(digest, (bytes(data), self._clock.now()))
        return digest

    def get(self, sha256: str) -> bytes | None:
        """The bytes, or None."""
        found = self._blobs.get(sha256)
        return found[0] if found else None

    def delete(self, sha256: str) -> None:
        """Forget the bytes."""
        with self._lock:
            self._blobs.pop(sha256, None)

    def list(self) -> Iterator[tuple[str, datetime]]:
        """Every sha256 with its write time."""
        return iter([(digest, when) for digest, (_, when) in self._blobs.items()])


class MemoryPackStore:
    """Packs in dicts, one lock for atomicity."""

    def __init__(self) -> None:
        self._packs: dict[str, PackRecord] = {}
        self._lock = threading.Lock()

    def add_revision(self, account: str, new: NewRevision) -> AddOutcome:
        """See :meth:`PackStore.add_revision`."""
        with self._lock:
            pack = self._packs.get(new.pack_id)
            if pack is None:
                pack = PackRecord(new.pack_id, account, new.created, 0, None, "private", ())
            elif pack.owner != account:
                return AddOutcome.OTHER_OWNER
            for existing in pack.revisions:
                if existing.revision == new.revision:
                    if existing.deleted is not None:
                        return AddOutcome.DELETED
                    return AddOutcome.SAME if existing.sha256 == new.sha256 else AddOutcome.DIFFERENT
            if new.revision <= pack.latest_revision:
                return AddOutcome.NOT_ABOVE_LATEST
            stored = RevisionRecord(new.pack_id, new.revision, new.sha256, new.size, new.version, new.created)
            self._packs[new.pack_id] = replace(pack, latest_revision=new.revision, revisions=(*pack.revisions, stored))
            return AddOutcome.CREATED

    def pack(self, pack_id: str) -> PackRecord | None:
        """See :meth:`PackStore.pack`."""
        return self._packs.get(pack_id)

    def revision(self, pack_id: str, revision: int) -> RevisionRecord | None:
        """See :meth:`PackStore.revision`."""
        pack = self._packs.get(pack_id)
        return next((r for r in pack.revisions if r.revision == revision), None) if pack else None

    def owned_revision(self, pack_id: str, revision: int) -> tuple[str, RevisionRecord] | None:
        """See :meth:`PackStore.owned_revision`."""
        pack = self._packs.get(pack_id)
        found = self.revision(pack_id, revision)
        return (pack.owner, found) if pack is not None and found is not None else None

    def delete_revision(self, pack_id: str, revision: int, when: datetime) -> bool:
        """See :meth:`PackStore.delete_revision`."""
        with self._lock:
            pack = self._packs.get(pack_id)
            if pack is None or pack.published_revision == revision:
                return False
            kept = []
            done = False
            for r in pack.revisions:
                if r.revision == revision and r.deleted is None:
                    r = replace(r, deleted=when)  # noqa: PLW2901 - the replaced record is what is kept
                    done = True
                kept.append(r)
            self._packs[pack_id] = replace(pack, revisions=tuple(kept))
            return done

    def referenced_blobs(self) -> set[str]:
        """See :meth:`PackStore.referenced_blobs`."""
        return {r.sha256 for p in self._packs.values() for r in p.revisions if r.deleted is None}


class MemoryTokenStore:
    """Tokens in a dict keyed by hash."""

    def __init__(self) -> None:
        self._by_hash: dict[str, TokenRecord] = {}
        self._lock = threading.Lock()

    def add_token(self, record: TokenRecord, token_hash: str) -> None:
        """See :meth:`TokenStore.add_token`."""
        with self._lock:
            self._by_hash[token_hash] = record

    def token_by_hash(self, token_hash: str) -> TokenRecord | None:
        """See :meth:`TokenStore.token_by_hash`."""
        return self._by_hash.get(token_hash)

    def tokens(self, account: str | None = None) -> list[TokenRecord]:
        """See :meth:`TokenStore.tokens`."""
        found = [t for t in self._by_hash.values() if account is None or t.account == account]
        return sorted(found, key=lambda t: (t.created, t.id))

    def revoke(self, token_id: str, when: datetime) -> bool:
        """See :meth:`TokenStore.revoke`."""
        with self._lock:
            for digest, record in self._by_hash.items():
                if record.id == token_id and record.revoked is None:
                    self._by_hash[digest] = replace(record, revoked=when)
                    return True
            return False
