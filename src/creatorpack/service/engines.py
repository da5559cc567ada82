"""Compiled engines of stored revisions, shared by every session and request; migration plans between them.

A stored revision never changes (its bytes are addressed by sha256), so it is validated and compiled
once per process and kept in a bounded least-recently-used cache, keyed by sha256, that every session
and request shares (an :class:`~creatorpack.play.Engine` is immutable). Two requests that need one
revision at once compile it once: the second waits for the first. The cache is bounded by the number
of engines and by the size of their source packs. Migration plans (:mod:`creatorpack.diff`) depend
only on two revisions and are cached beside them.
"""

from __future__ import annotations

import logging
import re
import threading
from collections import OrderedDict
from typing import Final

from creatorpack.contract import validate
from creatorpack.diff import MigrationPlan, migration_plan
from creatorpack.play import Engine
from creatorpack.service.errors import NotFoundError
from creatorpack.service.ports import BlobStore, RevisionRecord
from creatorpack.service.storage import STORAGE_FAULTS, StorageFaults

__all__ = ["Engines"]

_log = logging.getLogger("creatorpack.service")

_TIGHTENED: Final = (re.compile(r"^/visual_anchors/"), re.compile(r"^/progression/endings/\d+/id$"))
"""Where a later release reads the contract more strictly than an earlier one stored packs under; the
runtime tolerates what those places held (it skips a malformed anchor condition, reads any ending id)."""

_MAX_ENGINES: Final = 64
_MAX_SOURCE_BYTES: Final = 512 * 1024 * 1024
_MAX_PLANS: Final = 256


class Engines:
    """A bounded cache of compiled engines (by the revision's sha256) and of migration plans."""

    def __init__(
        self,
        blobs: BlobStore,
        *,
        max_engines: int = _MAX_ENGINES,
        max_source_bytes: int = _MAX_SOURCE_BYTES,
        max_plans: int = _MAX_PLANS,
        faults: StorageFaults = STORAGE_FAULTS,
    ) -> None:
        self._blobs = blobs
        self.storage_faults = faults
        """Live revisions found without their bytes (a 500, logged); see :mod:`~creatorpack.service.storage`."""
        self._max_engines = max_engines
        self._max_bytes = max_source_bytes
        self._max_plans = max_plans
        self._engines: OrderedDict[str, tuple[Engine, int]] = OrderedDict()
        self._plans: OrderedDict[tuple[str | None, str], MigrationPlan] = OrderedDict()
        self._pending: dict[str, threading.Lock] = {}
        self._bytes = 0
        self._lock = threading.Lock()
        self.compiled = 0
        """How many engines this cache compiled (each revision once while it stays cached)."""

    def engine(self, revision: RevisionRecord) -> Engine:
        """The compiled engine of a stored revision.

        Bytes gone are :class:`NotFoundError` for a deleted revision (gc may have collected them) and
        :class:`~creatorpack.service.errors.StorageInconsistentError` for a live one (lost: logged, counted).
        """
        key = revision.sha256
        with self._lock:
            hit = self._engines.get(key)
            if hit is not None:
                self._engines.move_to_end(key)
                return hit[0]
            pending = self._pending.setdefault(key, threading.Lock())
        with pending:  # one compiler per revision; the others wait and then find it cached
            with self._lock:
                hit = self._engines.get(key)
                if hit is not None:
                    return hit[0]
            try:
                engine = self._compile(revision)
            finally:
                with self._lock:
                    self._pending.pop(key, None)
            with self._lock:
                self._engines[key] = (engine, revision.size)
                self._bytes += revision.size
                self.compiled += 1
                while len(self._engines) > 1 and (
                    len(self._engines) > self._max_engines or self._bytes > self._max_bytes
                ):
                    _, (_, size) = self._engines.popitem(last=False)
                    self._bytes -= size
            return engine

    def _compile(self, revision: RevisionRecord) -> Engine:
        data = self._blobs.get(revision.sha256)
        if data is None and revision.deleted is None:
            raise self.storage_faults.missing(f"revision {revision.revision} of {revision.pack_id!r}", revision.sha256)
        if data is None:
            raise NotFoundError(f"the bytes of revision {revision.revision} of {revision.pack_id!r} are gone")
        report = validate(data)  # validated on upload; validated again here, once per revision
        document = report.document
        if document is None:  # not even a pack now: the bytes are not what was stored
            report.raise_for_errors()
            raise NotFoundError(f"the bytes of revision {revision.revision} of {revision.pack_id!r} are no pack")
        if report.valid:
            return Engine(document)
        if not all(any(rule.match(v.pointer) for rule in _TIGHTENED) for v in report.violations):
            report.raise_for_errors()  # not what was stored, or broken: refused (422), never played
        # Valid when an earlier release stored it, refused by a stricter reading since (a visual anchor's
        # malformed reveal_when, a 0.4 ending id that is no Id): the runtime skips or reads those as it
        # always did, so the revision and its sessions still play; an upload of it now is refused.
        _log.warning(
            "revision %s of %r no longer validates (%s); played as stored",
            revision.revision,
            revision.pack_id,
            report.violations[0].message if report.violations else "?",
        )
        return Engine(document)

    def plan(self, old: RevisionRecord | None, new: RevisionRecord) -> MigrationPlan:
        """The plan that moves saves of ``old`` (None: judged from the save alone) to ``new``.

        When the old revision's bytes are gone (a deleted revision, collected), the plan is made
        from the save alone, as :func:`creatorpack.diff.migration_plan` allows.
        """
        old_document = None
        if old is not None:
            try:
                old_document = self.engine(old).pack
            except NotFoundError:
                old = None
        key = (old.sha256 if old is not None else None, new.sha256)
        with self._lock:
            hit = self._plans.get(key)
            if hit is not None:
                self._plans.move_to_end(key)
                return hit
        made = migration_plan(old_document, self.engine(new).pack)
        with self._lock:
            self._plans[key] = made
            while len(self._plans) > self._max_plans:
                self._plans.popitem(last=False)
        return made
