"""The seams of the service and the records that cross them, grouped by concept.

Packs, revisions and tokens (:class:`PackStore`, :class:`TokenStore`), their bytes (:class:`BlobStore`)
and the clock; play sessions (:class:`SessionStore`); publishing, the audit journal, the catalog
(:class:`CatalogStore`), uploaded assets (:class:`AssetStore`) and the service's signing keys
(:class:`KeyStore`); moderation (:class:`ModerationStore`).

:mod:`~creatorpack.service.store` and :mod:`~creatorpack.service.blobs` hold the real implementations,
:mod:`~creatorpack.service.memory` an in-memory fake of each, so that the domain is tested without a database.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from enum import StrEnum
from typing import Any, Final, Literal, Protocol, TypeAlias

from creatorpack.service.names import normalize_pack_id

__all__ = [
    "AGE_RATINGS",
    "RANK_WEIGHTS",
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
    "KeyStore",
    "Listing",
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
    "RankWeights",
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


# -- play sessions ---------------------------------------------------------------------------------


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


# -- publishing, the audit journal, the catalog, assets and keys -------------------------------------


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
class RankWeights:
    """What a query word adds to a listing's relevance score where it is found first: title, tagline, description.

    The one definition: the SQL catalog (:mod:`~creatorpack.service.store.catalog`) and the in-memory
    fake rank with these, so both order a search alike.
    """

    title: int = 4
    tagline: int = 2
    description: int = 1


RANK_WEIGHTS: Final = RankWeights()


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

    @classmethod
    def of(cls, pack: PackRecord) -> PackSummary:
        """The summary of a pack record (its revisions left out)."""
        return cls(
            pack.pack_id,
            pack.owner,
            pack.created,
            pack.latest_revision,
            pack.published_revision,
            pack.visibility,
            pack.takedown,
            pack.owner_disabled,
        )


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
