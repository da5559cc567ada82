"""Packs: check, submit, read, list and delete revisions; publish them; knows the library and the ports only.

Submitting first reads whether the upload would be refused (another account's pack id, a revision
number taken or not above the latest: nothing is written) or is a retry of the very same bytes
(nothing is written either). Otherwise it writes the bytes to the blob store and then the rows in
one transaction, so a crash in between leaves at most an orphan blob (swept by
:meth:`Packs.collect_garbage`), never a row without its bytes; so does an upload refused by the
transaction after a concurrent one got in first.

Publishing lints the revision first (any error refuses it; warnings are returned), then stores, in
one transaction, the published revision, its serialized reader view (:mod:`~creatorpack.service.reader`),
its catalog listing (public packs only) and a journal entry. Readers are then served the stored
reader view as it is, never the pack.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any, Final, cast

import orjson

from creatorpack import DocumentError, InvalidPackError, NotPlayableError, Report, Validator
from creatorpack.service.assets import BlobAssets, asset_sha256
from creatorpack.service.catalog import listing_for
from creatorpack.service.errors import (
    ConflictError,
    ForbiddenError,
    LintFailedError,
    MissingPackIdError,
    NotFoundError,
    PackIdTakenError,
    UnreadablePackError,
)
from creatorpack.service.forms import Finding
from creatorpack.service.names import normalize_pack_id
from creatorpack.service.ports import (
    Actor,
    AddOutcome,
    AssetStore,
    BlobStore,
    Clock,
    DeleteOutcome,
    Listing,
    NewPublication,
    NewRevision,
    PackEvent,
    PackRecord,
    PackStore,
    PublicationRecord,
    RevisionRecord,
    Visibility,
)
from creatorpack.service.reader import ReaderPack, publication_visibility, reader_view
from creatorpack.service.reports import document_error_json, lint_json, validate_json
from creatorpack.service.storage import STORAGE_FAULTS, StorageCheck, StorageFaults, check_storage

if TYPE_CHECKING:
    from creatorpack import LintConfig

__all__ = ["Packs", "Published", "ReaderDocument", "Refreshed", "Submitted"]

_MISSING_FILE: Final = "asset-file-missing"  # at publication: not uploaded *yet*, so a warning

_READ_ERRORS = ("duplicate-key",)  # violations that mean the document itself is ambiguous: 400, not 422


@dataclass(frozen=True, slots=True)
class Submitted:
    """The outcome of a submission: the stored revision and whether this request created it."""

    revision: RevisionRecord
    created: bool


@dataclass(frozen=True)
class Published:
    """The published revision, its visibility (from publication.visibility) and the lint warnings."""

    pack_id: str
    revision: int
    visibility: Visibility
    published: datetime
    warnings: tuple[Finding, ...]


@dataclass(frozen=True, slots=True)
class Refreshed:
    """What :meth:`Packs.refresh_publications` did: publications checked, rebuilt, and those it could not rebuild."""

    checked: int
    rebuilt: tuple[str, ...]
    failed: tuple[tuple[str, str], ...]  # (pack id, why): their stored view is kept


@dataclass(frozen=True, slots=True)
class ReaderDocument:
    """A stored reader view (the bytes :meth:`~creatorpack.service.reader.ReaderPack.serialize` made).

    ``owned``: whether the caller who asked for it owns the pack (its page then shows the owner more).
    """

    data: bytes
    public: bool
    owned: bool = False

    @property
    def etag(self) -> str:
        """A strong ETag of the bytes."""
        return f'"{hashlib.sha256(self.data).hexdigest()}"'


class Packs:
    """The pack domain over a pack store, a blob store and a clock."""

    def __init__(
        self,
        store: PackStore,
        blobs: BlobStore,
        clock: Clock,
        *,
        validator: Validator | None = None,
        lint_config: LintConfig | None = None,
        assets: AssetStore | None = None,
        faults: StorageFaults = STORAGE_FAULTS,
    ) -> None:
        self._store = store
        self._blobs = blobs
        self._clock = clock
        self._validator = validator or Validator()
        self._lint_config = lint_config
        self._assets = assets
        self.storage_faults = faults
        """Live revisions found without their bytes in this process; see :mod:`~creatorpack.service.storage`."""

    # -- checking, nothing stored --------------------------------------------------------------

    def validate(self, body: bytes) -> dict[str, Any]:
        """The CLI's JSON report of ``body``; :class:`UnreadablePackError` if it cannot be read."""
        try:
            return validate_json(self._validator.validate(body))
        except DocumentError as exc:
            raise _unreadable(exc) from None

    def lint(self, body: bytes, *, strict: bool = False) -> dict[str, Any]:
        """The CLI's JSON lint report of ``body``; :class:`UnreadablePackError` if it cannot be read."""
        import creatorpack  # noqa: PLC0415 - the linter (and the runtime under it) loads on first use

        try:
            report = creatorpack.lint(body, self._lint_config, validator=self._validator)
        except DocumentError as exc:
            raise _unreadable(exc, linted=True) from None
        return lint_json(report, strict=strict, config=self._lint_config)

    # -- storing --------------------------------------------------------------------------------

    def submit(
        self, account: str, body: bytes, *, token_id: str | None = None, allowed: Callable[[str], bool] | None = None
    ) -> Submitted:
        """Store ``body`` as revision ``manifest.revision`` of ``manifest.pack_id`` for ``account``.

        A new revision is journaled with ``token_id`` (the token that uploaded it). ``allowed`` says
        whether the token may act on the pack id (a token limited to named packs): 403 otherwise.
        """
        report = self._checked(body)
        manifest = report.document.get("manifest") if report.document is not None else None
        if report.version == "0.2" or not isinstance(manifest, dict) or "pack_id" not in manifest:
            raise MissingPackIdError(
                f"a {report.version} pack has no manifest.pack_id, so it cannot be stored; "
                "it can still be validated and linted (use protocol_version 0.3 or later to store it)"
            )
        pack_id, number = str(manifest["pack_id"]), int(manifest["revision"])
        if allowed is not None and not allowed(pack_id):
            raise ForbiddenError(f"this token may not act on pack {pack_id!r}: it is limited to other packs")
        sha256 = hashlib.sha256(body).hexdigest()
        stored = self._stored_already(account, pack_id, number, sha256)
        if stored is not None:
            return Submitted(stored, created=False)
        digest = self._blobs.put(body)  # the bytes first: a crash after this leaves only an orphan blob
        if digest != sha256:
            raise RuntimeError("the blob store returned a different sha256")  # pragma: no cover - a broken store
        new = NewRevision(pack_id, number, digest, len(body), str(report.version), self._clock.now(), token_id)
        outcome = self._store.add_revision(account, new)
        if outcome in (AddOutcome.OTHER_OWNER, AddOutcome.NAME_TAKEN):
            raise _taken(pack_id)
        if outcome is AddOutcome.CREATED:
            return Submitted(RevisionRecord(pack_id, number, digest, len(body), new.version, new.created), created=True)
        if outcome is AddOutcome.SAME:
            stored = self._store.revision(pack_id, number)
            if stored is not None:
                return Submitted(stored, created=False)
        pack = self._store.pack(pack_id)
        raise _conflict(outcome, pack_id, number, pack.latest_revision if pack is not None else 0)

    def _stored_already(self, account: str, pack_id: str, number: int, sha256: str) -> RevisionRecord | None:
        """The live revision if it holds these very bytes; 404 or 409 for an upload the store would refuse.

        Read before any write, so that a refused upload leaves no blob behind and a retried one writes
        none again. None: store it. ``add_revision`` still decides atomically (a race may then leave
        an orphan blob, which gc sweeps).
        """
        slot = self._store.revision_slot(pack_id, number)
        if slot is None:
            return None
        if slot.owner != account:
            raise _taken(pack_id)
        existing = slot.existing
        if existing is None:
            if number <= slot.latest_revision:
                raise _conflict(AddOutcome.NOT_ABOVE_LATEST, pack_id, number, slot.latest_revision)
            return None
        if existing.deleted is not None:
            raise _conflict(AddOutcome.DELETED, pack_id, number, slot.latest_revision)
        if existing.sha256 != sha256:
            raise _conflict(AddOutcome.DIFFERENT, pack_id, number, slot.latest_revision)
        return existing

    def _checked(self, body: bytes) -> Report:
        try:
            report = self._validator.validate(body)
        except DocumentError as exc:
            raise _unreadable(exc) from None
        unreadable = [v for v in report.violations if v.code in _READ_ERRORS]
        if unreadable:
            first = unreadable[0]
            raise UnreadablePackError(first.code, first.message, [v.to_dict() for v in unreadable])
        if not report.valid:
            raise InvalidPackError(report)
        return report

    # -- reading and deleting -------------------------------------------------------------------

    def pack(self, account: str, pack_id: str) -> PackRecord:
        """The pack if ``account`` owns it; :class:`NotFoundError` otherwise (whether or not it exists)."""
        record = self._store.pack(pack_id)
        if record is None or record.owner != account:
            raise _no_pack(pack_id)
        return record

    def record(self, pack_id: str) -> PackRecord | None:
        """The pack whoever owns it (for moderation: the caller is checked there), or None."""
        return self._store.pack(pack_id)

    def revision(self, account: str, pack_id: str, revision: int) -> tuple[RevisionRecord, bytes]:
        """A live revision of a pack ``account`` owns, with its stored bytes."""
        found = self._store.owned_revision(pack_id, revision)
        if found is None:
            self.pack(account, pack_id)  # 404 for the pack itself when it is not this account's
            raise NotFoundError(f"pack {pack_id!r} has no revision {revision}")
        owner, record = found
        if owner != account:
            raise _no_pack(pack_id)
        if record.deleted is not None:
            raise NotFoundError(f"pack {pack_id!r} has no revision {revision}")
        data = self._blobs.get(record.sha256)
        if data is None:  # the pack lists it: lost bytes, not a missing revision (logged, counted, 500)
            raise self.storage_faults.missing(f"revision {revision} of {pack_id!r}", record.sha256)
        return record, data

    def delete(self, account: str, pack_id: str, revision: int, *, token_id: str | None = None) -> None:
        """Delete an unpublished revision (journaled with ``token_id``); its number is never used again."""
        pack = self.pack(account, pack_id)
        outcome = self._store.delete_revision(pack_id, revision, self._clock.now(), Actor(account, token_id))
        if outcome is DeleteOutcome.PUBLISHED:
            raise ConflictError(
                f"revision {revision} of {pack_id!r} is published; unpublish it first",
                reason="revision-published",
                latest_revision=pack.latest_revision,
            )
        if outcome is DeleteOutcome.MISSING:
            raise NotFoundError(f"pack {pack_id!r} has no revision {revision}")

    # -- publishing -------------------------------------------------------------------------------

    def publish(self, actor: Actor, pack_id: str, revision: int) -> Published:
        """Publish a live revision of a pack ``actor`` owns, once lint finds no error in it.

        :class:`LintFailedError` carries the errors (and warnings); files of the revision's assets
        not uploaded yet are warnings (``asset-file-missing``).
        """
        record, body = self.revision(actor.account, pack_id, revision)
        document = orjson.loads(body)  # stored revisions are valid packs
        findings = self._publication_findings(body, document)
        errors = [f for f in findings if f["severity"] == "error"]
        warnings = tuple(f for f in findings if f["severity"] != "error")
        now = self._clock.now()
        view = self._reader_view(document, now, errors)
        if errors or view is None:
            raise LintFailedError(
                f"revision {revision} of {pack_id!r} has {len(errors)} lint error(s); "
                "fix them and upload a new revision",
                errors,
                warnings,
            )
        visibility = publication_visibility(document)
        covers = {a: sha for a in view.cover_asset_ids if (sha := asset_sha256(document, a)) is not None}
        listing = listing_for(view) if visibility == "public" else None
        publication = NewPublication(pack_id, record.revision, visibility, now, view.serialize(), covers, listing)
        if not self._store.publish(publication, actor):
            raise NotFoundError(f"pack {pack_id!r} has no revision {revision}")  # deleted meanwhile
        return Published(pack_id, record.revision, visibility, now, tuple(cast("Finding", w) for w in warnings))

    def unpublish(self, actor: Actor, pack_id: str) -> int:
        """Withdraw the published revision of a pack ``actor`` owns; the revision that was published."""
        self.pack(actor.account, pack_id)
        withdrawn = self._store.unpublish(pack_id, actor, self._clock.now())
        if withdrawn is None:
            raise NotFoundError(f"pack {pack_id!r} has no published revision")
        return withdrawn

    def refresh_publications(self) -> Refreshed:
        """Rebuild every publication's reader view, covers and listing from its pack, by this version's rules.

        A publication keeps the reader view it was published with; when a later version changes what
        readers may see (a ``reward_only`` cover left out, say), this brings the stored ones in line.
        The revision, visibility and time of publication stay; a view that comes out the same is not
        written; one published again meanwhile is left to the new publication.
        """
        rebuilt: list[str] = []
        failed: list[tuple[str, str]] = []
        checked = 0
        for pack_id in self._store.published_pack_ids():
            current = self._store.publication(pack_id)
            if current is None:
                continue  # unpublished meanwhile: nothing to rebuild
            checked += 1
            found = self._store.owned_revision(pack_id, current.revision)
            data = self._blobs.get(found[1].sha256) if found is not None else None
            if data is None:
                if found is not None:
                    self.storage_faults.missing(f"revision {current.revision} of {pack_id!r}", found[1].sha256)
                failed.append((pack_id, f"the stored bytes of revision {current.revision} are missing"))
                continue
            errors: list[dict[str, Any]] = []
            try:
                document = orjson.loads(data)
                view = self._reader_view(document, current.published, errors)
            except Exception as exc:  # noqa: BLE001 - one publication that cannot be rebuilt stops no other
                errors.append({"message": f"{type(exc).__name__}: {exc}"})
                view = None
            if view is None:
                why = "; ".join(str(e["message"]) for e in errors)
                failed.append((pack_id, " ".join(why.split())))
                continue
            covers = {a: sha for a in view.cover_asset_ids if (sha := asset_sha256(document, a)) is not None}
            reader = view.serialize()
            if reader == current.reader and covers == dict(current.covers):
                continue
            listing = listing_for(view) if current.visibility == "public" else None
            renewed = NewPublication(
                pack_id, current.revision, current.visibility, current.published, reader, covers, listing
            )
            if self._store.refresh_publication(renewed):
                rebuilt.append(pack_id)
        return Refreshed(checked, tuple(rebuilt), tuple(failed))

    def events(self, account: str, pack_id: str, *, after: int = 0, limit: int = 100) -> list[PackEvent]:
        """The audit journal of a pack ``account`` owns, oldest first."""
        self.pack(account, pack_id)
        return self._store.events(pack_id, after=after, limit=limit)

    def reader(self, account: str | None, pack_id: str) -> ReaderDocument:
        """The reader view of the published revision: anyone's if public or unlisted, the owner's if private."""
        publication = self._store.publication(pack_id)
        if publication is None or not publication.readable_by(account):
            raise NotFoundError(f"no published pack {pack_id!r}")
        owned = account is not None and account == publication.owner
        return ReaderDocument(publication.reader, public=publication.listed, owned=owned)

    def publication(self, pack_id: str) -> PublicationRecord | None:
        """The pack's current publication (owner, visibility, serialized reader view), for the reader fast path."""
        return self._store.publication(pack_id)

    def listing(self, pack_id: str) -> Listing | None:
        """The catalog listing of the pack's current publication, if it is public (built as publishing builds it).

        For moderation: a pack shown again (restored, its owner enabled) is listed as it was published.
        None when nothing public is published, or when its reader view cannot be built any more.
        """
        current = self._store.publication(pack_id)
        if current is None or current.visibility != "public":
            return None
        found = self._store.owned_revision(pack_id, current.revision)
        data = self._blobs.get(found[1].sha256) if found is not None else None
        if data is None:
            return None
        view = self._reader_view(orjson.loads(data), current.published, [])
        return listing_for(view) if view is not None else None

    def publications_version(self) -> int:
        """A number that grows whenever any pack is published or unpublished."""
        return self._store.publications_version()

    def _publication_findings(self, body: bytes, document: Mapping[str, Any]) -> list[dict[str, Any]]:
        import creatorpack  # noqa: PLC0415 - the linter (and the runtime under it) loads on first use
        from creatorpack import LintConfig  # noqa: PLC0415

        config = self._lint_config or LintConfig()
        report = creatorpack.lint(body, config, validator=self._validator)
        findings = [f.to_dict() for f in report.findings]
        if self._assets is None:
            return findings
        # The asset files, as `lint --assets` checks them, from what has been uploaded. The search is
        # not run again: the first pass ran it (the linter skips it once a missing file is an error).
        hashes = [a.get("sha256") for a in document.get("assets", []) if isinstance(a, Mapping)]
        source = BlobAssets((h for h in hashes if isinstance(h, str)), self._assets, self._blobs)
        files = creatorpack.lint(body, replace(config, assets=source, reachability=False), validator=self._validator)
        seen = {(f.pointer, f.code, f.message) for f in report.findings}
        for finding in files.findings:
            if (finding.pointer, finding.code, finding.message) in seen:
                continue
            entry = finding.to_dict()
            if finding.code == _MISSING_FILE:
                entry["severity"] = "warning"
            findings.append(entry)
        return findings

    @staticmethod
    def _reader_view(document: Mapping[str, Any], now: datetime, errors: list[dict[str, Any]]) -> ReaderPack | None:
        from creatorpack import Engine  # noqa: PLC0415 - the runtime loads on first use

        try:
            _, start = Engine(document).start()
        except NotPlayableError as exc:
            errors.append(
                {"pointer": "/runtime/entries/0", "code": "not-playable", "message": str(exc), "severity": "error"}
            )
            return None
        return reader_view(document, start.reader_view(), now.isoformat())

    def check_storage(self) -> StorageCheck:
        """Whether the blob store holds the bytes of every live revision and of every uploaded asset.

        Each blob must be there (else ``missing``), of the recorded size and hashing to its sha256
        (else ``corrupt``). Nothing is changed.
        """
        return check_storage(self._store.live_revisions(), self._assets, self._blobs)

    def collect_garbage(self, older_than: timedelta = timedelta(hours=1)) -> list[str]:
        """Remove blobs no live revision references and no uploaded asset is, older than ``older_than``.

        Returns their sha256. The grace period keeps the bytes of an upload whose rows are being
        written right now.
        """
        keep = self._store.referenced_blobs() | (self._assets.asset_hashes() if self._assets else set())
        cutoff = self._clock.now() - older_than
        swept = [digest for digest, written in self._blobs.list() if digest not in keep and written <= cutoff]
        for digest in swept:
            self._blobs.delete(digest)
        return swept


def _unreadable(exc: DocumentError, *, linted: bool = False) -> UnreadablePackError:
    return UnreadablePackError(exc.code, exc.message, document_error_json(exc, linted=linted)["errors"])


def _taken(pack_id: str) -> PackIdTakenError:
    name = normalize_pack_id(pack_id)
    return PackIdTakenError(
        f"pack id {pack_id!r} is taken: a pack of another account, or one whose id differs from it only in "
        f"case or in '-', '_' and '.' ({name!r} once normalized), holds it; choose another manifest.pack_id",
        normalized=name,
    )


def _no_pack(pack_id: str) -> NotFoundError:
    return NotFoundError(f"no pack {pack_id!r} for this account")


def _conflict(outcome: AddOutcome, pack_id: str, revision: int, latest: int) -> ConflictError:
    messages = {
        AddOutcome.DIFFERENT: f"revision {revision} of {pack_id!r} exists with other bytes; raise manifest.revision",
        AddOutcome.DELETED: f"revision {revision} of {pack_id!r} was deleted and its number is not reused; "
        "raise manifest.revision",
        AddOutcome.NOT_ABOVE_LATEST: f"revision {revision} of {pack_id!r} is not above the latest revision "
        f"({latest}); use a higher manifest.revision",
    }
    message = messages.get(outcome, f"revision {revision} of {pack_id!r} changed while it was being stored")
    return ConflictError(message, reason=str(outcome), latest_revision=latest)
