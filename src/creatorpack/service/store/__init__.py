"""SQL storage (SQLAlchemy 2 Core): accounts, tokens, packs, publications, the catalog, assets, sessions.

Alembic migrations create the tables.

SQLite (WAL) is the embedded default; ``postgresql://`` URLs run the same code on PostgreSQL.
"""

from __future__ import annotations

from creatorpack.service.store.assets import SqlAssetStore, SqlKeyStore
from creatorpack.service.store.catalog import SqlCatalogStore
from creatorpack.service.store.database import Database, MigrationRequiredError, connect
from creatorpack.service.store.moderation import SqlModerationStore
from creatorpack.service.store.sessions import SqlSessionStore
from creatorpack.service.store.sql import SqlPackStore, SqlTokenStore

__all__ = [
    "Database",
    "MigrationRequiredError",
    "SqlAssetStore",
    "SqlCatalogStore",
    "SqlKeyStore",
    "SqlModerationStore",
    "SqlPackStore",
    "SqlSessionStore",
    "SqlTokenStore",
    "connect",
]
