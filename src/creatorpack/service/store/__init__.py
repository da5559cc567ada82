"""SQL storage (SQLAlchemy 2 Core) of accounts, tokens, packs and revisions, with Alembic migrations.

SQLite (WAL) is the embedded default; ``postgresql://`` URLs run the same code on PostgreSQL.
"""

from __future__ import annotations

from creatorpack.service.store.database import Database, connect
from creatorpack.service.store.sql import SqlPackStore, SqlTokenStore

__all__ = ["Database", "SqlPackStore", "SqlTokenStore", "connect"]
