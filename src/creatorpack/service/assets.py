"""Asset files: upload by sha256 (checked, sniffed, stored once), serve to who may see them, and lint against them.

:class:`BlobAssets` is the :class:`~creatorpack.lint.AssetSource` over what has been uploaded:
publishing lints a revision with it, so a file not uploaded yet is the very finding
``creatorpack lint --assets DIR`` reports for a file missing from ``DIR`` (``asset-file-missing``).
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any, Final

import orjson

from creatorpack.lint import AssetFacts, sniff
from creatorpack.service.errors import (
    AssetMismatchError,
    NotFoundError,
    PayloadTooLargeError,
    RangeNotSatisfiableError,
    UnsupportedAssetError,
)
from creatorpack.service.ports import AssetRecord, AssetStore, BlobStore, Clock, PackStore
from creatorpack.service.storage import STORAGE_FAULTS, StorageFaults

__all__ = [
    "ASSET_TYPES",
    "CHUNK_BYTES",
    "MAX_ASSET_BYTES",
    "AssetFile",
    "Assets",
    "BlobAssets",
    "Uploaded",
    "asset_sha256",
    "byte_range",
]

MAX_ASSET_BYTES: Final = 32_000_000
"""The contract's largest ``byte_size``."""
ASSET_TYPES: Final = ("image/png", "image/apng", "image/jpeg", "image/webp", "audio/wav", "audio/mpeg", "video/mp4")
"""The contract's asset MIME types (0.5's list; ``image/apng`` is new in 0.5)."""
_RANGED: Final = ("audio/", "video/")
CHUNK_BYTES: Final = 1 << 20
"""How much of a file :meth:`Assets.stream` reads at a time."""
_RANGE: Final = re.compile(r"bytes=([0-9]*)-([0-9]*)")  # ASCII digits, as RFC 9110 has them
_DIGITS: Final = 18
"""The most digits of a ``Range`` number read as such (well past :data:`MAX_ASSET_BYTES`)."""
_FAR: Final = 10**_DIGITS
"""What a longer ``Range`` number stands for: past the end of every file."""
_SHA256: Final = re.compile(r"^[0-9a-f]{64}$")


class BlobAssets:
    """The uploaded files among ``hashes``, as a lint :class:`~creatorpack.lint.AssetSource` (named by sha256).

    The upload checked each file's sha256 and sniffed its type, so :meth:`describe` answers from the
    asset store and publishing never reads the files again.
    """

    label = "the uploaded assets (PUT /v1/assets/{sha256})"

    def __init__(self, hashes: Iterable[str], assets: AssetStore, blobs: BlobStore) -> None:
        self._present = assets.assets(h for h in hashes if _SHA256.match(h))
        self._blobs = blobs

    def names(self) -> frozenset[str]:
        """The sha256 of the uploaded files."""
        return frozenset(self._present)

    def describe(self, name: str) -> AssetFacts:
        """The uploaded file's sha256, size and sniffed type, as recorded on upload."""
        record = self._present[name]
        return AssetFacts(record.sha256, record.size, record.mime_type)

    def find(self, uri: str) -> str | None:  # noqa: ARG002 - an AssetSource method
        """Nothing is found by uri: uploads are addressed by sha256."""
        return None

    def read(self, name: str) -> bytes:
        """The uploaded bytes (an uploaded file whose bytes are gone is a storage fault, not an empty file)."""
        data = self._blobs.get(name)
        if data is None:
            raise STORAGE_FAULTS.missing(f"the uploaded asset {name}", name)
        return data


@dataclass(frozen=True, slots=True)
class Uploaded:
    """The outcome of an upload: the asset and whether this request stored it."""

    asset: AssetRecord
    created: bool


@dataclass(frozen=True, slots=True)
class AssetFile:
    """An asset a caller may fetch: the uploaded file and whether anyone may (so caches may share it)."""

    asset: AssetRecord
    public: bool
    asset_id: str = ""  # the pack's id of the asset, for the log when its bytes are gone

    @property
    def ranged(self) -> bool:
        """Whether the file is served in byte ranges (audio and video)."""
        return self.asset.mime_type.startswith(_RANGED)


def byte_range(header: str | None, size: int) -> tuple[int, int] | None:
    """The ``(start, stop)`` a single-range ``Range`` header names; None to send everything.

    Malformed headers and several ranges are ignored (RFC 9110 allows it); a range past the end is
    :class:`RangeNotSatisfiableError`.
    """
    if not header:
        return None
    match = _RANGE.fullmatch(header.strip())
    if match is None or (not match[1] and not match[2]):
        return None
    if not match[1]:  # the last N bytes
        suffix = _position(match[2])
        if suffix == 0:
            raise RangeNotSatisfiableError(size)
        return max(0, size - suffix), size
    start = _position(match[1])
    stop = min(size, _position(match[2]) + 1) if match[2] else size
    if match[2] and _magnitude(match[2]) < _magnitude(match[1]):
        return None
    if start >= size:
        raise RangeNotSatisfiableError(size)
    return start, stop


def _position(digits: str) -> int:
    """A ``Range`` number; one of more than :data:`_DIGITS` digits is :data:`_FAR`, past the end of any file.

    ``int()`` refuses strings of over 4300 digits (a 500), and no file is anywhere near that long.
    """
    significant = digits.lstrip("0")
    return int(significant or "0") if len(significant) <= _DIGITS else _FAR


def _magnitude(digits: str) -> tuple[int, str]:
    """A key that orders ``Range`` numbers by value without converting them, however long they are."""
    significant = digits.lstrip("0")
    return len(significant), significant


class Assets:
    """Uploads and reads of asset files over the asset store, the pack store and the blob store."""

    def __init__(
        self,
        store: AssetStore,
        packs: PackStore,
        blobs: BlobStore,
        clock: Clock,
        *,
        faults: StorageFaults = STORAGE_FAULTS,
    ) -> None:
        self._store = store
        self._packs = packs
        self._blobs = blobs
        self._clock = clock
        self.storage_faults = faults
        """Rows found without their bytes (a 500, logged); see :mod:`~creatorpack.service.storage`."""

    def upload(self, sha256: str, data: bytes) -> Uploaded:
        """Store ``data`` under ``sha256`` once it is checked: hash, size and (sniffed) type."""
        if len(data) > MAX_ASSET_BYTES:
            raise PayloadTooLargeError(MAX_ASSET_BYTES)
        actual = hashlib.sha256(data).hexdigest()
        if actual != sha256:
            raise AssetMismatchError(sha256, actual)
        mime = sniff(data[:4096])
        if mime is None or mime not in ASSET_TYPES:
            raise UnsupportedAssetError(ASSET_TYPES)
        existing = self._store.asset(sha256)
        if existing is not None:
            return Uploaded(existing, created=False)
        self._blobs.put(data)  # the bytes first: a crash after this leaves only an orphan blob
        record = AssetRecord(sha256, len(data), mime, self._clock.now())
        if self._store.add_asset(record):
            return Uploaded(record, created=True)
        return Uploaded(self._store.asset(sha256) or record, created=False)

    def locate(self, account: str | None, pack_id: str, asset_id: str, revision: int | None = None) -> AssetFile:
        """The file of asset ``asset_id`` of the pack, if ``account`` may fetch it; 404 otherwise.

        The owner may fetch any asset of a live revision (``revision``, default the latest); anyone
        else only the published revision's cover and cover motion, of a public or unlisted pack.
        """
        pack = self._packs.pack(pack_id)
        if pack is not None and account is not None and pack.owner == account:
            return self._owned(pack_id, asset_id, revision, pack.latest_revision)
        publication = self._packs.publication(pack_id)
        if publication is None or not publication.open_to_others or asset_id not in publication.covers:
            raise NotFoundError(f"no asset {asset_id!r} of pack {pack_id!r} for this caller")
        asset = self._uploaded(publication.covers[asset_id], asset_id)
        return AssetFile(asset, public=publication.listed, asset_id=asset_id)

    def _owned(self, pack_id: str, asset_id: str, revision: int | None, latest: int) -> AssetFile:
        pack = self._packs.pack(pack_id)
        live = [r for r in (pack.revisions if pack else ()) if r.deleted is None]
        chosen = next((r for r in reversed(live) if revision is None or r.revision == revision), None)
        if chosen is None:
            raise NotFoundError(f"pack {pack_id!r} has no revision {revision or latest}")
        data = self._blobs.get(chosen.sha256)
        if data is None:
            raise self.storage_faults.missing(f"revision {chosen.revision} of {pack_id!r}", chosen.sha256)
        sha = asset_sha256(orjson.loads(data), asset_id)
        if sha is None:
            raise NotFoundError(f"revision {chosen.revision} of {pack_id!r} has no asset {asset_id!r}")
        publication = self._packs.publication(pack_id)
        public = publication is not None and publication.listed and publication.covers.get(asset_id) == sha
        return AssetFile(self._uploaded(sha, asset_id), public=public, asset_id=asset_id)

    def _uploaded(self, sha256: str, asset_id: str) -> AssetRecord:
        asset = self._store.asset(sha256)
        if asset is None:
            raise NotFoundError(f"asset {asset_id!r} has not been uploaded yet (PUT /v1/assets/{sha256})")
        return asset

    def session_file(self, asset_id: str, sha256: str) -> AssetFile:
        """The uploaded file of an asset a play session may reach (its type as sniffed on upload); 404 if none.

        Never shared by caches: what a session reaches is its reader's.
        """
        asset = self._store.asset(sha256)
        if asset is None:
            raise NotFoundError(f"the file of asset {asset_id!r} has not been uploaded yet")
        return AssetFile(asset, public=False, asset_id=asset_id)

    def check_present(self, asset: AssetRecord, asset_id: str) -> None:
        """Make sure the uploaded file's bytes are there before an answer starts (for a ``HEAD``, which reads none).

        A row without its bytes is a storage fault (logged, counted, 500), not a missing asset: the
        upload's row is written only after its bytes.
        """
        if self._blobs.read_range(asset.sha256, 0, 0) is None:
            raise self.storage_faults.missing(f"the uploaded file of asset {asset_id!r}", asset.sha256)

    def stream(
        self, asset: AssetRecord, start: int = 0, stop: int | None = None, *, asset_id: str | None = None
    ) -> Iterator[bytes]:
        """The file's bytes ``start`` to ``stop - 1`` (default: all), read :data:`CHUNK_BYTES` at a time.

        The first chunk is read at once, before the iterator is returned, so that bytes that are gone
        are a storage fault answered as such (500) rather than a response that breaks off after its
        headers were sent.
        """
        end = asset.size if stop is None else min(stop, asset.size)
        first = self._chunk(asset, start, end, asset_id) if start < end else b""
        return self._rest(asset, first, start, end, asset_id)

    def _rest(self, asset: AssetRecord, first: bytes, start: int, end: int, asset_id: str | None) -> Iterator[bytes]:
        if first:
            yield first
        at = start + len(first)
        while at < end:
            data = self._chunk(asset, at, end, asset_id)  # pragma: no branch - gone mid-file only by data loss
            yield data
            at += len(data)

    def _chunk(self, asset: AssetRecord, at: int, end: int, asset_id: str | None) -> bytes:
        data = self._blobs.read_range(asset.sha256, at, min(end, at + CHUNK_BYTES))
        if not data:
            what = f"the uploaded file of asset {asset_id!r}" if asset_id else f"the uploaded file {asset.sha256}"
            raise self.storage_faults.missing(what, asset.sha256)
        return data


def asset_sha256(pack: Any, asset_id: str) -> str | None:
    """The sha256 the pack gives asset ``asset_id``, or None if it has no such asset."""
    listed = pack.get("assets") if isinstance(pack, Mapping) else None
    for asset in listed if isinstance(listed, list) else []:
        if isinstance(asset, Mapping) and asset.get("id") == asset_id and isinstance(asset.get("sha256"), str):
            return str(asset["sha256"])
    return None
