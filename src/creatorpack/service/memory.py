"""The in-memory fakes of the service's seams (:mod:`~creatorpack.service.ports`), shipped for tests and trials.

Each fake keeps what a real store keeps (:mod:`~creatorpack.service.store`, :mod:`~creatorpack.service.blobs`)
in dicts and lists under one lock, with the same answers, so that the domain
(:mod:`~creatorpack.service.packs`, :mod:`~creatorpack.service.auth`, :mod:`~creatorpack.service.sessions`,
the catalog and moderation) is tested without a database. :class:`FixedClock` is the clock a test moves by hand.
"""

from __future__ import annotations

import hashlib
import threading
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, replace
from datetime import UTC, datetime, timedelta

from creatorpack.service.names import normalize_pack_id
from creatorpack.service.ports import (
    RANK_WEIGHTS,
    AccountRecord,
    Actor,
    AddOutcome,
    AdminEvent,
    AdminEventKind,
    AssetRecord,
    CatalogHit,
    CatalogKey,
    CatalogPage,
    CatalogQuery,
    CatalogSort,
    Clock,
    DeleteOutcome,
    Listing,
    NewPublication,
    NewReport,
    NewRevision,
    PackEvent,
    PackEventKind,
    PackRecord,
    PackSummary,
    PublicationRecord,
    ReportRecord,
    ReportStatus,
    RevisionRecord,
    RevisionSlot,
    Role,
    SessionEvent,
    SessionRecord,
    SystemClock,
    Takedown,
    TokenRecord,
)

__all__ = [
    "FixedClock",
    "MemoryAssetStore",
    "MemoryBlobStore",
    "MemoryKeyStore",
    "MemoryModerationStore",
    "MemoryPackStore",
    "MemorySessionStore",
    "MemoryTokenStore",
]


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
            score += RANK_WEIGHTS.title
        elif term in listing.tagline_terms:
            score += RANK_WEIGHTS.tagline
        elif term in listing.description_terms:
            score += RANK_WEIGHTS.description
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
            found.append(PackSummary.of(pack))
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
