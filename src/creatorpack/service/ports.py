"""The seams of the service: the pack store, the token store, the blob store, the session store and the clock.

Part 2 adds the catalog (:class:`CatalogStore`), uploaded assets (:class:`AssetStore`) and the
service's own signing keys (:class:`KeyStore`); publishing and the audit journal extend the pack store.

Each Protocol has an in-memory fake here, so that the domain (:mod:`~creatorpack.service.packs`,
:mod:`~creatorpack.service.auth`, :mod:`~creatorpack.service.sessions`) is tested without a database;
:mod:`~creatorpack.service.store` and :mod:`~creatorpack.service.blobs` hold the real implementations.
"""

from __future__ import annotations

import hashlib
import threading
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime, timedelta
from enum import StrEnum
from typing import Any, Literal, Protocol, TypeAlias

from creatorpack.service.names import normalize_pack_id

__all__ = [
    "AGE_RATINGS",
    "REPORT_REASONS",
    "ROLES",
    "SCOPES",
    "VISIBILITIES",
    "AccountRecord",
    "Actor",
    "AddOutcome",
    "AdminEvent",
    "AdminEventKind",
    "AgeRating",
    "AssetRecord",
    "AssetStore",
    "BlobStore",
    "CatalogHit",
    "CatalogKey",
    "CatalogPage",
    "CatalogQuery",
    "CatalogSort",
    "CatalogStore",
    "Clock",
    "DeleteOutcome",
    "EventKind",
    "FixedClock",
    "KeyStore",
    "Listing",
    "MemoryAssetStore",
    "MemoryBlobStore",
    "MemoryKeyStore",
    "MemoryModerationStore",
    "MemoryPackStore",
    "MemorySessionStore",
    "MemoryTokenStore",
    "ModerationStore",
    "NewPublication",
    "NewReport",
    "NewRevision",
    "PackEvent",
    "PackEventKind",
    "PackRecord",
    "PackStore",
    "PackSummary",
    "PublicationRecord",
    "ReportReason",
    "ReportRecord",
    "ReportStatus",
    "RevisionRecord",
    "RevisionSlot",
    "Role",
    "Scope",
    "SessionEvent",
    "SessionRecord",
    "SessionStore",
    "SystemClock",
    "Takedown",
    "TokenRecord",
    "TokenStore",
    "Visibility",
]

Scope: TypeAlias = Literal["creator", "reader", "host", "admin"]
SCOPES: tuple[Scope, ...] = ("creator", "reader", "host", "admin")
Role: TypeAlias = Literal["member", "admin"]
ROLES: tuple[Role, ...] = ("member", "admin")
Visibility: TypeAlias = Literal["public", "unlisted", "private"]
EventKind: TypeAlias = Literal["start", "turn", "migrate"]
VISIBILITIES: tuple[Visibility, ...] = ("public", "unlisted", "private")
AgeRating: TypeAlias = Literal["general", "adult"]
AGE_RATINGS: tuple[AgeRating, ...] = ("general", "adult")


@dataclass(frozen=True, slots=True)
class TokenRecord:
    """A stored token: its public id, account, scope and dates; the secret itself is never stored.

    ``packs``: the pack ids (normalized, :func:`~creatorpack.service.names.normalize_pack_id`) the
    token may act on, None for every pack of its account. ``role`` and ``account_disabled`` are its
    account's, read with the token so that one read tells whether the token may do anything.
    """

    id: str
    account: str
    scope: Scope
    created: datetime
    revoked: datetime | None = None
    expires: datetime | None = None
    last_used: datetime | None = None
    packs: tuple[str, ...] | None = None
    name: str | None = None
    role: Role = "member"
    account_disabled: datetime | None = None

    def expired(self, now: datetime) -> bool:
        """Whether the token's expiry has passed at ``now``."""
        return self.expires is not None and self.expires <= now

    def may_act_on(self, pack_id: str) -> bool:
        """Whether the token may act on the pack ``pack_id`` (any spelling of its id)."""
        return self.packs is None or normalize_pack_id(pack_id) in self.packs

    @property
    def platform_admin(self) -> bool:
        """An ``admin`` token of an account whose platform role is ``admin``: it may moderate."""
        return self.scope == "admin" and self.role == "admin"


@dataclass(frozen=True, slots=True)
class AccountRecord:
    """An account: its name, platform role, and whether (since when, why) it is disabled."""

    name: str
    created: datetime
    role: Role = "member"
    disabled: datetime | None = None
    disabled_reason: str | None = None


@dataclass(frozen=True, slots=True)
class NewRevision:
    """A revision about to be stored; its bytes are already in the blob store under ``sha256``."""

    pack_id: str
    revision: int
    sha256: str
    size: int
    version: str
    created: datetime
    token_id: str | None = None  # the uploader's token, for the audit journal


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
class Takedown:
    """Why and when a platform admin hid a pack from the catalog and its readers."""

    reason: str
    at: datetime
    by: str


@dataclass(frozen=True, slots=True)
class PackRecord:
    """A pack: owner, highest revision number ever used, published revision and visibility.

    ``takedown`` is set while an admin hides the pack; ``owner_disabled`` while its owner's account
    is disabled. Either hides it from everyone but its owner (:attr:`hidden`).
    """

    pack_id: str
    owner: str
    created: datetime
    latest_revision: int
    published_revision: int | None
    visibility: Visibility
    revisions: tuple[RevisionRecord, ...]
    takedown: Takedown | None = None
    owner_disabled: bool = False

    @property
    def hidden(self) -> bool:
        """Whether moderation hides the pack from everyone but its owner."""
        return self.takedown is not None or self.owner_disabled

    @property
    def open_to_others(self) -> bool:
        """Whether a revision is published for callers other than the owner (published, not private, not hidden)."""
        return self.published_revision is not None and self.visibility != "private" and not self.hidden


@dataclass(frozen=True, slots=True)
class RevisionSlot:
    """What an upload of one revision of an existing pack meets: the owner, the latest number, that revision if any."""

    owner: str
    latest_revision: int
    existing: RevisionRecord | None  # deleted or not


class AddOutcome(StrEnum):
    """What :meth:`PackStore.add_revision` found; the domain decides what each means to the caller."""

    CREATED = "created"
    SAME = "same"  # this revision exists with these very bytes
    DIFFERENT = "different"  # this revision exists with other bytes
    DELETED = "deleted"  # this revision existed and was deleted
    NOT_ABOVE_LATEST = "not-above-latest"
    OTHER_OWNER = "other-owner"
    NAME_TAKEN = "name-taken"  # a new pack whose normalized id another pack holds


class DeleteOutcome(StrEnum):
    """What :meth:`PackStore.delete_revision` found; the domain decides what each means to the caller."""

    DELETED = "deleted"
    PUBLISHED = "published"  # the revision is the published one: nothing changed
    MISSING = "missing"  # no such pack, or no live revision of that number


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

    def revision_slot(self, pack_id: str, revision: int) -> RevisionSlot | None:
        """The pack's owner, latest revision number and revision ``revision``, in one read; None if no such pack.

        What :meth:`add_revision` would decide, read without writing: the domain refuses an upload
        before it stores the bytes. Only a hint (``add_revision`` decides again, atomically).
        """
        ...

    def delete_revision(self, pack_id: str, revision: int, when: datetime, actor: Actor | None = None) -> DeleteOutcome:
        """Mark an unpublished, undeleted revision deleted (journaled for ``actor``), or say why not.

        Whether the revision is the published one is read in the same transaction as the delete, so
        a publish that lands first makes it ``PUBLISHED``, never ``MISSING``.
        """
        ...

    def referenced_blobs(self) -> set[str]:
        """The sha256 of every revision not deleted (what the blob collector must keep)."""
        ...

    def live_revisions(self) -> list[RevisionRecord]:
        """Every revision not deleted, by pack id and number (what ``creatorpack db check`` verifies)."""
        ...

    def publish(self, publication: NewPublication, actor: Actor) -> bool:
        """Make ``publication`` the pack's published revision, its listing and a journal entry, atomically.

        False (and nothing changed) when the revision is not live any more (deleted meanwhile).
        """
        ...

    def unpublish(self, pack_id: str, actor: Actor, when: datetime) -> int | None:
        """Withdraw the published revision (journaled); the revision that was published, or None."""
        ...

    def publication(self, pack_id: str) -> PublicationRecord | None:
        """The pack's current publication, or None when nothing is published."""
        ...

    def published_pack_ids(self) -> list[str]:
        """The id of every pack that has a publication, in order."""
        ...

    def refresh_publication(self, publication: NewPublication) -> bool:
        """Replace the reader view, covers and listing of a publication, if it is still the current one.

        For a rebuild of what is derived from a publication (by a later version's rules); no journal
        entry, since the owner published nothing. The publication is named by its revision and time of
        publication (``publication.published``); False (nothing changed) when another publication, or
        none, is current now, the same revision published again included.
        """
        ...

    def events(self, pack_id: str, *, after: int = 0, limit: int = 100) -> list[PackEvent]:
        """The pack's journal entries with an id above ``after``, oldest first, at most ``limit``."""
        ...

    def publications_version(self) -> int:
        """A number that grows whenever any pack is published or unpublished (the catalog's clock)."""
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

    def touch(self, token_id: str, when: datetime) -> None:
        """Record that the token was used at ``when``."""
        ...

    def account(self, name: str) -> AccountRecord | None:
        """The account with this name, or None."""
        ...

    def accounts(self, *, after: str = "", limit: int = 100) -> list[AccountRecord]:
        """Accounts whose name sorts after ``after``, by name, at most ``limit``."""
        ...

    def set_role(self, name: str, role: Role) -> bool:
        """Give an account its platform role; False if there is no such account."""
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

    def read_range(self, sha256: str, start: int, stop: int) -> bytes | None:
        """Bytes ``start`` to ``stop - 1`` of the blob (fewer at its end), or None if there is no such blob."""
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

    def read_range(self, sha256: str, start: int, stop: int) -> bytes | None:
        """A slice of the bytes, or None."""
        found = self._blobs.get(sha256)
        return found[0][start:stop] if found else None


class MemoryPackStore:
    """Packs in dicts, one lock for atomicity."""

    def __init__(self) -> None:
        self._packs: dict[str, PackRecord] = {}
        self._lock = threading.Lock()
        self._events: list[PackEvent] = []
        self._publications: dict[str, PublicationRecord] = {}
        self._listings: list[_ListingVersion] = []
        self._seq = 0
        self._names: dict[str, str] = {}  # normalized id -> the pack that holds it
        self._takedowns: dict[str, Takedown] = {}
        self._disabled_owners: set[str] = set()

    def _journal(self, kind: PackEventKind, pack_id: str, actor: Actor, when: datetime, revision: int | None) -> None:
        event_id = len(self._events) + 1
        self._events.append(PackEvent(event_id, pack_id, kind, actor.account, actor.token_id, when, revision))

    def add_revision(self, account: str, new: NewRevision) -> AddOutcome:
        """See :meth:`PackStore.add_revision`."""
        with self._lock:
            pack = self._packs.get(new.pack_id)
            if pack is None:
                holder = self._names.get(normalize_pack_id(new.pack_id))
                if holder is not None and holder != new.pack_id:
                    return AddOutcome.NAME_TAKEN
                pack = PackRecord(new.pack_id, account, new.created, 0, None, "private", ())
                self._names[normalize_pack_id(new.pack_id)] = new.pack_id
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
            self._journal(PackEventKind.UPLOAD, new.pack_id, Actor(account, new.token_id), new.created, new.revision)
            return AddOutcome.CREATED

    def pack(self, pack_id: str) -> PackRecord | None:
        """See :meth:`PackStore.pack`."""
        pack = self._packs.get(pack_id)
        if pack is None:
            return None
        disabled = pack.owner in self._disabled_owners
        return replace(pack, takedown=self._takedowns.get(pack_id), owner_disabled=disabled)

    def _hidden(self, pack_id: str) -> bool:
        pack = self._packs.get(pack_id)
        return pack_id in self._takedowns or (pack is not None and pack.owner in self._disabled_owners)

    def revision(self, pack_id: str, revision: int) -> RevisionRecord | None:
        """See :meth:`PackStore.revision`."""
        pack = self._packs.get(pack_id)
        return next((r for r in pack.revisions if r.revision == revision), None) if pack else None

    def owned_revision(self, pack_id: str, revision: int) -> tuple[str, RevisionRecord] | None:
        """See :meth:`PackStore.owned_revision`."""
        pack = self._packs.get(pack_id)
        found = self.revision(pack_id, revision)
        return (pack.owner, found) if pack is not None and found is not None else None

    def revision_slot(self, pack_id: str, revision: int) -> RevisionSlot | None:
        """See :meth:`PackStore.revision_slot`."""
        pack = self._packs.get(pack_id)
        if pack is None:
            return None
        existing = next((r for r in pack.revisions if r.revision == revision), None)
        return RevisionSlot(pack.owner, pack.latest_revision, existing)

    def delete_revision(self, pack_id: str, revision: int, when: datetime, actor: Actor | None = None) -> DeleteOutcome:
        """See :meth:`PackStore.delete_revision`."""
        with self._lock:
            pack = self._packs.get(pack_id)
            if pack is None:
                return DeleteOutcome.MISSING
            if pack.published_revision == revision:
                return DeleteOutcome.PUBLISHED
            kept = []
            done = False
            for r in pack.revisions:
                if r.revision == revision and r.deleted is None:
                    r = replace(r, deleted=when)  # noqa: PLW2901 - the replaced record is what is kept
                    done = True
                kept.append(r)
            self._packs[pack_id] = replace(pack, revisions=tuple(kept))
            if not done:
                return DeleteOutcome.MISSING
            self._journal(PackEventKind.DELETE, pack_id, actor or Actor(pack.owner), when, revision)
            return DeleteOutcome.DELETED

    def publish(self, publication: NewPublication, actor: Actor) -> bool:
        """See :meth:`PackStore.publish`."""
        with self._lock:
            pack = self._packs.get(publication.pack_id)
            live = pack is not None and any(
                r.revision == publication.revision and r.deleted is None for r in pack.revisions
            )
            if pack is None or not live:
                return False
            self._relist(publication.pack_id, None if self._hidden(pack.pack_id) else publication.listing)
            self._packs[pack.pack_id] = replace(
                pack, published_revision=publication.revision, visibility=publication.visibility
            )
            self._publications[pack.pack_id] = PublicationRecord(
                pack.pack_id,
                pack.owner,
                publication.revision,
                publication.visibility,
                publication.published,
                publication.reader,
                publication.covers,
            )
            self._journal(PackEventKind.PUBLISH, pack.pack_id, actor, publication.published, publication.revision)
            return True

    def unpublish(self, pack_id: str, actor: Actor, when: datetime) -> int | None:
        """See :meth:`PackStore.unpublish`."""
        with self._lock:
            pack = self._packs.get(pack_id)
            current = self._publications.pop(pack_id, None)
            if pack is None or current is None:
                return None
            self._relist(pack_id, None)
            self._packs[pack_id] = replace(pack, published_revision=None, visibility="private")
            self._journal(PackEventKind.UNPUBLISH, pack_id, actor, when, current.revision)
            return current.revision

    def _relist(self, pack_id: str, listing: Listing | None) -> None:
        """One tick of the catalog clock for the pack: its open listing ends, and ``listing`` (if any) begins."""
        self._seq += 1
        self._listings = [
            replace(v, valid_to=self._seq) if v.pack_id == pack_id and v.valid_to is None else v for v in self._listings
        ]
        if listing is not None:
            self._listings.append(_ListingVersion(pack_id, self._seq, listing))

    def publication(self, pack_id: str) -> PublicationRecord | None:
        """See :meth:`PackStore.publication`."""
        found = self._publications.get(pack_id)
        return replace(found, hidden=self._hidden(pack_id)) if found is not None else None

    def published_pack_ids(self) -> list[str]:
        """See :meth:`PackStore.published_pack_ids`."""
        with self._lock:
            return sorted(self._publications)

    def refresh_publication(self, publication: NewPublication) -> bool:
        """See :meth:`PackStore.refresh_publication`."""
        with self._lock:
            current = self._publications.get(publication.pack_id)
            named = (publication.revision, publication.published)
            if current is None or (current.revision, current.published) != named:
                return False
            self._relist(publication.pack_id, None if self._hidden(publication.pack_id) else publication.listing)
            self._publications[publication.pack_id] = replace(
                current, reader=publication.reader, covers=publication.covers
            )
            return True

    def events(self, pack_id: str, *, after: int = 0, limit: int = 100) -> list[PackEvent]:
        """See :meth:`PackStore.events`."""
        found = [e for e in self._events if e.pack_id == pack_id and e.id > after]
        return found[:limit]

    def publications_version(self) -> int:
        """See :meth:`PackStore.publications_version`."""
        return self._seq

    def version(self) -> int:
        """See :meth:`CatalogStore.version`."""
        return self._seq

    def search(self, query: CatalogQuery) -> CatalogPage:
        """See :meth:`CatalogStore.search`: the same answers as the SQL catalog, computed in Python."""
        with self._lock:
            snapshot = self._seq if query.snapshot is None else query.snapshot
            current = {v.pack_id for v in self._listings if v.valid_to is None}
            hits = [
                CatalogHit(v.listing.entry, CatalogKey(_score(v.listing, query.terms), v.listing.title_key, v.seq))
                for v in self._listings
                if v.seq <= snapshot
                and (v.valid_to is None or v.valid_to > snapshot)
                and v.pack_id in current
                and _matches(v.listing, query)
            ]
        hits.sort(key=lambda hit: _order(hit.key, query.sort))
        if query.after is not None:
            mark = _order(query.after, query.sort)
            hits = [hit for hit in hits if _order(hit.key, query.sort) > mark]
        return CatalogPage(tuple(hits[: query.limit]), snapshot, more=len(hits) > query.limit)

    def referenced_blobs(self) -> set[str]:
        """See :meth:`PackStore.referenced_blobs`."""
        return {r.sha256 for p in self._packs.values() for r in p.revisions if r.deleted is None}

    def live_revisions(self) -> list[RevisionRecord]:
        """See :meth:`PackStore.live_revisions`."""
        return [r for pack_id in sorted(self._packs) for r in self._packs[pack_id].revisions if r.deleted is None]


class MemoryTokenStore:
    """Tokens in a dict keyed by hash."""

    def __init__(self) -> None:
        self._by_hash: dict[str, TokenRecord] = {}
        self._accounts: dict[str, AccountRecord] = {}
        self._lock = threading.Lock()

    def add_token(self, record: TokenRecord, token_hash: str) -> None:
        """See :meth:`TokenStore.add_token`."""
        with self._lock:
            self._accounts.setdefault(record.account, AccountRecord(record.account, record.created))
            self._by_hash[token_hash] = record

    def _with_account(self, record: TokenRecord) -> TokenRecord:
        account = self._accounts.get(record.account)
        if account is None:  # pragma: no cover - every token's account is stored with it
            return record
        return replace(record, role=account.role, account_disabled=account.disabled)

    def token_by_hash(self, token_hash: str) -> TokenRecord | None:
        """See :meth:`TokenStore.token_by_hash`."""
        found = self._by_hash.get(token_hash)
        return self._with_account(found) if found is not None else None

    def tokens(self, account: str | None = None) -> list[TokenRecord]:
        """See :meth:`TokenStore.tokens`."""
        found = [self._with_account(t) for t in self._by_hash.values() if account is None or t.account == account]
        return sorted(found, key=lambda t: (t.created, t.id))

    def touch(self, token_id: str, when: datetime) -> None:
        """See :meth:`TokenStore.touch`."""
        with self._lock:
            for digest, record in self._by_hash.items():
                if record.id == token_id:
                    self._by_hash[digest] = replace(record, last_used=when)

    def account(self, name: str) -> AccountRecord | None:
        """See :meth:`TokenStore.account`."""
        return self._accounts.get(name)

    def accounts(self, *, after: str = "", limit: int = 100) -> list[AccountRecord]:
        """See :meth:`TokenStore.accounts`."""
        return [self._accounts[n] for n in sorted(self._accounts) if n > after][:limit]

    def set_role(self, name: str, role: Role) -> bool:
        """See :meth:`TokenStore.set_role`."""
        with self._lock:
            account = self._accounts.get(name)
            if account is None:
                return False
            self._accounts[name] = replace(account, role=role)
            return True

    def revoke(self, token_id: str, when: datetime) -> bool:
        """See :meth:`TokenStore.revoke`."""
        with self._lock:
            for digest, record in self._by_hash.items():
                if record.id == token_id and record.revoked is None:
                    self._by_hash[digest] = replace(record, revoked=when)
                    return True
            return False


# -- play sessions (part 3) ------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class SessionRecord:
    """A play session: whose it is, on which revision, how far it got and its save.

    ``saved`` is the library's save (``SessionState.to_json()``); ``seq`` numbers the session's
    events (its start is 0, each turn and migration adds one), so that a change computed from one
    ``seq`` is stored only if no other change was stored since (see :meth:`SessionStore.append`).
    """

    id: str
    account: str
    pack_id: str
    revision: int
    turn: int
    seq: int
    saved: Mapping[str, Any]
    created: datetime
    updated: datetime


@dataclass(frozen=True, slots=True)
class SessionEvent:
    """One entry of a session's transcript: its start, a turn or a migration.

    ``request`` is what was asked (the turn's body, the migration's target) and ``request_hash``
    its digest, which tells a retried turn from a different one; ``result`` is what was answered,
    kept so that a retry gets the very same answer.
    """

    session_id: str
    seq: int
    kind: EventKind
    turn: int
    revision: int
    request: Mapping[str, Any] | None
    request_hash: str | None
    result: Mapping[str, Any]
    created: datetime


class SessionStore(Protocol):
    """Play sessions and their transcripts; every method is one transaction."""

    def create(self, session: SessionRecord, start: SessionEvent) -> None:
        """Store a new session and its first event (``seq`` 0) together."""
        ...

    def session(self, session_id: str) -> SessionRecord | None:
        """The session, or None."""
        ...

    def event(self, session_id: str, seq: int) -> SessionEvent | None:
        """One event of a session, or None."""
        ...

    def turn_event(self, session_id: str, turn: int) -> SessionEvent | None:
        """The event that played turn ``turn`` (kind ``turn``), or None."""
        ...

    def events(self, session_id: str) -> list[SessionEvent]:
        """Every event of a session, in order."""
        ...

    def append(self, session: SessionRecord, event: SessionEvent) -> bool:
        """Replace the session by ``session`` and add ``event`` (both at ``event.seq``) atomically.

        Only if the stored session is still at ``event.seq - 1``: two changes computed from the same
        session never both land. False, and nothing stored, if another change came first.
        """
        ...


class MemorySessionStore:
    """Sessions and events in dicts, one lock for atomicity."""

    def __init__(self) -> None:
        self._sessions: dict[str, SessionRecord] = {}
        self._events: dict[str, list[SessionEvent]] = {}
        self._lock = threading.Lock()

    def create(self, session: SessionRecord, start: SessionEvent) -> None:
        """See :meth:`SessionStore.create`."""
        with self._lock:
            if session.id in self._sessions:
                raise KeyError(f"session {session.id!r} exists")
            self._sessions[session.id] = session
            self._events[session.id] = [start]

    def session(self, session_id: str) -> SessionRecord | None:
        """See :meth:`SessionStore.session`."""
        return self._sessions.get(session_id)

    def event(self, session_id: str, seq: int) -> SessionEvent | None:
        """See :meth:`SessionStore.event`."""
        events = self._events.get(session_id, [])
        return events[seq] if 0 <= seq < len(events) else None

    def turn_event(self, session_id: str, turn: int) -> SessionEvent | None:
        """See :meth:`SessionStore.turn_event`."""
        found = [e for e in self._events.get(session_id, []) if e.kind == "turn" and e.turn == turn]
        return found[-1] if found else None

    def events(self, session_id: str) -> list[SessionEvent]:
        """See :meth:`SessionStore.events`."""
        return list(self._events.get(session_id, []))

    def append(self, session: SessionRecord, event: SessionEvent) -> bool:
        """See :meth:`SessionStore.append`."""
        with self._lock:
            stored = self._sessions.get(session.id)
            if stored is None or stored.seq != event.seq - 1 or session.seq != event.seq:
                return False
            self._sessions[session.id] = session
            self._events[session.id].append(event)
            return True


# -- publishing, the audit journal, the catalog, assets and keys (part 2) ------------------------------


@dataclass(frozen=True, slots=True)
class Actor:
    """Who does something, for the audit journal: the account and the token it used (None: a command line)."""

    account: str
    token_id: str | None = None


class PackEventKind(StrEnum):
    """What an audit journal entry records."""

    UPLOAD = "upload"
    DELETE = "delete"
    PUBLISH = "publish"
    UNPUBLISH = "unpublish"
    TAKEDOWN = "takedown"  # a platform admin hid the pack
    RESTORE = "restore"  # ... and showed it again


@dataclass(frozen=True, slots=True)
class PackEvent:
    """One entry of a pack's audit journal."""

    id: int
    pack_id: str
    kind: PackEventKind
    account: str
    token_id: str | None
    at: datetime
    revision: int | None


@dataclass(frozen=True, slots=True)
class Listing:
    """What the catalog indexes of a public published revision; all text already normalized by the domain.

    ``entry`` is the serialized catalog entry (a reader-view type) the catalog answers with;
    ``*_terms`` are the words of the title, tagline and description, ``genres`` and ``tags`` casefolded.
    """

    entry: bytes
    title_key: str
    language: str
    age_rating: AgeRating
    genres: tuple[str, ...]
    tags: tuple[str, ...]
    title_terms: tuple[str, ...]
    tagline_terms: tuple[str, ...]
    description_terms: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class NewPublication:
    """A revision about to be published: its visibility, its serialized reader view, covers and listing.

    ``covers`` maps the cover and cover-motion asset ids to their sha256; ``listing`` is None unless
    the visibility is ``public``.
    """

    pack_id: str
    revision: int
    visibility: Visibility
    published: datetime
    reader: bytes
    covers: Mapping[str, str] = field(default_factory=dict)
    listing: Listing | None = None


@dataclass(frozen=True, slots=True)
class PublicationRecord:
    """A pack's current publication: revision, visibility, owner, reader view and covers.

    ``hidden``: moderation hides the pack (taken down, or its owner disabled) from all but its owner.
    """

    pack_id: str
    owner: str
    revision: int
    visibility: Visibility
    published: datetime
    reader: bytes
    covers: Mapping[str, str]
    hidden: bool = False

    @property
    def open_to_others(self) -> bool:
        """Whether callers other than the owner may read it (not private, not hidden)."""
        return self.visibility != "private" and not self.hidden

    @property
    def listed(self) -> bool:
        """Whether it is public and shown (what the catalog lists and caches may share)."""
        return self.visibility == "public" and not self.hidden

    def readable_by(self, account: str | None) -> bool:
        """Whether ``account`` (None: an anonymous caller) may read the publication."""
        return self.open_to_others or (account is not None and account == self.owner)


class CatalogSort(StrEnum):
    """The orders of the catalog."""

    RELEVANCE = "relevance"
    NEWEST = "newest"
    TITLE = "title"


@dataclass(frozen=True, slots=True)
class CatalogKey:
    """Where a listing sits in every order: its relevance score, title key and publication sequence number."""

    score: int
    title_key: str
    seq: int


@dataclass(frozen=True, slots=True)
class CatalogQuery:
    """A catalog search, normalized by the domain.

    Every term must occur in the title, tagline or description; each scores 4 in the title, else 2
    in the tagline, else 1. ``genres``: any of them; ``tags``: all of them; ``exclude_tags``: none
    of them. ``snapshot``: the publication sequence number the search sees (None: now); ``after``:
    the key of the last listing of the previous page.
    """

    terms: tuple[str, ...] = ()
    language: str | None = None
    genres: tuple[str, ...] = ()
    tags: tuple[str, ...] = ()
    exclude_tags: tuple[str, ...] = ()
    age_ratings: tuple[AgeRating, ...] = ("general",)
    sort: CatalogSort = CatalogSort.NEWEST
    limit: int = 20
    snapshot: int | None = None
    after: CatalogKey | None = None


@dataclass(frozen=True, slots=True)
class CatalogHit:
    """One listing found: its serialized entry and its key."""

    entry: bytes
    key: CatalogKey


@dataclass(frozen=True, slots=True)
class CatalogPage:
    """A page of listings, the snapshot it was read at, and whether more follow."""

    hits: tuple[CatalogHit, ...]
    snapshot: int
    more: bool


class CatalogStore(Protocol):
    """The public listings, searchable as of any publication sequence number (paging never shifts)."""

    def search(self, query: CatalogQuery) -> CatalogPage:
        """The listings that were public at ``query.snapshot`` and still are, in ``query.sort`` order."""
        ...

    def version(self) -> int:
        """The catalog's clock: it moves whenever any pack is published or unpublished."""
        ...


@dataclass(frozen=True, slots=True)
class AssetRecord:
    """An uploaded asset file: its sha256, size, sniffed MIME type and upload time."""

    sha256: str
    size: int
    mime_type: str
    created: datetime


class AssetStore(Protocol):
    """Which asset files have been uploaded (their bytes are in the blob store, shared by hash)."""

    def add_asset(self, record: AssetRecord) -> bool:
        """Record an uploaded file; False if it was already recorded (nothing changes)."""
        ...

    def asset(self, sha256: str) -> AssetRecord | None:
        """The uploaded file with this sha256, or None."""
        ...

    def assets(self, hashes: Iterable[str]) -> dict[str, AssetRecord]:
        """The uploaded files among ``hashes``, by sha256."""
        ...

    def asset_hashes(self) -> set[str]:
        """Every uploaded sha256 (what the blob collector must keep)."""
        ...


class KeyStore(Protocol):
    """Secrets the service makes for itself (the catalog cursor's signing key), shared by every process."""

    def secret(self, name: str, candidate: str) -> str:
        """The secret stored under ``name``; ``candidate`` is stored first if there is none yet."""
        ...


@dataclass(frozen=True, slots=True)
class _ListingVersion:
    pack_id: str
    seq: int
    listing: Listing
    valid_to: int | None = None


def _score(listing: Listing, terms: tuple[str, ...]) -> int:
    score = 0
    for term in terms:
        if term in listing.title_terms:
            score += 4
        elif term in listing.tagline_terms:
            score += 2
        elif term in listing.description_terms:
            score += 1
    return score


def _matches(listing: Listing, query: CatalogQuery) -> bool:
    words = {*listing.title_terms, *listing.tagline_terms, *listing.description_terms}
    return (
        all(term in words for term in query.terms)
        and (query.language is None or listing.language == query.language)
        and listing.age_rating in query.age_ratings
        and (not query.genres or any(g in listing.genres for g in query.genres))
        and all(t in listing.tags for t in query.tags)
        and not any(t in listing.tags for t in query.exclude_tags)
    )


def _order(key: CatalogKey, sort: CatalogSort) -> tuple[int | str, ...]:
    if sort is CatalogSort.RELEVANCE:
        return (-key.score, -key.seq)
    if sort is CatalogSort.TITLE:
        return (key.title_key, key.seq)
    return (-key.seq,)


class MemoryAssetStore:
    """Uploaded assets in a dict."""

    def __init__(self) -> None:
        self._assets: dict[str, AssetRecord] = {}
        self._lock = threading.Lock()

    def add_asset(self, record: AssetRecord) -> bool:
        """See :meth:`AssetStore.add_asset`."""
        with self._lock:
            if record.sha256 in self._assets:
                return False
            self._assets[record.sha256] = record
            return True

    def asset(self, sha256: str) -> AssetRecord | None:
        """See :meth:`AssetStore.asset`."""
        return self._assets.get(sha256)

    def assets(self, hashes: Iterable[str]) -> dict[str, AssetRecord]:
        """See :meth:`AssetStore.assets`."""
        return {h: self._assets[h] for h in hashes if h in self._assets}

    def asset_hashes(self) -> set[str]:
        """See :meth:`AssetStore.asset_hashes`."""
        return set(self._assets)


class MemoryKeyStore:
    """Secrets in a dict."""

    def __init__(self) -> None:
        self._secrets: dict[str, str] = {}
        self._lock = threading.Lock()

    def secret(self, name: str, candidate: str) -> str:
        """See :meth:`KeyStore.secret`."""
        with self._lock:
            return self._secrets.setdefault(name, candidate)


# -- moderation: takedowns, disabled accounts, reports and the platform's journal ---------------------


class AdminEventKind(StrEnum):
    """What an entry of the platform's journal records (every action of a platform admin)."""

    TAKEDOWN = "takedown"
    RESTORE = "restore"
    DISABLE = "disable"
    ENABLE = "enable"
    TOKEN_CREATE = "token-create"  # noqa: S105 - an event kind, not a secret
    TOKEN_REVOKE = "token-revoke"  # noqa: S105 - an event kind, not a secret
    REPORT_RESOLVE = "report-resolve"
    ROLE = "role"


@dataclass(frozen=True, slots=True)
class AdminEvent:
    """One entry of the platform's journal: who did what to which account or pack, when and why."""

    id: int
    kind: AdminEventKind
    account: str  # the admin (or "-" for the command line)
    token_id: str | None
    at: datetime
    target_account: str | None = None
    pack_id: str | None = None
    detail: str | None = None


ReportReason: TypeAlias = Literal["spam", "rights", "harmful", "sexual", "unmarked-adult", "spoilers", "other"]
REPORT_REASONS: tuple[ReportReason, ...] = (
    "spam",
    "rights",
    "harmful",
    "sexual",
    "unmarked-adult",
    "spoilers",
    "other",
)


@dataclass(frozen=True, slots=True)
class NewReport:
    """A reader's report of a pack, about to be stored."""

    pack_id: str
    reason: ReportReason
    details: str
    reporter: str | None  # the reporting account; None for an anonymous reader
    created: datetime


@dataclass(frozen=True, slots=True)
class ReportRecord:
    """A stored report, open until an admin resolves it."""

    id: int
    pack_id: str
    reason: ReportReason
    details: str
    reporter: str | None
    created: datetime
    resolved: datetime | None = None
    resolved_by: str | None = None
    resolution: str | None = None


ReportStatus: TypeAlias = Literal["open", "resolved", "all"]


@dataclass(frozen=True, slots=True)
class PackSummary:
    """A pack as the admins' list shows it: owner, revisions, publication and moderation state."""

    pack_id: str
    owner: str
    created: datetime
    latest_revision: int
    published_revision: int | None
    visibility: Visibility
    takedown: Takedown | None
    owner_disabled: bool


class ModerationStore(Protocol):
    """What platform admins change and read; every method is one transaction with its journal entries."""

    def takedown(self, pack_id: str, reason: str, actor: Actor, when: datetime) -> bool:
        """Hide the pack (its catalog listing ends at once); False if there is no such pack."""
        ...

    def restore(self, pack_id: str, listing: Listing | None, actor: Actor, when: datetime) -> bool:
        """Show a taken-down pack again, listed by ``listing`` if it is shown; False if it was not taken down."""
        ...

    def set_disabled(
        self, account: str, reason: str | None, actor: Actor, when: datetime, listings: Mapping[str, Listing]
    ) -> bool:
        """Disable an account (``reason``) or enable it again (None); False if there is no such account.

        Disabling ends the catalog listings of its packs; enabling lists again those named in
        ``listings`` that are shown once the account is enabled (published, public, not taken down).
        """
        ...

    def packs(self, *, after: str = "", limit: int = 100, owner: str | None = None) -> list[PackSummary]:
        """Packs whose id sorts after ``after`` (of one owner), by id, at most ``limit``."""
        ...

    def add_report(self, report: NewReport) -> ReportRecord:
        """Store a report."""
        ...

    def reports(self, status: ReportStatus = "open", *, after: int = 0, limit: int = 100) -> list[ReportRecord]:
        """Reports with an id above ``after``, oldest first, at most ``limit``."""
        ...

    def resolve_report(self, report_id: int, note: str, actor: Actor, when: datetime) -> bool:
        """Resolve an open report (journaled); False if there is no open report with that id."""
        ...

    def journal(self, kind: AdminEventKind, actor: Actor, when: datetime, **target: str | None) -> None:
        """Add an entry to the platform's journal (``target_account``, ``pack_id``, ``detail``)."""
        ...

    def admin_events(self, *, after: int = 0, limit: int = 100) -> list[AdminEvent]:
        """The platform's journal entries with an id above ``after``, oldest first, at most ``limit``."""
        ...


class MemoryModerationStore:
    """Moderation over a :class:`MemoryPackStore` and a :class:`MemoryTokenStore` (their state, their locks)."""

    def __init__(self, packs: MemoryPackStore, tokens: MemoryTokenStore) -> None:
        self._packs = packs
        self._tokens = tokens
        self._reports: list[ReportRecord] = []
        self._events: list[AdminEvent] = []

    def takedown(self, pack_id: str, reason: str, actor: Actor, when: datetime) -> bool:
        """See :meth:`ModerationStore.takedown`."""
        with self._packs._lock:
            if pack_id not in self._packs._packs:
                return False
            self._packs._takedowns[pack_id] = Takedown(reason, when, actor.account)
            self._packs._relist(pack_id, None)
            self._packs._journal(PackEventKind.TAKEDOWN, pack_id, actor, when, None)
        self.journal(AdminEventKind.TAKEDOWN, actor, when, pack_id=pack_id, detail=reason)
        return True

    def restore(self, pack_id: str, listing: Listing | None, actor: Actor, when: datetime) -> bool:
        """See :meth:`ModerationStore.restore`."""
        with self._packs._lock:
            if self._packs._takedowns.pop(pack_id, None) is None:
                return False
            shown = not self._packs._hidden(pack_id) and self._shown_public(pack_id)
            self._packs._relist(pack_id, listing if shown else None)
            self._packs._journal(PackEventKind.RESTORE, pack_id, actor, when, None)
        self.journal(AdminEventKind.RESTORE, actor, when, pack_id=pack_id)
        return True

    def _shown_public(self, pack_id: str) -> bool:
        current = self._packs._publications.get(pack_id)
        return current is not None and current.visibility == "public"

    def set_disabled(
        self, account: str, reason: str | None, actor: Actor, when: datetime, listings: Mapping[str, Listing]
    ) -> bool:
        """See :meth:`ModerationStore.set_disabled`."""
        with self._tokens._lock:
            record = self._tokens._accounts.get(account)
            if record is None:
                return False
            disabled = when if reason is not None else None
            self._tokens._accounts[account] = replace(record, disabled=disabled, disabled_reason=reason)
        with self._packs._lock:
            if reason is None:
                self._packs._disabled_owners.discard(account)
            else:
                self._packs._disabled_owners.add(account)
            for pack in list(self._packs._packs.values()):
                if pack.owner != account:
                    continue
                shown = not self._packs._hidden(pack.pack_id) and self._shown_public(pack.pack_id)
                self._packs._relist(pack.pack_id, listings.get(pack.pack_id) if shown else None)
        kind = AdminEventKind.DISABLE if reason is not None else AdminEventKind.ENABLE
        self.journal(kind, actor, when, target_account=account, detail=reason)
        return True

    def packs(self, *, after: str = "", limit: int = 100, owner: str | None = None) -> list[PackSummary]:
        """See :meth:`ModerationStore.packs`."""
        found = []
        for pack_id in sorted(self._packs._packs):
            pack = self._packs.pack(pack_id)
            if pack is None or pack_id <= after or (owner is not None and pack.owner != owner):
                continue
            found.append(
                PackSummary(
                    pack.pack_id,
                    pack.owner,
                    pack.created,
                    pack.latest_revision,
                    pack.published_revision,
                    pack.visibility,
                    pack.takedown,
                    pack.owner_disabled,
                )
            )
        return found[:limit]

    def add_report(self, report: NewReport) -> ReportRecord:
        """See :meth:`ModerationStore.add_report`."""
        with self._packs._lock:
            record = ReportRecord(
                len(self._reports) + 1, report.pack_id, report.reason, report.details, report.reporter, report.created
            )
            self._reports.append(record)
            return record

    def reports(self, status: ReportStatus = "open", *, after: int = 0, limit: int = 100) -> list[ReportRecord]:
        """See :meth:`ModerationStore.reports`."""
        found = [
            r for r in self._reports if r.id > after and (status == "all" or (r.resolved is None) == (status == "open"))
        ]
        return found[:limit]

    def resolve_report(self, report_id: int, note: str, actor: Actor, when: datetime) -> bool:
        """See :meth:`ModerationStore.resolve_report`."""
        with self._packs._lock:
            index = report_id - 1
            if not 0 <= index < len(self._reports) or self._reports[index].resolved is not None:
                return False
            report = self._reports[index]
            self._reports[index] = replace(report, resolved=when, resolved_by=actor.account, resolution=note)
        self.journal(AdminEventKind.REPORT_RESOLVE, actor, when, pack_id=report.pack_id, detail=f"#{report_id}: {note}")
        return True

    def journal(self, kind: AdminEventKind, actor: Actor, when: datetime, **target: str | None) -> None:
        """See :meth:`ModerationStore.journal`."""
        with self._packs._lock:
            event = AdminEvent(len(self._events) + 1, kind, actor.account, actor.token_id, when, **target)
            self._events.append(event)

    def admin_events(self, *, after: int = 0, limit: int = 100) -> list[AdminEvent]:
        """See :meth:`ModerationStore.admin_events`."""
        return [e for e in self._events if e.id > after][:limit]
