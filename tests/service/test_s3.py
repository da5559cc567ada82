"""The S3-compatible blob store against a local S3 server (moto's server mode, started here)."""

from __future__ import annotations

import hashlib
import socket
import threading
import time
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from creatorpack.service.blobs import S3BlobStore, blob_store_from_url
from creatorpack.service.memory import FixedClock
from creatorpack.service.packs import Packs
from creatorpack.service.ports import AddOutcome, NewRevision, SystemClock
from creatorpack.service.store import Database, SqlAssetStore, SqlPackStore
from tests.service.conftest import pack_bytes


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


def _wait_past(moment: datetime, seconds: float) -> None:
    """Sleep until the clock is ``seconds`` past ``moment`` (S3's LastModified has whole seconds)."""
    time.sleep(max(0.0, (moment + timedelta(seconds=seconds) - datetime.now(UTC)).total_seconds()))


def test_a_put_of_stored_bytes_refreshes_last_modified(s3: Any) -> None:
    blobs = S3BlobStore("packs", "blobs/test5", client=s3)
    digest = blobs.put(b"orphan")
    ((_, written),) = blobs.list()
    _wait_past(written, 2)
    assert blobs.put(b"orphan") == digest  # refused by If-None-Match: *, then copied onto itself
    ((_, refreshed),) = blobs.list()
    assert refreshed - written >= timedelta(seconds=1)
    assert blobs.get(digest) == b"orphan"


def test_a_put_between_list_and_delete_keeps_the_object(s3: Any) -> None:
    blobs = S3BlobStore("packs", "blobs/test6", client=s3)
    digest = blobs.put(b"orphan")
    ((_, written),) = blobs.list()  # gc sees the orphan ...
    _wait_past(written, 2)
    blobs.put(b"orphan")  # ... an upload of the same bytes puts them again ...
    blobs.delete(digest)  # ... and gc's delete, decided on the listing, leaves them
    assert blobs.get(digest) == b"orphan"
    assert [d for d, _ in blobs.list()] == [digest]
    blobs.delete(digest)  # listed again and not put since: deleted
    assert blobs.get(digest) is None


def test_gc_between_the_blob_put_and_the_row_commit_keeps_the_object(s3: Any, database: Database) -> None:
    blobs = S3BlobStore("packs", f"blobs/gc-{database.engine.dialect.name}", client=s3)
    body = pack_bytes()
    digest = blobs.put(body)  # the orphan of an upload that crashed before its rows
    ((_, written),) = blobs.list()
    _wait_past(written, 2)
    # gc's clock puts the cutoff (now - 1 s) half a second after the orphan was written: the orphan is past
    # the grace period, and an object written or refreshed from now on is not.
    gc_clock = FixedClock(written + timedelta(seconds=1.5))
    gc = Packs(SqlPackStore(database), blobs, gc_clock, assets=SqlAssetStore(database))
    swept: list[list[str]] = []

    class GcBetweenPutAndCommit(SqlPackStore):
        def add_revision(self, account: str, new: NewRevision) -> AddOutcome:
            swept.append(gc.collect_garbage(timedelta(seconds=1)))
            return super().add_revision(account, new)

    done = Packs(GcBetweenPutAndCommit(database), blobs, SystemClock()).submit("alice", body)  # the retry
    assert done.created
    assert swept == [[]]
    assert SqlPackStore(database).revision("moon.garden", 1) is not None
    assert blobs.get(digest) == body  # no row without its bytes
    orphan = blobs.put(b"another orphan")
    _wait_past(datetime.now(UTC), 2)
    assert Packs(SqlPackStore(database), blobs, SystemClock()).collect_garbage(timedelta(seconds=1)) == [orphan]
    assert blobs.get(digest) == body


class _FlakyCopies:
    """A client whose object exists already and whose first ``failures`` copies answer ``status``."""

    def __init__(self, failures: int, status: int) -> None:
        self.failures, self.status, self.copies = failures, status, 0

    @staticmethod
    def _error(code: str, status: int, operation: str) -> Exception:
        from botocore.exceptions import ClientError

        error: Exception = ClientError(
            {"Error": {"Code": code}, "ResponseMetadata": {"HTTPStatusCode": status}}, operation
        )
        return error

    def put_object(self, **_: Any) -> None:
        raise self._error("PreconditionFailed", 412, "PutObject")

    def copy_object(self, **_: Any) -> None:
        self.copies += 1
        if self.copies <= self.failures:
            raise self._error("InternalError", self.status, "CopyObject")


def test_a_server_error_refreshing_an_existing_blob_is_tried_again() -> None:
    client = _FlakyCopies(failures=2, status=500)
    assert S3BlobStore("packs", "b", client=client).put(b"abc") == hashlib.sha256(b"abc").hexdigest()
    assert client.copies == 3
    refused = _FlakyCopies(failures=1, status=403)  # not a server error: said at once
    with pytest.raises(Exception, match="InternalError"):
        S3BlobStore("packs", "b", client=refused).put(b"abc")
    assert refused.copies == 1
