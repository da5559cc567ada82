"""The tables; migrations in ``migrations/versions`` create them (keep both in step)."""

from __future__ import annotations

from sqlalchemy import BigInteger, Column, DateTime, ForeignKey, Index, Integer, MetaData, String, Table

__all__ = ["accounts", "metadata", "packs", "revisions", "tokens"]

metadata = MetaData()

accounts = Table(
    "accounts",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("name", String(80), nullable=False, unique=True),
    Column("created", DateTime(timezone=True), nullable=False),
)

tokens = Table(
    "tokens",
    metadata,
    Column("id", String(32), primary_key=True),
    Column("account_id", Integer, ForeignKey("accounts.id"), nullable=False),
    Column("scope", String(16), nullable=False),
    Column("hash", String(64), nullable=False, unique=True),
    Column("created", DateTime(timezone=True), nullable=False),
    Column("revoked", DateTime(timezone=True), nullable=True),
)

packs = Table(
    "packs",
    metadata,
    Column("pack_id", String(80), primary_key=True),
    Column("account_id", Integer, ForeignKey("accounts.id"), nullable=False),
    Column("created", DateTime(timezone=True), nullable=False),
    Column("latest_revision", BigInteger, nullable=False),
    Column("published_revision", BigInteger, nullable=True),
    Column("visibility", String(16), nullable=False),
)

revisions = Table(
    "revisions",
    metadata,
    Column("pack_id", String(80), ForeignKey("packs.pack_id"), primary_key=True),
    Column("revision", BigInteger, primary_key=True, autoincrement=False),
    Column("sha256", String(64), nullable=False),
    Column("size", BigInteger, nullable=False),
    Column("version", String(8), nullable=False),
    Column("created", DateTime(timezone=True), nullable=False),
    Column("deleted", DateTime(timezone=True), nullable=True),
    Index("ix_revisions_sha256", "sha256"),
)
