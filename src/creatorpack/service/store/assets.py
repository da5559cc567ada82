"""The SQL implementations of :class:`~creatorpack.service.ports.AssetStore` and ``KeyStore``."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import UTC, datetime
from typing import Any, Final

from sqlalchemy import insert, select
from sqlalchemy.exc import IntegrityError

from creatorpack.service.ports import AssetRecord
from creatorpack.service.store.database import Database
from creatorpack.service.store.tables import assets, service_keys

__all__ = ["SqlAssetStore", "SqlKeyStore"]

_CHUNK: Final = 500  # hashes per IN (...) list


def _record(row: Any) -> AssetRecord:
    created: datetime = row.created
    created = created.replace(tzinfo=UTC) if created.tzinfo is None else created.astimezone(UTC)
    return AssetRecord(row.sha256, int(row.size), row.mime_type, created)


class SqlAssetStore:
    """Uploaded asset files in SQL (their bytes are in the blob store)."""

    def __init__(self, database: Database) -> None:
        self._db = database

    def add_asset(self, record: AssetRecord) -> bool:
        """See :meth:`~creatorpack.service.ports.AssetStore.add_asset`."""
        try:
            with self._db.write() as conn:
                if conn.execute(select(assets.c.sha256).where(assets.c.sha256 == record.sha256)).scalar():
                    return False
                conn.execute(
                    insert(assets).values(
                        sha256=record.sha256, size=record.size, mime_type=record.mime_type, created=record.created
                    )
                )
                return True
        except IntegrityError:  # a concurrent upload of the same bytes won (PostgreSQL): the same outcome
            return False

    def asset(self, sha256: str) -> AssetRecord | None:
        """See :meth:`~creatorpack.service.ports.AssetStore.asset`."""
        with self._db.read() as conn:
            row = conn.execute(select(assets).where(assets.c.sha256 == sha256)).one_or_none()
        return _record(row) if row is not None else None

    def assets(self, hashes: Iterable[str]) -> dict[str, AssetRecord]:
        """See :meth:`~creatorpack.service.ports.AssetStore.assets`."""
        wanted = sorted(set(hashes))
        found: dict[str, AssetRecord] = {}
        with self._db.read() as conn:
            for start in range(0, len(wanted), _CHUNK):
                chunk = wanted[start : start + _CHUNK]
                rows = conn.execute(select(assets).where(assets.c.sha256.in_(chunk))).all()
                found.update((row.sha256, _record(row)) for row in rows)
        return found

    def asset_hashes(self) -> set[str]:
        """See :meth:`~creatorpack.service.ports.AssetStore.asset_hashes`."""
        with self._db.read() as conn:
            return set(conn.execute(select(assets.c.sha256)).scalars())


class SqlKeyStore:
    """The service's own secrets in SQL, so that every server process signs alike."""

    def __init__(self, database: Database) -> None:
        self._db = database

    def secret(self, name: str, candidate: str) -> str:
        """See :meth:`~creatorpack.service.ports.KeyStore.secret`."""
        query = select(service_keys.c.value).where(service_keys.c.name == name)
        with self._db.read() as conn:
            found = conn.execute(query).scalar()
        if found is not None:
            return str(found)
        try:
            with self._db.write() as conn:
                found = conn.execute(query).scalar()
                if found is not None:
                    return str(found)
                conn.execute(insert(service_keys).values(name=name, value=candidate))
                return candidate
        except IntegrityError:  # another process stored its candidate first: use that one
            with self._db.read() as conn:
                return str(conn.execute(query).scalar_one())
