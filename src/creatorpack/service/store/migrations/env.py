"""Alembic environment: migrations run on the connection handed in by ``Database.upgrade``."""

from __future__ import annotations

from alembic import context

from creatorpack.service.store.tables import include_name, metadata

connection = context.config.attributes["connection"]
context.configure(connection=connection, target_metadata=metadata, include_name=include_name)
with context.begin_transaction():
    context.run_migrations()
