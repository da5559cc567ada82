"""The catalog: search the public packs, page with a signed cursor, and index what publishing lists.

Words are normalized here once (NFKC, casefolded, runs of letters and digits, at most
:data:`MAX_WORD` characters), for the index and the queries alike, so every
:class:`~creatorpack.service.ports.CatalogStore` (SQLite FTS5, PostgreSQL full text, the in-memory
fake) matches the same words. The cursor is opaque to clients: a base64url payload (snapshot,
position, a digest of the query) and its HMAC-SHA256 under a key the service keeps in its store, so
a cursor cannot be forged or moved to another query.

Pages are remembered (a bounded LRU per process) with the catalog clock they were read at; each
search reads the clock (one row) and reuses a page only if the clock has not moved since, so a
popular search costs one small query and is never stale, in this process or any other.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import re
import secrets
import threading
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import Annotated, Any, Final

import orjson

from creatorpack.service.errors import InvalidCursorError
from creatorpack.service.lru import Lru
from creatorpack.service.ports import (
    AGE_RATINGS,
    AgeRating,
    CatalogKey,
    CatalogQuery,
    CatalogSort,
    CatalogStore,
    KeyStore,
    Listing,
)
from creatorpack.service.reader import CatalogEntry, ReaderPack
from creatorpack.service.shapes import Serialized

__all__ = [
    "MAX_LIMIT",
    "MAX_TERMS",
    "MAX_WORD",
    "Catalog",
    "CatalogPage",
    "CatalogRequest",
    "CatalogResult",
    "listing_for",
    "normalize",
    "words",
]

MAX_LIMIT: Final = 100
MAX_TERMS: Final = 16  # words of a query that count
MAX_WORD: Final = 64  # characters of a word that count (PostgreSQL lexemes are bounded)
MAX_VALUE: Final = 200  # characters of a genre or tag that count
MAX_VALUES: Final = 20  # genres or tags of a query that count (a pack has at most 64 of each)
_TITLE_KEY: Final = 200  # characters of the title that sort
_INDEXED_TITLE: Final = 2000  # characters of the title that are searched (tagline and description are bounded)
_WORD: Final = re.compile(r"[^\W_]+")
_KEY_NAME: Final = "catalog-cursor"
_PAGES: Final = 2048  # remembered pages per process (about 10 KB each)
_CURSOR_VERSION: Final = 1


def normalize(text: str) -> str:
    """NFKC and casefolded, NUL made a space (PostgreSQL text cannot hold it): how genres, tags and titles compare."""
    return unicodedata.normalize("NFKC", text).casefold().replace("\x00", " ")


def words(text: str) -> tuple[str, ...]:
    """The searchable words of ``text``: runs of letters and digits, normalized, each cut to :data:`MAX_WORD`."""
    return tuple(word[:MAX_WORD] for word in _WORD.findall(normalize(text)))


def _values(values: Sequence[str]) -> tuple[str, ...]:
    return tuple(dict.fromkeys(normalize(v).strip()[:MAX_VALUE] for v in values if v.strip()))[:MAX_VALUES]


def listing_for(view: ReaderPack) -> Listing:
    """What the catalog indexes of a public pack's reader view."""
    publication = view.publication
    return Listing(
        entry=view.catalog_entry().serialize(),
        title_key=normalize(view.title)[:_TITLE_KEY],
        language=view.language,
        age_rating=publication.age_rating,
        genres=_values(publication.genres),
        tags=_values(publication.tags),
        title_terms=words(view.title[:_INDEXED_TITLE]),
        tagline_terms=words(publication.tagline),
        description_terms=words(publication.description),
    )


@dataclass(frozen=True, slots=True)
class CatalogRequest:
    """A catalog request as the route received it (validated for shape, not yet normalized)."""

    q: str | None = None
    language: str | None = None
    genre: tuple[str, ...] = ()
    tag: tuple[str, ...] = ()
    exclude_tag: tuple[str, ...] = ()
    age_rating: tuple[AgeRating, ...] = ()
    sort: CatalogSort | None = None
    limit: int = 20
    cursor: str | None = None


@dataclass(frozen=True)
class CatalogPage:
    """A page of the catalog; ``next`` is the cursor of the following page (also in the Link header)."""

    items: tuple[Annotated[orjson.Fragment, Serialized(CatalogEntry)], ...]
    next: str | None


@dataclass(frozen=True)
class CatalogResult:
    """A page: the serialized catalog entries and the cursor of the next page (None on the last)."""

    entries: tuple[bytes, ...]
    next: str | None

    def serialize(self) -> bytes:
        """The response body: a :class:`CatalogPage` of the entries as they were serialized at publication.

        Made once per page: a remembered page (see :class:`Catalog`) answers with the same bytes.
        """
        return self._body

    @cached_property
    def _body(self) -> bytes:
        return orjson.dumps(CatalogPage(tuple(map(orjson.Fragment, self.entries)), self.next))


class Catalog:
    """Searches a :class:`~creatorpack.service.ports.CatalogStore`; signs and checks cursors."""

    def __init__(self, store: CatalogStore, keys: KeyStore, *, remembered: int = _PAGES) -> None:
        self._store = store
        self._keys = keys
        self._key: bytes | None = None
        self._remembered = remembered
        self._pages: Lru[tuple[str, str | None], tuple[int, CatalogResult]] = Lru(remembered)
        self._lock = threading.Lock()

    def _signing_key(self) -> bytes:
        if self._key is None:
            self._key = base64.urlsafe_b64decode(self._keys.secret(_KEY_NAME, _new_key()))
        return self._key

    def search(self, request: CatalogRequest) -> CatalogResult:
        """A page of public packs; :class:`InvalidCursorError` for a cursor that is forged or of another query."""
        terms = tuple(dict.fromkeys(words(request.q or "")))[:MAX_TERMS]
        sort = request.sort or (CatalogSort.RELEVANCE if terms else CatalogSort.NEWEST)
        query = CatalogQuery(
            terms=terms,
            language=request.language,
            genres=_values(request.genre),
            tags=_values(request.tag),
            exclude_tags=_values(request.exclude_tag),
            age_ratings=tuple(r for r in AGE_RATINGS if r in request.age_rating) or ("general",),
            sort=sort,
            limit=max(1, min(request.limit, MAX_LIMIT)),
        )
        digest = _digest(query)
        if request.cursor is not None:
            snapshot, after = self._open(request.cursor, digest)
            query = _with(query, snapshot, after)
        key = (f"{digest}:{query.limit}", request.cursor)
        version = self._store.version() if self._remembered else None
        remembered = self._recall(key, version)
        if remembered is not None:
            return remembered
        page = self._store.search(query)
        following = None
        if page.more and page.hits:
            following = self._seal(page.snapshot, page.hits[-1].key, digest)
        result = CatalogResult(tuple(hit.entry for hit in page.hits), following)
        if version is not None:
            self._remember(key, version, result)
        return result

    def _recall(self, key: tuple[str, str | None], version: int | None) -> CatalogResult | None:
        if version is None:
            return None
        with self._lock:
            found = self._pages.peek(key)
            if found is None or found[0] != version:
                return None
            self._pages.touch(key)
            return found[1]

    def _remember(self, key: tuple[str, str | None], version: int, result: CatalogResult) -> None:
        with self._lock:
            self._pages.put(key, (version, result))

    def _seal(self, snapshot: int, key: CatalogKey, digest: str) -> str:
        payload = orjson.dumps([_CURSOR_VERSION, snapshot, key.score, key.title_key, key.seq, digest])
        mac = hmac.new(self._signing_key(), payload, hashlib.sha256).digest()
        return _b64(payload) + "." + _b64(mac)

    def _open(self, cursor: str, digest: str) -> tuple[int, CatalogKey]:
        try:
            body, _, signature = cursor.partition(".")
            payload = _unb64(body)
            mac = hmac.new(self._signing_key(), payload, hashlib.sha256).digest()
            if not hmac.compare_digest(mac, _unb64(signature)):
                raise InvalidCursorError("the cursor is not one this service issued; start again without it")
            version, snapshot, score, title_key, seq, bound = orjson.loads(payload)
        except (ValueError, TypeError, binascii.Error, orjson.JSONDecodeError):
            raise InvalidCursorError("the cursor is not one this service issued; start again without it") from None
        if version != _CURSOR_VERSION or bound != digest:
            raise InvalidCursorError("the cursor belongs to another search; keep the other parameters as they were")
        return int(snapshot), CatalogKey(int(score), str(title_key), int(seq))


def _with(query: CatalogQuery, snapshot: int, after: CatalogKey) -> CatalogQuery:
    return CatalogQuery(
        terms=query.terms,
        language=query.language,
        genres=query.genres,
        tags=query.tags,
        exclude_tags=query.exclude_tags,
        age_ratings=query.age_ratings,
        sort=query.sort,
        limit=query.limit,
        snapshot=snapshot,
        after=after,
    )


def _digest(query: CatalogQuery) -> str:
    shape: list[Any] = [
        query.terms,
        query.language,
        sorted(query.genres),
        sorted(query.tags),
        sorted(query.exclude_tags),
        query.age_ratings,
        str(query.sort),
    ]
    return hashlib.sha256(orjson.dumps(shape)).hexdigest()[:32]


def _new_key() -> str:
    return base64.urlsafe_b64encode(secrets.token_bytes(32)).decode("ascii")


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def _unb64(text: str) -> bytes:
    if not text or len(text) > 4096:
        raise ValueError("no cursor")
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))
