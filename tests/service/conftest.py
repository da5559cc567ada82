"""Service fixtures: every storage and API test runs on SQLite and, when configured, on PostgreSQL.

PostgreSQL tests need ``CREATORPACK_TEST_POSTGRES_URL``; each test gets a schema of its own (named
after the xdist worker and a random suffix, dropped afterwards), so parallel workers never collide.
"""

from __future__ import annotations

import json
import os
import secrets
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from creatorpack.service.app import create_app
from creatorpack.service.settings import RateLimit, Settings
from creatorpack.service.store import Database, connect
from tests.conftest import example

POSTGRES_URL = os.environ.get("CREATORPACK_TEST_POSTGRES_URL")
REDIS_URL = os.environ.get("CREATORPACK_TEST_REDIS_URL")
NO_POSTGRES = "CREATORPACK_TEST_POSTGRES_URL is not set (CI sets it; see .ci/run)"
NO_REDIS = "CREATORPACK_TEST_REDIS_URL is not set (CI sets it; see .ci/run)"
OFF = RateLimit(0, 1)


@dataclass(frozen=True)
class Backend:
    """Where a test's rows live: a database URL and (PostgreSQL) a schema."""

    name: str
    url: str | None
    schema: str | None = None


def _schema_name() -> str:
    worker = os.environ.get("PYTEST_XDIST_WORKER", "main")
    return f"cp_test_{worker}_{secrets.token_hex(4)}"


@pytest.fixture(params=["sqlite", "postgresql"])
def backend(request: pytest.FixtureRequest) -> Iterator[Backend]:
    """SQLite in a temporary directory, or a fresh schema of the test PostgreSQL database."""
    if request.param == "sqlite":
        yield Backend("sqlite", None)
        return
    if not POSTGRES_URL:
        pytest.skip(NO_POSTGRES)
    schema = _schema_name()
    admin = connect(POSTGRES_URL, poolclass=_null_pool())
    with admin.write() as conn:
        conn.exec_driver_sql(f'CREATE SCHEMA "{schema}"')
    try:
        yield Backend("postgresql", POSTGRES_URL, schema)
    finally:
        with admin.write() as conn:
            conn.exec_driver_sql(f'DROP SCHEMA "{schema}" CASCADE')
        admin.dispose()


def _null_pool() -> Any:
    from sqlalchemy.pool import NullPool

    return NullPool


@pytest.fixture
def settings(backend: Backend, tmp_path: Path) -> Settings:
    """Settings on the backend, migrated, with rate limits off."""
    return Settings(
        data_dir=tmp_path / "data",
        database_url=backend.url,
        database_schema=backend.schema,
        migrate=True,
        rate_per_ip=OFF,
        rate_per_token=OFF,
    )


@pytest.fixture
def database(settings: Settings) -> Iterator[Database]:
    """A migrated database for the store tests."""
    db = connect(settings.url, schema=settings.database_schema)
    db.upgrade()
    yield db
    db.dispose()


@pytest.fixture
def client(settings: Settings) -> Iterator[TestClient]:
    """A test client of an app on ``settings``."""
    with TestClient(create_app(settings)) as test_client:
        yield test_client


def issue(client: TestClient, account: str = "alice", scope: str = "creator") -> dict[str, str]:
    """Authorization headers with a new token of ``scope`` for ``account``."""
    token, _ = client.app.state.services.auth.issue(account, scope)  # type: ignore[attr-defined]
    return {"Authorization": f"Bearer {token}"}


def pack_bytes(pack_id: str = "moon.garden", revision: int = 1, version: str = "0.5", **manifest: Any) -> bytes:
    """A minimal example pack with the given id and revision, as JSON bytes."""
    doc = example(version, "minimal")
    doc["manifest"].update({"pack_id": pack_id, "revision": revision, **manifest})
    return json.dumps(doc).encode()


JSON = {"Content-Type": "application/json"}


@pytest.fixture
def stateless_client(tmp_path: Path) -> Iterator[TestClient]:
    """A client for routes that store nothing (validate, lint): one backend is enough."""
    settings = Settings(data_dir=tmp_path / "data", rate_per_ip=OFF, rate_per_token=OFF)
    with TestClient(create_app(settings)) as test_client:
        yield test_client


def publication(visibility: str | None = "public", **fields: Any) -> dict[str, Any]:
    """A publication section (tagline, description, credit, rights) with ``visibility`` (None: left out)."""
    section: dict[str, Any] = {
        "tagline": "A quiet supper by the sea.",
        "description": "Bring a supper along and decide whether to stay while the evening passes.",
        "creator_credit": "Written by Test Author",
        "rights": {"basis": "original", "statement": "Original work."},
    }
    if visibility is not None:
        section["visibility"] = visibility
    return {**section, **fields}


def published_bytes(
    pack_id: str = "moon.garden",
    revision: int = 1,
    visibility: str | None = "public",
    *,
    title: str | None = None,
    language: str = "en",
    **fields: Any,
) -> bytes:
    """The minimal 0.5 example with a publication section, ready to publish."""
    doc = example("0.5", "minimal")
    doc["manifest"].update({"pack_id": pack_id, "revision": revision, "language": language})
    if title is not None:
        doc["manifest"]["title"] = title
    doc["publication"] = publication(visibility, **fields)
    return json.dumps(doc).encode()


@dataclass
class Held:
    """A method whose first call did its work and now waits for :meth:`release` before it returns."""

    started: threading.Event
    go: threading.Event

    def wait_started(self) -> None:
        """Wait until the first call has done its work (and is held)."""
        assert self.started.wait(10), "the held call never started"

    def release(self) -> None:
        """Let the held call return what it read."""
        self.go.set()


def hold_first_call(target: Any, name: str, monkeypatch: pytest.MonkeyPatch) -> Held:
    """Make the first call of ``target.name`` (run in a worker thread) return only once released.

    It reads what it reads at once, then waits: a test can change the store meanwhile and see what the
    caller does with a result that predates the change. Later calls go straight through.
    """
    original = getattr(target, name)
    held = Held(threading.Event(), threading.Event())

    def holding(*args: Any) -> Any:
        first = not held.started.is_set()
        result = original(*args)
        if first:
            held.started.set()
            assert held.go.wait(10), "the held call was never released"
        return result

    monkeypatch.setattr(target, name, holding)
    return held
