"""The SQL store and the blob stores, on SQLite and PostgreSQL: concurrency, crash safety, migrations."""

from __future__ import annotations

import asyncio
import hashlib
import os
from datetime import UTC, datetime, timedelta
from pathlib import Path

import httpx
import pytest
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from typer.testing import CliRunner

from creatorpack.cli import app as cli_app
from creatorpack.service.app import create_app
from creatorpack.service.blobs import LocalBlobStore
from creatorpack.service.memory import MemoryPackStore
from creatorpack.service.packs import Packs
from creatorpack.service.ports import (
    Actor,
    AddOutcome,
    DeleteOutcome,
    NewPublication,
    NewRevision,
    PackStore,
    RevisionRecord,
    RevisionSlot,
    SystemClock,
    TokenRecord,
)
from creatorpack.service.settings import Settings
from creatorpack.service.store import Database, SqlPackStore, SqlTokenStore
from creatorpack.service.store.tables import include_name, metadata
from tests.service.conftest import JSON, pack_bytes

NOW = datetime(2026, 1, 1, tzinfo=UTC)


def new(revision: int = 1, sha: str = "a" * 64) -> NewRevision:
    return NewRevision("moon.garden", revision, sha, 10, "0.5", NOW)


@pytest.mark.parametrize("kind", ["sql", "memory"])
def test_deleting_says_whether_the_revision_is_published_or_missing(database: Database, kind: str) -> None:
    store: PackStore = SqlPackStore(database) if kind == "sql" else MemoryPackStore()
    assert store.delete_revision("moon.garden", 1, NOW) is DeleteOutcome.MISSING  # no such pack
    assert store.add_revision("alice", new(1)) is AddOutcome.CREATED
    assert store.publish(NewPublication("moon.garden", 1, "private", NOW, b"{}"), Actor("alice"))
    assert store.delete_revision("moon.garden", 1, NOW) is DeleteOutcome.PUBLISHED
    assert store.delete_revision("moon.garden", 2, NOW) is DeleteOutcome.MISSING
    pack = store.pack("moon.garden")
    assert pack is not None
    assert [r.deleted for r in pack.revisions] == [None]
    assert [e.kind for e in store.events("moon.garden")] == ["upload", "publish"]


@pytest.mark.parametrize("kind", ["sql", "memory"])
def test_the_revision_slot_is_what_an_upload_would_meet(database: Database, kind: str) -> None:
    store: PackStore = SqlPackStore(database) if kind == "sql" else MemoryPackStore()
    assert store.revision_slot("moon.garden", 1) is None  # no such pack
    assert store.add_revision("alice", new(1)) is AddOutcome.CREATED
    assert store.add_revision("alice", new(3, "c" * 64)) is AddOutcome.CREATED
    assert store.delete_revision("moon.garden", 1, NOW) is DeleteOutcome.DELETED
    deleted = store.revision_slot("moon.garden", 1)
    assert deleted is not None
    assert (deleted.owner, deleted.latest_revision) == ("alice", 3)
    assert deleted.existing == RevisionRecord("moon.garden", 1, "a" * 64, 10, "0.5", NOW, NOW)
    assert store.revision_slot("moon.garden", 2) == RevisionSlot("alice", 3, None)
    live = store.revision_slot("moon.garden", 3)
    assert live == RevisionSlot("alice", 3, RevisionRecord("moon.garden", 3, "c" * 64, 10, "0.5", NOW))


def test_migrations_match_the_tables_and_are_idempotent(database: Database) -> None:
    database.upgrade()
    with database.engine.connect() as conn:
        assert compare_metadata(MigrationContext.configure(conn, opts={"include_name": include_name}), metadata) == []


def test_pack_store_round_trip(database: Database) -> None:
    store = SqlPackStore(database)
    assert store.add_revision("alice", new(1)) is AddOutcome.CREATED
    assert store.add_revision("alice", new(1)) is AddOutcome.SAME
    assert store.add_revision("alice", new(1, "b" * 64)) is AddOutcome.DIFFERENT
    assert store.add_revision("bob", new(2)) is AddOutcome.OTHER_OWNER
    assert store.add_revision("alice", new(3, "c" * 64)) is AddOutcome.CREATED
    assert store.add_revision("alice", new(2)) is AddOutcome.NOT_ABOVE_LATEST
    pack = store.pack("moon.garden")
    assert pack is not None
    assert (pack.owner, pack.latest_revision, pack.visibility) == ("alice", 3, "private")
    assert [r.revision for r in pack.revisions] == [1, 3]
    assert pack.revisions[0].created == NOW
    assert store.delete_revision("moon.garden", 1, NOW) is DeleteOutcome.DELETED
    assert store.delete_revision("moon.garden", 1, NOW) is DeleteOutcome.MISSING
    assert store.add_revision("alice", new(1)) is AddOutcome.DELETED
    assert store.referenced_blobs() == {"c" * 64}
    assert store.pack("nothing") is None
    assert store.revision("moon.garden", 99) is None


def test_token_store_round_trip(database: Database) -> None:
    store = SqlTokenStore(database)
    record = TokenRecord("t1", "alice", "creator", NOW)
    store.add_token(record, "h" * 64)
    store.add_token(TokenRecord("t2", "bob", "reader", NOW), "i" * 64)
    assert store.token_by_hash("h" * 64) == record
    assert [t.id for t in store.tokens()] == ["t1", "t2"]
    assert [t.id for t in store.tokens("bob")] == ["t2"]
    assert store.revoke("t1", NOW)
    assert not store.revoke("t1", NOW)
    revoked = store.token_by_hash("h" * 64)
    assert revoked is not None
    assert revoked.revoked == NOW


async def _sixteen(settings: Settings, bodies: list[bytes]) -> list[httpx.Response]:
    app = create_app(settings)
    token, _ = app.state.services.auth.issue("alice", "creator")
    headers = {"Authorization": f"Bearer {token}", **JSON}
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://test") as client:
        responses = await asyncio.gather(*(client.post("/v1/packs", content=b, headers=headers) for b in bodies))
        stored = await client.get("/v1/packs/moon.garden/revisions/1", headers=headers)
    app.state.database.dispose()
    return [*responses, stored]


def test_sixteen_concurrent_uploads_of_one_revision(settings: Settings) -> None:
    bodies = [pack_bytes(title=f"Take {n}") for n in range(16)]
    *responses, stored = asyncio.run(_sixteen(settings, bodies))
    statuses = sorted(r.status_code for r in responses)
    assert statuses == [201] + [409] * 15
    (winner,) = [b for b, r in zip(bodies, responses, strict=True) if r.status_code == 201]
    assert stored.content == winner
    assert stored.headers["etag"] == f'"{hashlib.sha256(winner).hexdigest()}"'


class _CrashError(Exception):
    pass


def test_crash_between_blob_and_rows_then_gc(settings: Settings) -> None:
    app = create_app(settings)
    services = app.state.services
    database: Database = app.state.database

    class CrashingStore(SqlPackStore):
        def add_revision(self, account: str, new: NewRevision) -> AddOutcome:
            del account, new
            raise _CrashError

    blobs = LocalBlobStore(settings.data_dir / "blobs")
    crashing = Packs(CrashingStore(database), blobs, SystemClock())
    body = pack_bytes()
    with pytest.raises(_CrashError):
        crashing.submit("alice", body)
    digest = hashlib.sha256(body).hexdigest()
    assert blobs.get(digest) == body
    assert SqlPackStore(database).pack("moon.garden") is None  # no row without bytes, and no row at all
    kept = services.packs.submit("alice", pack_bytes(revision=2))
    env = _cli_env(settings)
    young = CliRunner().invoke(cli_app, ["db", "gc", "--data-dir", str(settings.data_dir)], env=env)
    assert young.exit_code == 0, young.output
    assert blobs.get(digest) == body  # younger than the grace period: maybe an upload in flight
    swept = CliRunner().invoke(
        cli_app, ["db", "gc", "--older-than", "0", "--data-dir", str(settings.data_dir)], env=env
    )
    assert swept.exit_code == 0, swept.output
    assert swept.stdout.split() == [digest]
    assert blobs.get(digest) is None
    assert blobs.get(kept.revision.sha256) is not None
    database.dispose()


def _cli_env(settings: Settings) -> dict[str, str]:
    env = {"CREATORPACK_DATABASE_URL": settings.database_url or "", "CREATORPACK_DATABASE_SCHEMA": ""}
    if settings.database_schema:
        env["CREATORPACK_DATABASE_SCHEMA"] = settings.database_schema
    return env


def test_local_blob_store_is_atomic_and_idempotent(tmp_path: Path) -> None:
    blobs = LocalBlobStore(tmp_path)
    digest = blobs.put(b"hello")
    assert digest == hashlib.sha256(b"hello").hexdigest()
    assert blobs.put(b"hello") == digest
    assert blobs.get(digest) == b"hello"
    assert [d for d, _ in blobs.list()] == [digest]
    assert list((tmp_path / "tmp").iterdir()) == []  # no temporary file is left behind
    blobs.delete(digest)
    blobs.delete(digest)
    assert blobs.get(digest) is None
    for bad in ("../etc/passwd", "A" * 64, "a" * 63):
        with pytest.raises(ValueError, match="sha256"):
            blobs.get(bad)


def test_local_blob_store_leaves_no_partial_file_on_failure(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    blobs = LocalBlobStore(tmp_path)

    def failing_fsync(fd: int) -> None:
        del fd
        raise OSError("disk full")

    monkeypatch.setattr(os, "fsync", failing_fsync)
    with pytest.raises(OSError, match="disk full"):
        blobs.put(b"data")
    assert list(blobs.list()) == []
    assert list((tmp_path / "tmp").iterdir()) == []


def test_gc_keeps_young_orphans(database: Database, tmp_path: Path) -> None:
    blobs = LocalBlobStore(tmp_path)
    young, old = blobs.put(b"young orphan"), blobs.put(b"old orphan")
    two_days_ago = (datetime.now(UTC) - timedelta(days=2)).timestamp()
    os.utime(tmp_path / old[:2] / old[2:4] / old, (two_days_ago, two_days_ago))
    packs = Packs(SqlPackStore(database), blobs, SystemClock())
    assert packs.collect_garbage(timedelta(days=1)) == [old]
    assert blobs.get(young) == b"young orphan"  # maybe an upload in flight
    assert blobs.get(old) is None


def test_sixteen_concurrent_retries_of_one_upload(settings: Settings) -> None:
    body = pack_bytes()
    *responses, stored = asyncio.run(_sixteen(settings, [body] * 16))
    assert sorted(r.status_code for r in responses) == [200] * 15 + [201]
    assert len({r.content for r in responses}) == 1  # every retry sees the same stored revision
    assert stored.content == body
