"""``db gc`` never takes the bytes of an upload in flight, and sweeps what interrupted writes left behind.

The race: an upload puts its blob, then writes its rows. If its bytes were already stored as an orphan
older than the grace period (a crashed earlier attempt of the same upload), a gc running between the
put and the commit must not sweep them. The put refreshes the blob's write time, and a delete of a
blob that was put again after gc listed it does nothing (see ``service/blobs.py``). The S3 store is
tested the same way in ``test_s3.py``.
"""

from __future__ import annotations

import hashlib
import os
from datetime import UTC, datetime, timedelta
from pathlib import Path

from typer.testing import CliRunner

from creatorpack.cli import app as cli_app
from creatorpack.service.blobs import LocalBlobStore
from creatorpack.service.packs import Packs
from creatorpack.service.ports import AddOutcome, NewRevision, SystemClock
from creatorpack.service.settings import Settings
from creatorpack.service.store import Database, SqlAssetStore, SqlPackStore
from tests.service.conftest import pack_bytes

HOUR = timedelta(hours=1)


def _age(blobs: LocalBlobStore, digest: str, seconds: float) -> None:
    path = blobs.root / digest[:2] / digest[2:4] / digest
    then = path.stat().st_mtime - seconds
    os.utime(path, (then, then))


class _GcBetweenPutAndCommit(SqlPackStore):
    """A pack store that runs gc when asked to write a revision: after the blob put, before the rows."""

    def __init__(self, database: Database, gc: Packs) -> None:
        super().__init__(database)
        self.gc = gc
        self.swept: list[str] | None = None

    def add_revision(self, account: str, new: NewRevision) -> AddOutcome:
        self.swept = self.gc.collect_garbage(HOUR)
        return super().add_revision(account, new)


def test_gc_between_the_blob_put_and_the_row_commit_keeps_the_bytes(database: Database, tmp_path: Path) -> None:
    blobs = LocalBlobStore(tmp_path / "blobs")
    body = pack_bytes()
    digest = blobs.put(body)  # the orphan of an upload that crashed before its rows ...
    _age(blobs, digest, 2 * 3600)  # ... two hours ago: past the grace period
    gc = Packs(SqlPackStore(database), blobs, SystemClock(), assets=SqlAssetStore(database))
    store = _GcBetweenPutAndCommit(database, gc)
    done = Packs(store, blobs, SystemClock()).submit("alice", body)  # the retry
    assert done.created
    assert store.swept == []
    assert SqlPackStore(database).revision("moon.garden", 1) is not None
    assert blobs.get(digest) == body  # no row without its bytes
    assert gc.collect_garbage(timedelta(0)) == []  # referenced now


def test_gc_without_the_retry_sweeps_the_old_orphan(database: Database, tmp_path: Path) -> None:
    blobs = LocalBlobStore(tmp_path / "blobs")
    digest = blobs.put(pack_bytes())
    _age(blobs, digest, 2 * 3600)
    gc = Packs(SqlPackStore(database), blobs, SystemClock(), assets=SqlAssetStore(database))
    assert gc.collect_garbage(HOUR) == [digest]
    assert blobs.get(digest) is None


def test_a_put_between_list_and_delete_keeps_the_blob(tmp_path: Path) -> None:
    blobs = LocalBlobStore(tmp_path)
    digest = blobs.put(b"orphan")
    _age(blobs, digest, 2 * 3600)
    assert [d for d, _ in blobs.list()] == [digest]  # gc sees an old orphan ...
    blobs.put(b"orphan")  # ... an upload of the same bytes puts them again ...
    blobs.delete(digest)  # ... and gc's delete, decided on the listing, leaves them
    assert blobs.get(digest) == b"orphan"
    assert list((tmp_path / "tmp").iterdir()) == []
    assert [d for d, _ in blobs.list()] == [digest]
    blobs.delete(digest)  # listed again and not put since: deleted
    assert blobs.get(digest) is None


def test_a_put_refreshes_the_write_time(tmp_path: Path) -> None:
    blobs = LocalBlobStore(tmp_path)
    digest = blobs.put(b"orphan")
    _age(blobs, digest, 2 * 3600)
    ((_, before),) = blobs.list()
    assert blobs.put(b"orphan") == digest
    ((_, after),) = blobs.list()
    assert after - before > timedelta(hours=1)
    assert after <= datetime.now(UTC)


def test_db_gc_sweeps_stale_temporary_files(settings: Settings, database: Database) -> None:
    del database  # migrated
    blobs = LocalBlobStore(settings.data_dir / "blobs")
    digest = blobs.put(b"kept")
    stale, fresh = blobs.root / "tmp" / "0123456789abcdef1.part", blobs.root / "tmp" / "0123456789abcdef2.part"
    for path in (stale, fresh):
        path.write_bytes(b"half a blob")
    two_hours_ago = datetime.now(UTC).timestamp() - 2 * 3600
    os.utime(stale, (two_hours_ago, two_hours_ago))
    parked_digest = hashlib.sha256(b"parked").hexdigest()
    parked = blobs.root / "tmp" / f"{parked_digest}.0a1b2c3d.gc"  # a blob an interrupted gc was deleting
    parked.write_bytes(b"parked")
    env = {"CREATORPACK_DATABASE_URL": settings.database_url or "", "CREATORPACK_DATABASE_SCHEMA": ""}
    if settings.database_schema:
        env["CREATORPACK_DATABASE_SCHEMA"] = settings.database_schema
    result = CliRunner().invoke(cli_app, ["db", "gc", "--data-dir", str(settings.data_dir)], env=env)
    assert result.exit_code == 0, result.output
    assert "and 2 temporary files" in result.stderr
    assert not stale.exists()
    assert fresh.exists()  # maybe a write in progress
    assert not parked.exists()
    assert blobs.get(parked_digest) == b"parked"  # put back, to be judged by the next gc like any blob
    assert blobs.get(digest) == b"kept"  # younger than the grace period
