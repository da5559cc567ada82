"""The tables; migrations in ``migrations/versions`` create them (keep both in step).

The full-text index of the catalog is dialect-specific and lives only in the migration (0002): an
FTS5 table ``listings_fts`` on SQLite; on PostgreSQL a tsvector column ``listings.search_vector``
and its GIN index ``ix_listings_search``.
:func:`include_name` hides them from the comparison of these tables with the database.
"""

from __future__ import annotations

from typing import Any, Final

from sqlalchemy import (
    BigInteger,
    Column,
    DateTime,
    ForeignKey,
    Index,
    Integer,
    MetaData,
    PrimaryKeyConstraint,
    String,
    Table,
    Text,
)

__all__ = [
    "SEARCH_OBJECTS",
    "accounts",
    "admin_events",
    "assets",
    "catalog_clock",
    "include_name",
    "listing_terms",
    "listing_texts",
    "listings",
    "metadata",
    "pack_events",
    "packs",
    "publications",
    "reports",
    "revisions",
    "service_keys",
    "session_events",
    "sessions",
    "tokens",
]

metadata = MetaData()

accounts = Table(
    "accounts",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("name", String(80), nullable=False, unique=True),
    Column("created", DateTime(timezone=True), nullable=False),
    Column("role", String(16), nullable=False, server_default="member"),  # member or admin (of the platform)
    Column("disabled", DateTime(timezone=True), nullable=True),
    Column("disabled_reason", Text, nullable=True),
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
    Column("expires", DateTime(timezone=True), nullable=True),
    Column("last_used", DateTime(timezone=True), nullable=True),
    Column("packs", Text, nullable=True),  # JSON: the normalized pack ids it is limited to (NULL: every pack)
    Column("name", String(100), nullable=True),
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
    # The id as ownership compares it (names.normalize_pack_id); NULL only for a pack that collided
    # with an older one when migration 0004 ran (it reported them).
    Column("normalized_id", String(80), nullable=True),
    Column("takedown_reason", Text, nullable=True),
    Column("takedown_at", DateTime(timezone=True), nullable=True),
    Column("takedown_by", String(80), nullable=True),
    Index("ix_packs_normalized_id", "normalized_id", unique=True),
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

# -- migration 0003: play sessions. The session with its save, and its transcript (start, turns, migrations).
sessions = Table(
    "sessions",
    metadata,
    Column("id", String(32), primary_key=True),
    Column("account_id", Integer, ForeignKey("accounts.id"), nullable=False),
    Column("pack_id", String(80), ForeignKey("packs.pack_id"), nullable=False),
    Column("revision", BigInteger, nullable=False),
    Column("turn", Integer, nullable=False),
    Column("seq", Integer, nullable=False),
    Column("saved", Text, nullable=False),
    Column("created", DateTime(timezone=True), nullable=False),
    Column("updated", DateTime(timezone=True), nullable=False),
    Index("ix_sessions_pack_revision", "pack_id", "revision"),
)

session_events = Table(
    "session_events",
    metadata,
    Column("session_id", String(32), ForeignKey("sessions.id"), primary_key=True),
    Column("seq", Integer, primary_key=True, autoincrement=False),
    Column("kind", String(16), nullable=False),
    Column("turn", Integer, nullable=False),
    Column("revision", BigInteger, nullable=False),
    Column("request", Text, nullable=True),
    Column("request_hash", String(64), nullable=True),
    Column("result", Text, nullable=False),
    Column("created", DateTime(timezone=True), nullable=False),
)
# -- migration 0002: publishing, the audit journal, the catalog, assets, keys ----------------------

pack_events = Table(
    "pack_events",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("pack_id", String(80), ForeignKey("packs.pack_id"), nullable=False),
    Column("kind", String(16), nullable=False),
    Column("account", String(80), nullable=False),
    Column("token_id", String(32), nullable=True),
    Column("at", DateTime(timezone=True), nullable=False),
    Column("revision", BigInteger, nullable=True),
    Index("ix_pack_events_pack_id", "pack_id", "id"),
)

publications = Table(
    "publications",
    metadata,
    Column("pack_id", String(80), ForeignKey("packs.pack_id"), primary_key=True),
    Column("revision", BigInteger, nullable=False),
    Column("visibility", String(16), nullable=False),
    Column("published", DateTime(timezone=True), nullable=False),
    Column("reader", Text, nullable=False),  # the serialized reader view (JSON)
    Column("covers", Text, nullable=False),  # JSON: cover asset id -> sha256
)

catalog_clock = Table(
    "catalog_clock",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=False),
    Column("seq", BigInteger, nullable=False),
)

listings = Table(  # narrow, so that a search reads few pages: the texts are in listing_texts
    "listings",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("pack_id", String(80), ForeignKey("packs.pack_id"), nullable=False),
    Column("valid_from", BigInteger, nullable=False),  # the catalog_clock seq that listed this version
    Column("valid_to", BigInteger, nullable=True),  # the seq that superseded or withdrew it
    Column("age_rating", String(16), nullable=False),
    Column("language", String(8), nullable=False),
    Column("title_key", Text, nullable=False),
    Column("title_terms", Text, nullable=False),  # " word word " (space-padded, for scoring)
    Column("tagline_terms", Text, nullable=False),
    Index("ix_listings_valid_from", "valid_from", unique=True),
    Index("ix_listings_pack_id", "pack_id", "valid_to"),
    Index("ix_listings_title_key", "title_key", "valid_from"),
)

listing_texts = Table(
    "listing_texts",
    metadata,
    Column("listing_id", Integer, ForeignKey("listings.id"), primary_key=True, autoincrement=False),
    Column("terms", Text, nullable=False),  # every word, space-separated (the full-text index's input)
    Column("entry", Text, nullable=False),  # the serialized catalog entry (JSON)
)

listing_terms = Table(
    "listing_terms",
    metadata,
    Column("listing_id", Integer, ForeignKey("listings.id"), nullable=False),
    Column("kind", String(8), nullable=False),  # genre or tag
    Column("value", String(200), nullable=False),
    PrimaryKeyConstraint("listing_id", "kind", "value"),
    Index("ix_listing_terms_value", "kind", "value", "listing_id"),
)

assets = Table(
    "assets",
    metadata,
    Column("sha256", String(64), primary_key=True),
    Column("size", BigInteger, nullable=False),
    Column("mime_type", String(32), nullable=False),
    Column("created", DateTime(timezone=True), nullable=False),
)

service_keys = Table(
    "service_keys",
    metadata,
    Column("name", String(32), primary_key=True),
    Column("value", String(128), nullable=False),
)

# -- migration 0004: moderation --------------------------------------------------------------------

reports = Table(
    "reports",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("pack_id", String(80), ForeignKey("packs.pack_id"), nullable=False),
    Column("reason", String(32), nullable=False),
    Column("details", Text, nullable=False),
    Column("reporter", String(80), nullable=True),
    Column("created", DateTime(timezone=True), nullable=False),
    Column("resolved", DateTime(timezone=True), nullable=True),
    Column("resolved_by", String(80), nullable=True),
    Column("resolution", Text, nullable=True),
    Index("ix_reports_open", "resolved", "id"),
)

admin_events = Table(
    "admin_events",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("kind", String(32), nullable=False),
    Column("account", String(80), nullable=False),
    Column("token_id", String(32), nullable=True),
    Column("at", DateTime(timezone=True), nullable=False),
    Column("target_account", String(80), nullable=True),
    Column("pack_id", String(80), nullable=True),
    Column("detail", Text, nullable=True),
)

SEARCH_OBJECTS: Final = frozenset({"listings_fts", "search_vector", "ix_listings_search"})
"""The dialect-specific full-text objects of migration 0002 that these tables do not describe."""


def include_name(name: str | None, type_: str, parent_names: Any = None) -> bool:  # noqa: ARG001 - Alembic's hook
    """Whether Alembic's comparison looks at a database object (not the full-text index nor its FTS5 shadows)."""
    return name is None or not any(name == obj or name.startswith(obj + "_") for obj in SEARCH_OBJECTS)
