"""Blob stores addressed by sha256: a local directory (the embedded default) and S3-compatible storage.

Both write atomically and idempotently: the local store writes a temporary file and renames it into
place; the S3 store writes with ``If-None-Match: *`` so that two uploaders of one hash never race.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import re
import tempfile
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Final
from urllib.parse import urlsplit

__all__ = ["LocalBlobStore", "S3BlobStore", "blob_store_from_url"]

_SHA256: Final = re.compile(r"^[0-9a-f]{64}$")


def _checked(sha256: str) -> str:
    if not _SHA256.match(sha256):
        raise ValueError(f"not a sha256 in lowercase hex: {sha256!r}")
    return sha256


class LocalBlobStore:
    """Blobs as files ``root/ab/cd/abcd...`` written by temp file, fsync and rename."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self._tmp = root / "tmp"
        self._tmp.mkdir(parents=True, exist_ok=True)

    def _path(self, sha256: str) -> Path:
        digest = _checked(sha256)
        return self.root / digest[:2] / digest[2:4] / digest

    def put(self, data: bytes) -> str:
        """Store ``data`` under its sha256 (a no-op when present)."""
        digest = hashlib.sha256(data).hexdigest()
        target = self._path(digest)
        if target.exists():
            return digest
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
        return digest

    def get(self, sha256: str) -> bytes | None:
        """The stored bytes, or None."""
        try:
            return self._path(sha256).read_bytes()
        except FileNotFoundError:
            return None

    def delete(self, sha256: str) -> None:
        """Remove the bytes (a no-op when absent)."""
        with contextlib.suppress(FileNotFoundError):
            self._path(sha256).unlink()

    def read_range(self, sha256: str, start: int, stop: int) -> bytes | None:
        """Bytes ``start`` to ``stop - 1`` (fewer at the end), or None."""
        try:
            with self._path(sha256).open("rb") as handle:
                handle.seek(start)
                return handle.read(max(0, stop - start))
        except FileNotFoundError:
            return None

    def list(self) -> Iterator[tuple[str, datetime]]:
        """Every stored sha256 with its write time."""
        for path in self.root.glob("??/??/*"):
            if _SHA256.match(path.name):
                with contextlib.suppress(FileNotFoundError):
                    yield path.name, datetime.fromtimestamp(path.stat().st_mtime, UTC)


class S3BlobStore:
    """Blobs as objects ``prefix/<sha256>`` in an S3-compatible bucket (boto3)."""

    def __init__(self, bucket: str, prefix: str = "", *, client: Any = None, endpoint_url: str | None = None) -> None:
        if client is None:
            import boto3  # noqa: PLC0415 - only S3 deployments load boto3

            client = boto3.client("s3", endpoint_url=endpoint_url)
        self._client = client
        self.bucket = bucket
        self.prefix = prefix.strip("/") + "/" if prefix.strip("/") else ""

    def _key(self, sha256: str) -> str:
        return self.prefix + _checked(sha256)

    def put(self, data: bytes) -> str:
        """Store ``data`` under its sha256; a concurrent or earlier writer of the same hash wins harmlessly."""
        from botocore.exceptions import ClientError  # noqa: PLC0415

        digest = hashlib.sha256(data).hexdigest()
        try:
            self._client.put_object(
                Bucket=self.bucket, Key=self._key(digest), Body=data, IfNoneMatch="*", ChecksumAlgorithm="SHA256"
            )
        except ClientError as exc:
            code = exc.response.get("Error", {}).get("Code")
            if code not in ("PreconditionFailed", "ConditionalRequestConflict"):
                raise
        return digest

    def get(self, sha256: str) -> bytes | None:
        """The stored bytes, or None."""
        try:
            answer = self._client.get_object(Bucket=self.bucket, Key=self._key(sha256))
        except self._client.exceptions.NoSuchKey:
            return None
        data: bytes = answer["Body"].read()
        return data

    def delete(self, sha256: str) -> None:
        """Remove the object (a no-op when absent)."""
        self._client.delete_object(Bucket=self.bucket, Key=self._key(sha256))

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
        """Every stored sha256 with its write time."""
        pages = self._client.get_paginator("list_objects_v2").paginate(Bucket=self.bucket, Prefix=self.prefix)
        for page in pages:
            for item in page.get("Contents", []):
                name = str(item["Key"])[len(self.prefix) :]
                if _SHA256.match(name):
                    yield name, item["LastModified"]


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
