"""The catalog in SQL: listing versions written by publishing, searched as of a publication sequence number.

Each publication of a public revision adds a listing version valid from the catalog clock's next
sequence number; the next publication or unpublication of the pack closes it (``valid_to``). A
search reads the versions valid at its snapshot that are still listed now, so paging from one
snapshot never repeats or skips a listing while other packs are being published. The first page
reads the clock and the listings in one consistent transaction, where "valid at the snapshot" is
simply "not closed".

Full text: SQLite's FTS5 table ``listings_fts`` (rowid = ``listings.id``) or PostgreSQL's GIN index
over ``listings.search_vector``, the ``array_to_tsvector`` of the same words (``listing_texts.terms``).
Both hold the words the domain normalized, so both find the same listings; the score is plain SQL
over the same columns, so both rank alike. Every word of a query must occur in the title, tagline
or description, so a word in neither the title nor the tagline is in the description: the score
reads only the two short ones.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Final

from sqlalchemy import (
    BigInteger,
    BindParameter,
    ColumnElement,
    Connection,
    Integer,
    Select,
    Text,
    and_,
    bindparam,
    case,
    cast,
    column,
    exists,
    func,
    insert,
    literal,
    literal_column,
    or_,
    select,
    table,
    text,
    update,
)
from sqlalchemy.dialects.postgresql import TSQUERY

from creatorpack.service.ports import (
    RANK_WEIGHTS,
    CatalogHit,
    CatalogKey,
    CatalogPage,
    CatalogQuery,
    CatalogSort,
    Listing,
)
from creatorpack.service.store.database import Database
from creatorpack.service.store.tables import catalog_clock, listing_terms, listing_texts, listings

__all__ = ["SqlCatalogStore", "close_listing", "next_seq", "relist", "write_listing"]

_FTS_INSERT: Final = text("INSERT INTO listings_fts(rowid, terms) VALUES (:id, :terms)")
_VECTOR_UPDATE: Final = text(
    "UPDATE listings SET search_vector = array_to_tsvector(CAST(:words AS text[])) WHERE id = :id"
)
_FTS: Final = table("listings_fts", column("rowid", Integer), column("listings_fts"))
_CLOCK: Final = select(catalog_clock.c.seq).where(catalog_clock.c.id == 1)


def _padded(terms: tuple[str, ...]) -> str:
    return " " + " ".join(terms) + " " if terms else " "


def next_seq(conn: Connection) -> int:
    """Advance the catalog clock (locking its row: publications are serialized) and return the new value."""
    advanced = update(catalog_clock).where(catalog_clock.c.id == 1).values(seq=catalog_clock.c.seq + 1)
    return int(conn.execute(advanced.returning(catalog_clock.c.seq)).scalar_one())


def close_listing(conn: Connection, pack_id: str, seq: int) -> None:
    """End the pack's open listing version (if any) at ``seq``."""
    conn.execute(
        update(listings).where(listings.c.pack_id == pack_id, listings.c.valid_to.is_(None)).values(valid_to=seq)
    )


def relist(conn: Connection, pack_id: str, listing: Listing | None) -> None:
    """One tick of the catalog clock for the pack: its open listing ends, and ``listing`` (if any) begins."""
    seq = next_seq(conn)
    close_listing(conn, pack_id, seq)
    if listing is not None:
        write_listing(conn, pack_id, seq, listing)


def write_listing(conn: Connection, pack_id: str, seq: int, listing: Listing) -> None:
    """Add a listing version valid from ``seq``, its genres and tags, and its words to the full-text index."""
    words = " ".join(dict.fromkeys((*listing.title_terms, *listing.tagline_terms, *listing.description_terms)))
    listing_id = conn.execute(
        insert(listings)
        .values(
            pack_id=pack_id,
            valid_from=seq,
            valid_to=None,
            age_rating=listing.age_rating,
            language=listing.language,
            title_key=listing.title_key,
            title_terms=_padded(listing.title_terms),
            tagline_terms=_padded(listing.tagline_terms),
        )
        .returning(listings.c.id)
    ).scalar_one()
    conn.execute(insert(listing_texts).values(listing_id=listing_id, terms=words, entry=listing.entry.decode("utf-8")))
    values = [{"listing_id": listing_id, "kind": "genre", "value": g} for g in dict.fromkeys(listing.genres)]
    values += [{"listing_id": listing_id, "kind": "tag", "value": t} for t in dict.fromkeys(listing.tags)]
    if values:
        conn.execute(insert(listing_terms), values)
    if conn.dialect.name == "sqlite":
        conn.execute(_FTS_INSERT, {"id": listing_id, "terms": words})
    else:
        conn.execute(_VECTOR_UPDATE, {"id": listing_id, "words": words.split()})


@dataclass(frozen=True, slots=True)
class _Shape:
    """What a search's SQL depends on (its values are bound parameters): one statement is built per shape."""

    terms: int
    sort: CatalogSort
    language: bool
    genres: bool
    tags: int
    exclude_tags: bool
    snapshot: bool
    after: bool

    @classmethod
    def of(cls, query: CatalogQuery) -> _Shape:
        return cls(
            len(query.terms),
            query.sort,
            query.language is not None,
            bool(query.genres),
            len(query.tags),
            bool(query.exclude_tags),
            query.snapshot is not None,
            query.after is not None,
        )


class SqlCatalogStore:
    """:class:`~creatorpack.service.ports.CatalogStore` over the listing tables."""

    def __init__(self, database: Database) -> None:
        self._db = database
        self._sqlite = database.is_sqlite
        self._statements: dict[_Shape, Select[Any]] = {}

    def search(self, query: CatalogQuery) -> CatalogPage:
        """See :meth:`~creatorpack.service.ports.CatalogStore.search`."""
        shape = _Shape.of(query)
        statement = self._statements.get(shape)
        if statement is None:
            statement = self._statements[shape] = self._statement(shape)
        params = self._params(query)
        if query.snapshot is None:
            with self._db.snapshot() as conn:  # the clock and the listings as of one moment
                snapshot = int(conn.execute(_CLOCK).scalar_one())
                rows = conn.execute(statement, params).all()
        else:
            snapshot = query.snapshot
            with self._db.read() as conn:
                rows = conn.execute(statement, params).all()
        hits = tuple(
            CatalogHit(row.entry.encode("utf-8"), CatalogKey(int(row.score), row.title_key, int(row.valid_from)))
            for row in rows[: query.limit]
        )
        return CatalogPage(hits, snapshot, more=len(rows) > query.limit)

    def version(self) -> int:
        """See :meth:`~creatorpack.service.ports.CatalogStore.version`."""
        with self._db.read() as conn:
            return int(conn.execute(_CLOCK).scalar_one())

    def _params(self, query: CatalogQuery) -> dict[str, Any]:
        params: dict[str, Any] = {"ages": list(query.age_ratings), "limit": query.limit + 1}
        if query.terms:
            params["match"] = (
                " ".join(f'"{t}"' for t in query.terms)  # letters and digits only: nothing to escape
                if self._sqlite
                else " & ".join(f"'{t}'" for t in query.terms)
            )
            params.update({f"term{i}": f" {t} " for i, t in enumerate(query.terms)})
        if query.language is not None:
            params["language"] = query.language
        if query.genres:
            params["genres"] = list(query.genres)
        params.update({f"tag{i}": t for i, t in enumerate(query.tags)})
        if query.exclude_tags:
            params["exclude"] = list(query.exclude_tags)
        if query.snapshot is not None:
            params["snapshot"] = query.snapshot
        if query.after is not None:
            after = query.after
            params.update(after_score=after.score, after_title=after.title_key, after_seq=after.seq)
        return params

    def _statement(self, shape: _Shape) -> Select[Any]:
        conditions: list[ColumnElement[bool]] = [listings.c.age_rating.in_(bindparam("ages", expanding=True))]
        if not shape.snapshot:
            conditions.append(listings.c.valid_to.is_(None))  # in a consistent read: valid now
        else:
            current = listings.alias("current")
            snapshot = bindparam("snapshot", type_=BigInteger)
            conditions += [
                listings.c.valid_from <= snapshot,
                or_(listings.c.valid_to.is_(None), listings.c.valid_to > snapshot),
                exists().where(current.c.pack_id == listings.c.pack_id, current.c.valid_to.is_(None)),
            ]
        if shape.language:
            conditions.append(listings.c.language == bindparam("language"))
        if shape.genres:
            conditions.append(_has("genre", bindparam("genres", expanding=True)))
        conditions.extend(_has("tag", bindparam(f"tag{i}")) for i in range(shape.tags))
        if shape.exclude_tags:
            conditions.append(~_has("tag", bindparam("exclude", expanding=True)))
        source: Any = listings
        if shape.terms:
            source, match = self._matches()
            conditions.append(match)
        found = (
            select(listings.c.id, listings.c.title_key, listings.c.valid_from, self._score(shape.terms).label("score"))
            .select_from(source)
            .where(and_(*conditions))
            .subquery("found")
        )
        keyset: list[ColumnElement[bool]] = []
        seq = bindparam("after_seq", type_=BigInteger)
        if shape.after and shape.sort is CatalogSort.RELEVANCE:
            score = bindparam("after_score", type_=Integer)
            keyset.append(or_(found.c.score < score, and_(found.c.score == score, found.c.valid_from < seq)))
        elif shape.after and shape.sort is CatalogSort.TITLE:
            title, mark = self._collated(found.c.title_key), self._collated(bindparam("after_title", type_=Text))
            keyset.append(or_(title > mark, and_(title == mark, found.c.valid_from > seq)))
        elif shape.after:
            keyset.append(found.c.valid_from < seq)
        limit = bindparam("limit", type_=Integer)
        page = select(found).where(*keyset).order_by(*self._order(found, shape.sort)).limit(limit)
        ranked = page.subquery("page")  # the texts are read for this page only
        entries = select(ranked, listing_texts.c.entry).join(listing_texts, listing_texts.c.listing_id == ranked.c.id)
        return entries.order_by(*self._order(ranked, shape.sort))

    def _collated(self, value: ColumnElement[Any]) -> ColumnElement[Any]:
        return value if self._sqlite else value.collate("C")  # code point order, as SQLite's BINARY

    def _order(self, rows: Any, sort: CatalogSort) -> list[ColumnElement[Any]]:
        if sort is CatalogSort.RELEVANCE:
            return [rows.c.score.desc(), rows.c.valid_from.desc()]
        if sort is CatalogSort.TITLE:
            return [self._collated(rows.c.title_key).asc(), rows.c.valid_from.asc()]
        return [rows.c.valid_from.desc()]

    def _matches(self) -> tuple[Any, ColumnElement[bool]]:
        match = bindparam("match", type_=Text)
        if self._sqlite:
            joined = listings.join(_FTS, _FTS.c.rowid == listings.c.id)
            return joined, literal_column("listings_fts").bool_op("MATCH")(match)
        vector: ColumnElement[Any] = literal_column("listings.search_vector")  # PostgreSQL's only (0002)
        return listings, vector.bool_op("@@")(cast(match, TSQUERY))

    def _score(self, terms: int) -> ColumnElement[Any]:
        if not terms:
            return literal(0, Integer)
        find = func.instr if self._sqlite else func.strpos
        total: ColumnElement[Any] | None = None
        for i in range(terms):
            needle = bindparam(f"term{i}", type_=Text)
            part = case(
                (find(listings.c.title_terms, needle) > 0, RANK_WEIGHTS.title),
                (find(listings.c.tagline_terms, needle) > 0, RANK_WEIGHTS.tagline),
                else_=RANK_WEIGHTS.description,  # each word is in some text: not title or tagline, so description
            )
            total = part if total is None else total + part
        assert total is not None
        return total


def _has(kind: str, values: BindParameter[Any]) -> ColumnElement[bool]:
    value = listing_terms.c.value
    matches = value.in_(values) if values.expanding else value == values
    return exists().where(listing_terms.c.listing_id == listings.c.id, listing_terms.c.kind == kind, matches)
