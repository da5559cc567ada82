"""Packs: check, submit, read, list and delete revisions; knows the library and the ports, nothing else.

Submitting writes the bytes to the blob store first and then the rows in one transaction, so a crash
in between leaves at most an orphan blob (swept by :meth:`Packs.collect_garbage`), never a row
without its bytes.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from datetime import timedelta
from typing import TYPE_CHECKING, Any

from creatorpack import DocumentError, InvalidPackError, Report, Validator
from creatorpack.service.errors import ConflictError, MissingPackIdError, NotFoundError, UnreadablePackError
from creatorpack.service.ports import AddOutcome, BlobStore, Clock, NewRevision, PackRecord, PackStore, RevisionRecord
from creatorpack.service.reports import document_error_json, lint_json, validate_json

if TYPE_CHECKING:
    from creatorpack import LintConfig

__all__ = ["Packs", "Submitted"]

_READ_ERRORS = ("duplicate-key",)  # violations that mean the document itself is ambiguous: 400, not 422


@dataclass(frozen=True, slots=True)
class Submitted:
    """The outcome of a submission: the stored revision and whether this request created it."""

    revision: RevisionRecord
    created: bool


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
    ) -> None:
        self._store = store
        self._blobs = blobs
        self._clock = clock
        self._validator = validator or Validator()
        self._lint_config = lint_config

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
            raise _unreadable(exc) from None
        return lint_json(report, strict=strict)

    # -- storing --------------------------------------------------------------------------------

    def submit(self, account: str, body: bytes) -> Submitted:
        """Store ``body`` as revision ``manifest.revision`` of ``manifest.pack_id`` for ``account``."""
        report = self._checked(body)
        manifest = report.document.get("manifest") if report.document is not None else None
        if report.version == "0.2" or not isinstance(manifest, dict) or "pack_id" not in manifest:
            raise MissingPackIdError(
                f"a {report.version} pack has no manifest.pack_id, so it cannot be stored; "
                "it can still be validated and linted (use protocol_version 0.3 or later to store it)"
            )
        pack_id, number = str(manifest["pack_id"]), int(manifest["revision"])
        digest = self._blobs.put(body)  # the bytes first: a crash after this leaves only an orphan blob
        if digest != hashlib.sha256(body).hexdigest():
            raise RuntimeError("the blob store returned a different sha256")  # pragma: no cover - a broken store
        new = NewRevision(pack_id, number, digest, len(body), str(report.version), self._clock.now())
        outcome = self._store.add_revision(account, new)
        if outcome is AddOutcome.OTHER_OWNER:
            raise _no_pack(pack_id)
        if outcome is AddOutcome.CREATED:
            return Submitted(RevisionRecord(pack_id, number, digest, len(body), new.version, new.created), created=True)
        if outcome is AddOutcome.SAME:
            stored = self._store.revision(pack_id, number)
            if stored is not None:
                return Submitted(stored, created=False)
        raise _conflict(outcome, pack_id, number, self._store.pack(pack_id))

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

    def revision(self, account: str, pack_id: str, revision: int) -> tuple[RevisionRecord, bytes]:
        """A live revision of a pack ``account`` owns, with its stored bytes."""
        found = self._store.owned_revision(pack_id, revision)
        if found is None:
            self.pack(account, pack_id)  # 404 for the pack itself when it is not this account's
            raise NotFoundError(f"pack {pack_id!r} has no revision {revision}")
        owner, record = found
        if owner != account:
            raise _no_pack(pack_id)
        data = self._blobs.get(record.sha256) if record.deleted is None else None
        if data is None:
            raise NotFoundError(f"pack {pack_id!r} has no revision {revision}")
        return record, data

    def delete(self, account: str, pack_id: str, revision: int) -> None:
        """Delete an unpublished revision; its number is never used again."""
        pack = self.pack(account, pack_id)
        if pack.published_revision == revision:
            raise ConflictError(
                f"revision {revision} of {pack_id!r} is published; unpublish it first", reason="revision-published"
            )
        if not self._store.delete_revision(pack_id, revision, self._clock.now()):
            raise NotFoundError(f"pack {pack_id!r} has no revision {revision}")

    def collect_garbage(self, older_than: timedelta = timedelta(hours=1)) -> list[str]:
        """Remove blobs no live revision references and older than ``older_than``; return their sha256.

        The grace period keeps the bytes of an upload whose rows are being written right now.
        """
        keep = self._store.referenced_blobs()
        cutoff = self._clock.now() - older_than
        swept = [digest for digest, written in self._blobs.list() if digest not in keep and written <= cutoff]
        for digest in swept:
            self._blobs.delete(digest)
        return swept


def _unreadable(exc: DocumentError) -> UnreadablePackError:
    return UnreadablePackError(exc.code, exc.message, document_error_json(exc)["errors"])


def _no_pack(pack_id: str) -> NotFoundError:
    return NotFoundError(f"no pack {pack_id!r} for this account")


def _conflict(outcome: AddOutcome, pack_id: str, revision: int, pack: PackRecord | None) -> ConflictError:
    latest = pack.latest_revision if pack is not None else 0
    messages = {
        AddOutcome.DIFFERENT: f"revision {revision} of {pack_id!r} exists with other bytes; raise manifest.revision",
        AddOutcome.DELETED: f"revision {revision} of {pack_id!r} was deleted and its number is not reused; "
        "raise manifest.revision",
        AddOutcome.NOT_ABOVE_LATEST: f"revision {revision} of {pack_id!r} is not above the latest revision "
        f"({latest}); use a higher manifest.revision",
    }
    message = messages.get(outcome, f"revision {revision} of {pack_id!r} changed while it was being stored")
    return ConflictError(message, reason=str(outcome), latest_revision=latest)
