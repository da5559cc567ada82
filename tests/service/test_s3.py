"""The S3-compatible blob store against a local S3 server (moto's server mode, started here)."""

from __future__ import annotations

import hashlib
import socket
import threading
from collections.abc import Iterator
from typing import Any

import pytest

from creatorpack.service.blobs import S3BlobStore, blob_store_from_url


@pytest.fixture(scope="module")
def s3() -> Iterator[Any]:
    """A boto3 client of a moto server on a free loopback port, with a bucket."""
    import boto3
    from moto.server import ThreadedMotoServer

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    server = ThreadedMotoServer(ip_address="127.0.0.1", port=port, verbose=False)
    server.start()
    client = boto3.client(
        "s3",
        endpoint_url=f"http://127.0.0.1:{port}",
        aws_access_key_id="test",
        aws_secret_access_key="test",
        region_name="us-east-1",
    )
    client.create_bucket(Bucket="packs")
    yield client
    client.close()
    server.stop()


def test_put_get_list_delete(s3: Any) -> None:
    blobs = S3BlobStore("packs", "blobs/test1", client=s3)
    digest = blobs.put(b"hello")
    assert digest == hashlib.sha256(b"hello").hexdigest()
    assert blobs.put(b"hello") == digest  # the conditional write refuses; the bytes are the same
    assert blobs.get(digest) == b"hello"
    assert [d for d, _ in blobs.list()] == [digest]
    assert s3.list_objects_v2(Bucket="packs", Prefix="blobs/test1/")["KeyCount"] == 1
    blobs.delete(digest)
    assert blobs.get(digest) is None
    assert list(blobs.list()) == []


def test_concurrent_writers_of_one_hash(s3: Any) -> None:
    blobs = S3BlobStore("packs", "blobs/test2", client=s3)
    data = b"x" * 100_000
    errors: list[BaseException] = []

    def write() -> None:
        try:
            blobs.put(data)
        except BaseException as exc:  # noqa: BLE001 - collected and asserted below
            errors.append(exc)

    threads = [threading.Thread(target=write) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    assert blobs.get(hashlib.sha256(data).hexdigest()) == data


def test_blob_urls(tmp_path: Any) -> None:
    assert type(blob_store_from_url(None, tmp_path)).__name__ == "LocalBlobStore"
    assert type(blob_store_from_url(f"file://{tmp_path}/b", tmp_path)).__name__ == "LocalBlobStore"
    for bad in ("s3://", "ftp://host/x"):
        with pytest.raises(ValueError, match="URL"):
            blob_store_from_url(bad, tmp_path)
