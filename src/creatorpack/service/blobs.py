"""Blob stores addressed by sha256: a local directory (the embedded default) and S3-compatible storage.

Both write atomically and idempotently: the local store writes a temporary file and renames it into
place; the S3 store writes with ``If-None-Match: *`` so that two uploaders of one hash never race.

Garbage collection (``creatorpack db gc``) sweeps blobs no row references once they are older than a
grace period, so ``put`` of bytes that are already stored *refreshes* their write time (the local
file's mtime; on S3 a copy of the object onto itself, which sets ``LastModified``): the upload that
is about to write its rows always holds a young blob, however old the orphan it found was. And
``delete`` of a blob that :meth:`list` reported removes it only if it was not ``put`` again since:
the local store first renames it out of place (atomic), checks its mtime there and puts it back if
it moved; the S3 store checks ``LastModified`` just before the ``DELETE``.
"""

from __future__ import annotations

import builtins
import contextlib
import hashlib
import os
import re
import secrets
import tempfile
import threading
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Final
from urllib.parse import urlsplit

__all__ = ["LocalBlobStore", "S3BlobStore", "blob_store_from_url"]

_SHA256: Final = re.compile(r"^[0-9a-f]{64}$")
_PUT_ATTEMPTS: Final = 5  # S3: a blob deleted between the refused write and the refresh is written again


def _checked(sha256: str) -> str:
    if not _SHA256.match(sha256):
        raise ValueError(f"not a sha256 in lowercase hex: {sha256!r}")
    return sha256


class LocalBlobStore:
    """Blobs as files ``root/ab/cd/abcd...`` written by temp file, fsync and rename.

    ``root/tmp`` holds files being written (``*.part``) and blobs being deleted (``*.gc``);
    :meth:`sweep_temporary` removes what an interrupted process left there.
    """

    def __init__(self, root: Path) -> None:
        self.root = root
        self._tmp = root / "tmp"
        self._tmp.mkdir(parents=True, exist_ok=True)
        if (problem := self.unwritable()) is not None:
            raise OSError(problem[0], f"the blob directory {root} cannot be written: {problem[1]}")
        self._listed: dict[str, int] = {}  # sha256 -> mtime (ns) as list() reported it
        self._lock = threading.Lock()

    def unwritable(self) -> tuple[int, str] | None:
        """Why no file can be made here now (a read-only volume, a gone directory): errno and words, or None."""
        try:
            fd, name = tempfile.mkstemp(dir=self._tmp, suffix=".part")
            os.close(fd)
            Path(name).unlink()
        except OSError as exc:
            return exc.errno or 0, exc.strerror or str(exc)
        return None

    def _path(self, sha256: str) -> Path:
        digest = _checked(sha256)
        return self.root / digest[:2] / digest[2:4] / digest

    def put(self, data: bytes) -> str:
        """Store ``data`` under its sha256; when present, only refresh its write time (see the module)."""
        digest = hashlib.sha256(data).hexdigest()
        target = self._path(digest)
        try:
            os.utime(target)  # already stored: young again, so a concurrent gc keeps it
        except FileNotFoundError:
            self._write(target, digest, data)
        return digest

    def _write(self, target: Path, digest: str, data: bytes) -> None:
        target.parent.mkdir(parents=True, exist_ok=True)
        fd, name = tempfile.mkstemp(dir=self._tmp, prefix=digest[:16], suffix=".part")
        try:
            with os.fdopen(fd, "wb") as handle:
                handle.write(data)
                handle.flush()
                os.fsync(handle.fileno())
            Path(name).replace(target)
        except BaseException:
            with contextlib.suppress(OSError):
                Path(name).unlink()
            raise

    def get(self, sha256: str) -> bytes | None:
        """The stored bytes, or None."""
        try:
            return self._path(sha256).read_bytes()
        except FileNotFoundError:
            return None

    def delete(self, sha256: str) -> None:
        """Remove the bytes (a no-op when absent), unless they were ``put`` again since :meth:`list` saw them."""
        path = self._path(sha256)
        with self._lock:
            listed = self._listed.pop(sha256, None)
        if listed is None:
            with contextlib.suppress(FileNotFoundError):
                path.unlink()
            return
        parked = self._tmp / f"{sha256}.{secrets.token_hex(4)}.gc"
        try:
            path.rename(parked)  # atomic: a put from now on finds no file and writes it anew
        except FileNotFoundError:
            return
        try:
            if parked.stat().st_mtime_ns != listed:  # put again between list() and here: an upload needs it
                parked.replace(path)
            else:
                parked.unlink()
        except FileNotFoundError:  # a concurrent gc's sweep_temporary put it back: it stays
            return

    def read_range(self, sha256: str, start: int, stop: int) -> bytes | None:
        """Bytes ``start`` to ``stop - 1`` (fewer at the end), or None."""
        try:
            with self._path(sha256).open("rb") as handle:
                handle.seek(start)
                return handle.read(max(0, stop - start))
        except FileNotFoundError:
            return None

    def list(self) -> Iterator[tuple[str, datetime]]:
        """Every stored sha256 with its write time (remembered, for :meth:`delete`)."""
        for path in self.root.glob("??/??/*"):
            if _SHA256.match(path.name):
                try:
                    stamp = path.stat().st_mtime_ns
                except FileNotFoundError:
                    continue
                with self._lock:
                    self._listed[path.name] = stamp
                yield path.name, datetime.fromtimestamp(stamp / 1e9, UTC)

    def sweep_temporary(self, cutoff: datetime) -> builtins.list[str]:
        """Remove ``tmp/*.part`` files last written before ``cutoff`` (writes a crash interrupted).

        A ``*.gc`` file (a blob a crashed gc was deleting) is put back in place instead, to be judged
        again by the next gc. Returns the names of the files removed or put back.
        """
        done = []
        for path in self._tmp.iterdir():
            try:
                if path.suffix == ".gc":
                    target = self._path(path.name.split(".", 1)[0])
                    target.parent.mkdir(parents=True, exist_ok=True)
                    if target.exists():
                        path.unlink()
                    else:
                        path.replace(target)
                elif path.suffix == ".part" and datetime.fromtimestamp(path.stat().st_mtime, UTC) < cutoff:
                    path.unlink()
                else:
                    continue
            except (FileNotFoundError, ValueError):
                continue
            done.append(path.name)
        return done


class S3BlobStore:
    """Blobs as objects ``prefix/<sha256>`` in an S3-compatible bucket (boto3)."""

    def __init__(self, bucket: str, prefix: str = "", *, client: Any = None, endpoint_url: str | None = None) -> None:
        if client is None:
            import boto3  # noqa: PLC0415 - only S3 deployments load boto3

            client = boto3.client("s3", endpoint_url=endpoint_url)
        self._client = client
        self.bucket = bucket
        self.prefix = prefix.strip("/") + "/" if prefix.strip("/") else ""
        self._listed: dict[str, datetime] = {}  # sha256 -> LastModified as list() reported it
        self._lock = threading.Lock()

    def _key(self, sha256: str) -> str:
        return self.prefix + _checked(sha256)

    def put(self, data: bytes) -> str:
        """Store ``data`` under its sha256; when present (an earlier or concurrent writer), refresh ``LastModified``."""
        from botocore.exceptions import ClientError  # noqa: PLC0415

        digest = hashlib.sha256(data).hexdigest()
        key = self._key(digest)
        for _ in range(_PUT_ATTEMPTS):
            try:
                self._client.put_object(
                    Bucket=self.bucket, Key=key, Body=data, IfNoneMatch="*", ChecksumAlgorithm="SHA256"
                )
            except ClientError as exc:
                if _code(exc) not in ("PreconditionFailed", "ConditionalRequestConflict"):
                    raise
            else:
                return digest
            try:
                self._touch(key)
            except ClientError as exc:
                # Deleted (or not written yet) meanwhile, or a server error past botocore's own
                # retries (S3 documents 500 and 503 as retryable; moto's server answers 500 to
                # concurrent copies of one object): again.
                if _code(exc) not in ("NoSuchKey", "404") and _status(exc) < 500:
                    raise
            else:
                return digest
        raise RuntimeError(f"could not store blob {digest}: it kept disappearing, or the store kept failing")

    def _touch(self, key: str) -> None:
        """Copy the object onto itself (new metadata is what S3 needs to allow it): a new ``LastModified``."""
        self._client.copy_object(
            Bucket=self.bucket,
            Key=key,
            CopySource={"Bucket": self.bucket, "Key": key},
            MetadataDirective="REPLACE",
            Metadata={"refreshed": datetime.now(UTC).isoformat()},
            ChecksumAlgorithm="SHA256",
        )

    def get(self, sha256: str) -> bytes | None:
        """The stored bytes, or None."""
        try:
            answer = self._client.get_object(Bucket=self.bucket, Key=self._key(sha256))
        except self._client.exceptions.NoSuchKey:
            return None
        data: bytes = answer["Body"].read()
        return data

    def delete(self, sha256: str) -> None:
        """Remove the object (a no-op when absent), unless it was ``put`` again since :meth:`list` saw it.

        The check is a ``HEAD`` just before the ``DELETE`` (S3 has no atomic rename): a refresh landing
        between the two is the one window left, a round trip long, for a blob already past the grace period.
        """
        key = self._key(sha256)
        with self._lock:
            listed = self._listed.pop(sha256, None)
        if listed is not None:
            from botocore.exceptions import ClientError  # noqa: PLC0415

            try:
                modified = self._client.head_object(Bucket=self.bucket, Key=key)["LastModified"]
            except ClientError:
                return  # gone already
            if modified > listed:
                return
        self._client.delete_object(Bucket=self.bucket, Key=key)

    def read_range(self, sha256: str, start: int, stop: int) -> bytes | None:
        """Bytes ``start`` to ``stop - 1`` (fewer at the end) by a ranged GET, or None."""
        if stop <= start:
            return b"" if self.get_size(sha256) is not None else None
        try:
            answer = self._client.get_object(
                Bucket=self.bucket, Key=self._key(sha256), Range=f"bytes={start}-{stop - 1}"
            )
        except self._client.exceptions.NoSuchKey:
            return None
        data: bytes = answer["Body"].read()
        return data

    def get_size(self, sha256: str) -> int | None:
        """The object's size, or None if there is none."""
        from botocore.exceptions import ClientError  # noqa: PLC0415

        try:
            answer = self._client.head_object(Bucket=self.bucket, Key=self._key(sha256))
        except ClientError:
            return None
        return int(answer["ContentLength"])

    def list(self) -> Iterator[tuple[str, datetime]]:
        """Every stored sha256 with its write time (remembered, for :meth:`delete`)."""
        pages = self._client.get_paginator("list_objects_v2").paginate(Bucket=self.bucket, Prefix=self.prefix)
        for page in pages:
            for item in page.get("Contents", []):
                name = str(item["Key"])[len(self.prefix) :]
                if _SHA256.match(name):
                    modified: datetime = item["LastModified"]
                    with self._lock:
                        self._listed[name] = modified
                    yield name, modified

    def sweep_temporary(self, cutoff: datetime) -> builtins.list[str]:
        """Nothing to sweep: an S3 write is one whole object or none (``cutoff`` is unused)."""
        del cutoff
        return []


def _code(exc: Any) -> str:
    return str(exc.response.get("Error", {}).get("Code", ""))


def _status(exc: Any) -> int:
    status = exc.response.get("ResponseMetadata", {}).get("HTTPStatusCode", 0)
    return status if isinstance(status, int) else 0


def blob_store_from_url(url: str | None, default: Path) -> LocalBlobStore | S3BlobStore:
    """The blob store a URL names: ``s3://bucket/prefix``, ``file:///dir`` or a path; None: ``default``."""
    if not url:
        return LocalBlobStore(default)
    parts = urlsplit(url)
    if parts.scheme == "s3":
        if not parts.netloc:
            raise ValueError(f"an S3 blob URL names a bucket: s3://bucket/prefix, not {url!r}")
        return S3BlobStore(parts.netloc, parts.path, endpoint_url=os.environ.get("CREATORPACK_S3_ENDPOINT_URL"))
    if parts.scheme == "file":
        return LocalBlobStore(Path(parts.path))
    if parts.scheme:
        raise ValueError(f"unsupported blob URL {url!r}: use s3://bucket/prefix or a directory")
    return LocalBlobStore(Path(url))
