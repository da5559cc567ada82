"""Rows whose bytes are gone: a live revision or an uploaded asset the blob store lacks, or holds other bytes of.

A row is written only after its bytes (see :mod:`~creatorpack.service.packs`), so a row without them
is data loss or a blob store other than the one the rows were written with: never the client's doing,
and never "not found" (the pack still lists the revision). Every path that reads a blob a row says
exists reports it through :class:`StorageFaults`, which logs it and counts it (the count goes in the
log line, and in the metric ``creatorpack_storage_inconsistencies``), and the request ends with a 500
``storage-inconsistent``.
:func:`check_storage` (``creatorpack db check``) looks for such rows before a request does.
"""

from __future__ import annotations

import hashlib
import logging
import threading
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Final, Literal

from creatorpack.service.errors import StorageInconsistentError
from creatorpack.service.metrics import STORAGE_INCONSISTENCIES
from creatorpack.service.ports import AssetStore, BlobStore, RevisionRecord

__all__ = [
    "STORAGE_FAULTS",
    "StorageCheck",
    "StorageFaults",
    "StorageProblem",
    "check_storage",
]

_log: Final = logging.getLogger("creatorpack.service")
_CHUNK: Final = 1 << 20


class StorageFaults:
    """How many rows without their bytes this process met; each one is logged with the count so far."""

    def __init__(self) -> None:
        self._count = 0
        self._lock = threading.Lock()

    @property
    def count(self) -> int:
        """Rows found without their bytes since the process started."""
        return self._count

    def missing(self, what: str, sha256: str) -> StorageInconsistentError:
        """Count and log that the bytes of ``what`` (a live revision, an uploaded asset) are gone; the error."""
        with self._lock:
            self._count += 1
            count = self._count
        STORAGE_INCONSISTENCIES.inc()
        _log.error(
            "storage inconsistent (%d in this process): %s is recorded, but the blob store has no bytes under "
            "sha256 %s (data loss, or another blob store than the rows were written with); run creatorpack db check",
            count,
            what,
            sha256,
        )
        return StorageInconsistentError(
            f"the stored bytes of {what} are missing: the server's storage is inconsistent; the error was logged"
        )


STORAGE_FAULTS: Final = StorageFaults()
"""The process's count, shared by the domain objects unless they are given another one (tests)."""


@dataclass(frozen=True, slots=True)
class StorageProblem:
    """A row whose bytes are missing, or are not what the row records (size, sha256)."""

    kind: Literal["missing", "corrupt"]
    sha256: str
    pack_id: str | None = None  # None: an uploaded asset
    revision: int | None = None
    detail: str = ""

    def line(self) -> str:
        """One tab-separated line: kind, ``revision PACK REV`` or ``asset - -``, sha256, and what is wrong."""
        subject = f"revision\t{self.pack_id}\t{self.revision}" if self.pack_id is not None else "asset\t-\t-"
        return f"{self.kind}\t{subject}\t{self.sha256}" + (f"\t{self.detail}" if self.detail else "")


@dataclass(frozen=True, slots=True)
class StorageCheck:
    """What :func:`check_storage` looked at and found."""

    revisions: int
    assets: int
    problems: tuple[StorageProblem, ...]

    @property
    def ok(self) -> bool:
        """Whether every row has its bytes, of the recorded size and sha256."""
        return not self.problems


def check_storage(live: Iterable[RevisionRecord], assets: AssetStore | None, blobs: BlobStore) -> StorageCheck:
    """Read back the bytes of every live revision in ``live`` and of every uploaded asset; hash and measure them.

    Bytes are read a chunk at a time (an asset may be 32 MB), so the check holds little in memory.
    """
    problems: list[StorageProblem] = []
    revisions = 0
    for record in live:
        revisions += 1
        problem = _check(blobs, record.sha256, record.size)
        if problem is not None:
            kind, detail = problem
            problems.append(StorageProblem(kind, record.sha256, record.pack_id, record.revision, detail))
    uploaded = assets.assets(sorted(assets.asset_hashes())) if assets is not None else {}
    for sha256, asset in sorted(uploaded.items()):
        problem = _check(blobs, asset.sha256, asset.size)
        if problem is not None:
            problems.append(StorageProblem(problem[0], sha256, detail=problem[1]))
    return StorageCheck(revisions, len(uploaded), tuple(problems))


def _check(blobs: BlobStore, sha256: str, size: int) -> tuple[Literal["missing", "corrupt"], str] | None:
    """None when the blob holds ``size`` bytes hashing to ``sha256``; else what is wrong."""
    digest = hashlib.sha256()
    at = 0
    while True:
        chunk = blobs.read_range(sha256, at, at + _CHUNK)
        if chunk is None:
            return ("missing", "") if at == 0 else ("corrupt", "the bytes went away while they were read")
        digest.update(chunk)
        at += len(chunk)
        if len(chunk) < _CHUNK:
            break
    if at != size:
        return "corrupt", f"{at} bytes, not the {size} recorded"
    if digest.hexdigest() != sha256:
        return "corrupt", f"the bytes hash to {digest.hexdigest()}"
    return None
