"""Publishing, the audit journal, the catalog (with its full-text index), uploaded assets and service keys.

The full-text index depends on the database: an FTS5 table on SQLite; on PostgreSQL a tsvector
column of the listing's words with a GIN index. Both index the same words (normalized by the service), so the
two answer every search alike.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    """Create the tables and the full-text index."""
    op.create_table(
        "pack_events",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("pack_id", sa.String(80), sa.ForeignKey("packs.pack_id"), nullable=False),
        sa.Column("kind", sa.String(16), nullable=False),
        sa.Column("account", sa.String(80), nullable=False),
        sa.Column("token_id", sa.String(32), nullable=True),
        sa.Column("at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("revision", sa.BigInteger, nullable=True),
    )
    op.create_index("ix_pack_events_pack_id", "pack_events", ["pack_id", "id"])
    op.create_table(
        "publications",
        sa.Column("pack_id", sa.String(80), sa.ForeignKey("packs.pack_id"), primary_key=True),
        sa.Column("revision", sa.BigInteger, nullable=False),
        sa.Column("visibility", sa.String(16), nullable=False),
        sa.Column("published", sa.DateTime(timezone=True), nullable=False),
        sa.Column("reader", sa.Text, nullable=False),
        sa.Column("covers", sa.Text, nullable=False),
    )
    clock = op.create_table(
        "catalog_clock",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=False),
        sa.Column("seq", sa.BigInteger, nullable=False),
    )
    op.bulk_insert(clock, [{"id": 1, "seq": 0}])
    op.create_table(
        "listings",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("pack_id", sa.String(80), sa.ForeignKey("packs.pack_id"), nullable=False),
        sa.Column("valid_from", sa.BigInteger, nullable=False),
        sa.Column("valid_to", sa.BigInteger, nullable=True),
        sa.Column("age_rating", sa.String(16), nullable=False),
        sa.Column("language", sa.String(8), nullable=False),
        sa.Column("title_key", sa.Text, nullable=False),
        sa.Column("title_terms", sa.Text, nullable=False),
        sa.Column("tagline_terms", sa.Text, nullable=False),
    )
    op.create_index("ix_listings_valid_from", "listings", ["valid_from"], unique=True)
    op.create_index("ix_listings_pack_id", "listings", ["pack_id", "valid_to"])
    op.create_index("ix_listings_title_key", "listings", ["title_key", "valid_from"])
    op.create_table(
        "listing_texts",
        sa.Column("listing_id", sa.Integer, sa.ForeignKey("listings.id"), primary_key=True, autoincrement=False),
        sa.Column("terms", sa.Text, nullable=False),
        sa.Column("entry", sa.Text, nullable=False),
    )
    op.create_table(
        "listing_terms",
        sa.Column("listing_id", sa.Integer, sa.ForeignKey("listings.id"), nullable=False),
        sa.Column("kind", sa.String(8), nullable=False),
        sa.Column("value", sa.String(200), nullable=False),
        sa.PrimaryKeyConstraint("listing_id", "kind", "value"),
    )
    op.create_index("ix_listing_terms_value", "listing_terms", ["kind", "value", "listing_id"])
    op.create_table(
        "assets",
        sa.Column("sha256", sa.String(64), primary_key=True),
        sa.Column("size", sa.BigInteger, nullable=False),
        sa.Column("mime_type", sa.String(32), nullable=False),
        sa.Column("created", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_table(
        "service_keys",
        sa.Column("name", sa.String(32), primary_key=True),
        sa.Column("value", sa.String(128), nullable=False),
    )
    if op.get_bind().dialect.name == "sqlite":
        # Contentless: the words live in listing_texts.terms; the index maps them to listings.id (its rowid).
        op.execute(
            "CREATE VIRTUAL TABLE listings_fts USING fts5("
            "terms, content='', tokenize=\"unicode61 remove_diacritics 0\")"
        )
    else:
        # The words as a tsvector beside the columns a search filters and ranks on (one table to read;
        # written on publication from the same words as listing_texts.terms), and its GIN index.
        op.execute("ALTER TABLE listings ADD COLUMN search_vector tsvector NOT NULL DEFAULT ''::tsvector")
        op.execute("CREATE INDEX ix_listings_search ON listings USING gin (search_vector)")


def downgrade() -> None:
    """Drop them."""
    if op.get_bind().dialect.name == "sqlite":
        op.execute("DROP TABLE listings_fts")
    else:
        op.execute("DROP INDEX ix_listings_search")
    tables = ["service_keys", "assets", "listing_terms", "listing_texts", "listings", "catalog_clock"]
    tables += ["publications", "pack_events"]
    for table in tables:
        op.drop_table(table)
