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


def test_read_range(s3: Any) -> None:
    blobs = S3BlobStore("packs", "blobs/test3", client=s3)
    digest = blobs.put(bytes(range(256)))
    assert blobs.read_range(digest, 10, 20) == bytes(range(10, 20))
    assert blobs.read_range(digest, 250, 300) == bytes(range(250, 256))
    assert blobs.read_range(digest, 5, 5) == b""
    assert blobs.read_range("0" * 64, 0, 10) is None
    assert blobs.read_range("0" * 64, 3, 3) is None


def test_a_conditional_write_never_replaces_stored_bytes(s3: Any) -> None:
    blobs = S3BlobStore("packs", "blobs/test4", client=s3)
    data = b"the real bytes"
    digest = hashlib.sha256(data).hexdigest()
    s3.put_object(Bucket="packs", Key=f"blobs/test4/{digest}", Body=b"written first")  # whatever got there first
    assert blobs.put(data) == digest  # refused by If-None-Match: *, harmlessly
    assert blobs.get(digest) == b"written first"


def test_assets_end_to_end_on_s3(s3: Any, tmp_path: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    from fastapi.testclient import TestClient

    from creatorpack.service.app import create_app
    from creatorpack.service.settings import Settings
    from tests.service.conftest import OFF, issue
    from tests.service.test_assets import JPEG, MP4, PNG, pack_with_assets, sha

    monkeypatch.setenv("CREATORPACK_S3_ENDPOINT_URL", s3.meta.endpoint_url)
    for name, value in (
        ("AWS_ACCESS_KEY_ID", "test"),
        ("AWS_SECRET_ACCESS_KEY", "test"),
        ("AWS_DEFAULT_REGION", "us-east-1"),
    ):
        monkeypatch.setenv(name, value)
    settings = Settings(data_dir=tmp_path, blob_url="s3://packs/e2e", rate_per_ip=OFF, rate_per_token=OFF)
    with TestClient(create_app(settings)) as client:
        alice = issue(client)
        for data in (JPEG, MP4, PNG):
            assert client.put(f"/v1/assets/{sha(data)}", content=data, headers=alice).status_code == 201
        assert client.put(f"/v1/assets/{sha(PNG)}", content=PNG, headers=alice).status_code == 200
        client.post("/v1/packs", content=pack_with_assets(), headers={**alice, "Content-Type": "application/json"})
        published = client.post("/v1/packs/moon.garden/publish", json={"revision": 1}, headers=alice)
        assert published.json()["warnings"] == []
        part = client.get("/v1/packs/moon.garden/assets/reel", headers={"Range": "bytes=16-31"})
        assert (part.status_code, part.content) == (206, MP4[16:32])
        assert client.get("/v1/packs/moon.garden/assets/cover").content == JPEG
    keys = {o["Key"] for o in s3.list_objects_v2(Bucket="packs", Prefix="e2e/")["Contents"]}
    assert {f"e2e/{sha(d)}" for d in (JPEG, MP4, PNG)} <= keys
