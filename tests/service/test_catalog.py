"""The catalog: filters, search, sorts, signed cursors and paging while packs are published.

HTTP tests run on SQLite and PostgreSQL; the parity test loads the same packs into SQLite (FTS5),
PostgreSQL (GIN) and the in-memory fake and asks all three the same questions.
"""

from __future__ import annotations

import base64
import json
import random
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl, urlsplit

import pytest
from fastapi.testclient import TestClient

from creatorpack.service.catalog import Catalog, CatalogRequest, words
from creatorpack.service.errors import InvalidCursorError
from creatorpack.service.memory import FixedClock, MemoryBlobStore, MemoryKeyStore, MemoryPackStore
from creatorpack.service.packs import Packs
from creatorpack.service.ports import Actor, CatalogSort, CatalogStore, PackStore
from creatorpack.service.store import SqlCatalogStore, SqlKeyStore, SqlPackStore, connect
from tests.service.conftest import JSON, NO_POSTGRES, POSTGRES_URL, _null_pool, _schema_name, issue, published_bytes

ALICE = Actor("alice", "t1")


def _publish(client: TestClient, headers: dict[str, str], body: bytes) -> None:
    doc = json.loads(body)
    pack_id, revision = doc["manifest"]["pack_id"], doc["manifest"]["revision"]
    assert client.post("/v1/packs", content=body, headers={**headers, **JSON}).status_code == 201
    response = client.post(f"/v1/packs/{pack_id}/publish", json={"revision": revision}, headers=headers)
    assert response.status_code == 200, response.text


def _ids(client: TestClient, **params: Any) -> list[str]:
    response = client.get("/v1/catalog", params=params)
    assert response.status_code == 200, response.text
    return [item["pack_id"] for item in response.json()["items"]]


@pytest.fixture
def shelf(client: TestClient) -> TestClient:
    """Five public packs (one adult, one in Chinese), one unlisted, one private; published in this order."""
    alice = issue(client)
    packs = [
        published_bytes("p.fog", title="Fog Over Saltmere", tags=["Fog", "Small town"], genres=["Mystery"]),
        published_bytes(
            "p.keeper",
            title="The Keeper",
            tagline="A lighthouse keeper and her brother.",
            tags=["lighthouse", "family"],
            genres=["Drama"],
        ),
        published_bytes(
            "p.night",
            title="Night Ferry",
            description="A lighthouse shines on the last ferry of the night.",
            tags=["ferry", "fog"],
            genres=["Mystery", "Romance"],
            age_rating="adult",
        ),
        published_bytes("p.zh", title="灯塔守望者", language="zh", tags=["灯塔"], genres=["悬疑"]),
        published_bytes("p.lamp", title="Lighthouse Lamp", tags=["lighthouse"], genres=["Cozy"]),
        published_bytes("p.hidden", visibility="unlisted", title="Unlisted Lighthouse"),
        published_bytes("p.secret", visibility="private", title="Private Lighthouse"),
    ]
    for body in packs:
        _publish(client, alice, body)
    return client


def test_public_packs_only_newest_first_adult_left_out(shelf: TestClient) -> None:
    assert _ids(shelf) == ["p.lamp", "p.zh", "p.keeper", "p.fog"]
    assert _ids(shelf, age_rating="adult") == ["p.night"]
    assert _ids(shelf, age_rating=["general", "adult"]) == ["p.lamp", "p.zh", "p.night", "p.keeper", "p.fog"]


def test_filters(shelf: TestClient) -> None:
    assert _ids(shelf, language="zh") == ["p.zh"]
    assert _ids(shelf, language="en", tag="LIGHTHOUSE") == ["p.lamp", "p.keeper"]
    assert _ids(shelf, tag=["lighthouse", "family"]) == ["p.keeper"]
    assert _ids(shelf, tag="fog", age_rating=["general", "adult"]) == ["p.night", "p.fog"]
    assert _ids(shelf, exclude_tag="lighthouse") == ["p.zh", "p.fog"]
    assert _ids(shelf, exclude_tag=["lighthouse", "fog"]) == ["p.zh"]
    assert _ids(shelf, genre=["mystery", "cozy"]) == ["p.lamp", "p.fog"]
    assert _ids(shelf, genre="悬疑") == ["p.zh"]
    assert _ids(shelf, tag="small town") == ["p.fog"]
    assert _ids(shelf, tag="no such tag") == []


def test_search_ranks_title_over_tagline_over_description(shelf: TestClient) -> None:
    everyone = ["general", "adult"]
    assert _ids(shelf, q="lighthouse", age_rating=everyone) == ["p.lamp", "p.keeper", "p.night"]
    assert _ids(shelf, q="Lighthouse keeper") == ["p.keeper"]
    assert _ids(shelf, q="lighthouse", sort="title", age_rating=everyone) == ["p.lamp", "p.night", "p.keeper"]
    assert _ids(shelf, q="lighthouse", sort="newest") == ["p.lamp", "p.keeper"]
    assert _ids(shelf, q="灯塔守望者") == ["p.zh"]
    assert _ids(shelf, q="unlisted") == []
    assert _ids(shelf, q="private") == []
    assert _ids(shelf, q="!!!") == ["p.lamp", "p.zh", "p.keeper", "p.fog"]  # no words: no search


def test_sort_by_title(shelf: TestClient) -> None:
    assert _ids(shelf, sort="title") == ["p.fog", "p.lamp", "p.keeper", "p.zh"]


def test_pages_follow_the_cursor_and_the_link_header(shelf: TestClient) -> None:
    first = shelf.get("/v1/catalog", params={"limit": 3, "sort": "title"})
    body = first.json()
    assert [i["pack_id"] for i in body["items"]] == ["p.fog", "p.lamp", "p.keeper"]
    assert body["next"] is not None
    link = first.headers["link"]
    assert link.endswith('>; rel="next"')
    target = urlsplit(link[1 : link.index(">")])
    assert target.path == "/v1/catalog"
    assert dict(parse_qsl(target.query)) == {"limit": "3", "sort": "title", "cursor": body["next"]}
    second = shelf.get(link[1 : link.index(">")])
    assert [i["pack_id"] for i in second.json()["items"]] == ["p.zh"]
    assert second.json()["next"] is None
    assert "link" not in second.headers
    item = body["items"][0]
    assert set(item) == {
        "pack_id",
        "revision",
        "title",
        "language",
        "tagline",
        "creator_credit",
        "age_rating",
        "content_warnings",
        "genres",
        "tags",
        "cover",
        "published",
        "reader",
    }
    assert item["reader"] == "/v1/packs/p.fog/reader"


def test_limits_and_forged_cursors_are_4xx(shelf: TestClient) -> None:
    for params in ({"limit": 0}, {"limit": 101}, {"limit": "x"}, {"sort": "random"}, {"age_rating": "teen"}):
        response = shelf.get("/v1/catalog", params=params)
        assert response.status_code == 400, params
        assert response.json()["type"] == "urn:creatorpack:problem:invalid-request"
    good = shelf.get("/v1/catalog", params={"limit": 1}).json()["next"]
    payload, _, mac = good.partition(".")
    decoded = bytearray(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))
    decoded[-3] ^= 1  # one flipped bit of the payload
    flipped = base64.urlsafe_b64encode(bytes(decoded)).rstrip(b"=").decode() + "." + mac
    tampered = good[:-2] + ("BB" if good.endswith("AA") else "AA")  # never the MAC itself (1 in 4,096 ends in AA)
    for cursor in ("forged", "a.b", tampered, flipped, "." + mac, good + "." + mac, "é" * 10):
        response = shelf.get("/v1/catalog", params={"limit": 1, "cursor": cursor})
        assert response.status_code == 400, cursor
        assert response.json()["type"] == "urn:creatorpack:problem:invalid-cursor"
    moved = shelf.get("/v1/catalog", params={"limit": 1, "cursor": good, "tag": "fog"})
    assert moved.status_code == 400
    assert "another search" in moved.json()["detail"]
    assert shelf.get("/v1/catalog", params={"limit": 2, "cursor": good}).status_code == 200  # the limit may change


@pytest.mark.parametrize(
    ("query", "name"),
    [
        ("q=%FF%FE", "q"),
        ("tag=%C3", "tag"),
        ("limit=1&genre=ok&genre=%E9t%E9", "genre"),
        ("q=fog&%FF=1", "\ufffd"),
        ("q=caf%C3%A9&cursor=%80", "cursor"),
    ],
)
def test_a_query_parameter_that_is_not_utf8_is_400_naming_it(shelf: TestClient, query: str, name: str) -> None:
    """Not read as replacement characters (a search for U+FFFD matched nothing and gave the whole catalog)."""
    response = shelf.get(f"/v1/catalog?{query}")
    assert response.status_code == 400, response.text
    body = response.json()
    assert body["type"] == "urn:creatorpack:problem:invalid-request"
    assert body["errors"] == [{"location": f"query.{name}", "message": "is not UTF-8 once percent-decoded"}]


def test_a_query_that_is_not_utf8_is_400_on_every_route(client: TestClient) -> None:
    alice = issue(client)
    for path in ("/v1/packs/moon.garden/events?after=%FF", "/v1/health?x=%FF", "/v1/lint?strict=%C0%AF"):
        response = client.get(path, headers=alice) if "lint" not in path else client.post(path, headers=alice)
        assert response.status_code == 400, (path, response.text)
        assert response.json()["type"] == "urn:creatorpack:problem:invalid-request"
    assert client.get("/v1/catalog?q=caf%C3%A9+%E2%9C%93").status_code == 200  # UTF-8 is read as it was


def _all_pages(client: TestClient, between: Any = None, **params: Any) -> list[str]:
    seen: list[str] = []
    cursor = None
    while True:
        body = client.get("/v1/catalog", params={**params, **({"cursor": cursor} if cursor else {})}).json()
        seen += [i["pack_id"] for i in body["items"]]
        cursor = body["next"]
        if cursor is None:
            return seen
        if between is not None:
            between(len(seen))


@pytest.mark.parametrize("sort", ["newest", "title", "relevance"])
def test_paging_while_packs_are_published_never_repeats_or_skips(client: TestClient, sort: str) -> None:
    alice = issue(client)
    rng = random.Random(7)
    for n in range(12):
        _publish(client, alice, published_bytes(f"p{n:02}", title=f"Lantern {rng.choice('ABCDEFGH')} {n}"))
    q = {"q": "lantern"} if sort == "relevance" else {}
    before = _ids(client, sort=sort, limit=100, **q)
    republished = iter(range(12))
    counter = iter(range(100, 200))

    def meanwhile(_seen: int) -> None:
        # new packs, a pack republished with another title (it moves in the title order), another unpublished
        _publish(client, alice, published_bytes(f"n{next(counter)}", title="Aardvark Lantern"))
        n = next(republished)
        _publish(client, alice, published_bytes(f"p{n:02}", revision=2, title=f"Zebra Lantern {n}"))

    paged = _all_pages(client, meanwhile, sort=sort, limit=2, **q)
    assert len(paged) == len(set(paged))  # never twice
    assert paged == before  # never skipped, in the order of the moment paging began
    assert _ids(client, sort=sort, limit=100, **q) != before  # the catalog did change meanwhile


def test_a_pack_unpublished_while_paging_is_left_out(client: TestClient) -> None:
    alice = issue(client)
    for n in range(6):
        _publish(client, alice, published_bytes(f"p{n}", title=f"Pack {n}"))
    gone: list[str] = []

    def meanwhile(_seen: int) -> None:
        if not gone:
            gone.append("p0")
            assert client.delete("/v1/packs/p0/publish", headers=alice).status_code == 204

    assert _all_pages(client, meanwhile, limit=2) == ["p5", "p4", "p3", "p2", "p1"]


def test_concurrent_publishers_and_a_pager(client: TestClient) -> None:
    alice = issue(client)
    for n in range(10):
        _publish(client, alice, published_bytes(f"base{n}", title=f"Base {n}"))
    stop = threading.Event()
    errors: list[BaseException] = []

    def publisher() -> None:
        n = 0
        try:
            while not stop.is_set() and n < 40:
                _publish(client, alice, published_bytes(f"new{n}", title=f"Aaa {n}"))
                n += 1
        except BaseException as exc:  # noqa: BLE001 - reported below
            errors.append(exc)

    thread = threading.Thread(target=publisher)
    before = _ids(client, sort="title", limit=100)
    thread.start()
    try:
        pages = [_all_pages(client, sort="title", limit=1) for _ in range(3)]
    finally:
        stop.set()
        thread.join()
    assert errors == []
    for paged in pages:
        assert len(paged) == len(set(paged))
        assert {p for p in paged if p.startswith("base")} == {p for p in before if p.startswith("base")}
        assert [p for p in paged if p.startswith("base")] == [p for p in before if p.startswith("base")]


# -- the same answers on SQLite, PostgreSQL and the fake ----------------------------------------------------

TEXTS = [
    "Café au lait at the Harbour",
    "Naïve keeper's LOG-book",
    "Straße der Leuchttürme",
    "STRASSE of lamps",
    "東京の灯台 and the sea",
    "rock'n'roll lighthouse 118 steps",
    "cliff-path, fog & the mp4 reel",
    "The lighthouse keeper",
    "Keeper keeper KEEPER",
    "Ünïcödé lamp room",
    "ǅemal's fog",
    "ﬁne print (a ligature)",
]
QUERIES = [
    "lighthouse",
    "keeper",
    "café",
    "cafe",
    "strasse",
    "straße",
    "東京の灯台",
    "灯台",
    "fog",
    "cliff path",
    "log",
    "book",
    "118",
    "mp4",
    "ǆemal",
    "fine",
    "unicode",
    "ünïcödé",
    "lamp",
    "the",
    "s",
    "keeper lighthouse",
    "nothing matches this",
]


def _dataset() -> Iterator[bytes]:
    rng = random.Random(10)
    for n in range(40):
        picks = rng.sample(TEXTS, 3)
        yield published_bytes(
            f"pack{n:02}",
            title=picks[0] + f" {n}",
            tagline=picks[1][:200],
            description=picks[2] + " " + " ".join(rng.sample(TEXTS, 2)),
            tags=rng.sample(["fog", "lamp", "sea", "Family", "Ünïcödé"], 2),
            genres=[rng.choice(["Mystery", "Drama", "Cozy"])],
            language=rng.choice(["en", "zh"]),
            age_rating=rng.choice(["general", "general", "adult"]),
        )


def _load(store: PackStore, catalog_store: CatalogStore, keys: Any) -> Catalog:
    clock = FixedClock()
    packs = Packs(store, MemoryBlobStore(clock), clock)
    for body in _dataset():
        done = packs.submit("alice", body)
        clock.advance(1)
        packs.publish(ALICE, done.revision.pack_id, done.revision.revision)
    for n in range(0, 40, 7):  # some republished (new titles), some unpublished
        body = json.loads(published_bytes(f"pack{n:02}", revision=2, title=f"Republished lighthouse {n}"))
        packs.submit("alice", json.dumps(body).encode())
        packs.publish(ALICE, f"pack{n:02}", 2)
    for n in (3, 11):
        packs.unpublish(ALICE, f"pack{n:02}")
    return Catalog(catalog_store, keys)


def _answers(catalog: Catalog) -> list[list[str]]:
    answers = []
    filters: list[dict[str, Any]] = [
        {},
        {"language": "zh"},
        {"tag": ("fog",)},
        {"genre": ("drama", "cozy")},
        {"exclude_tag": ("lamp",)},
        {"age_rating": ("adult",)},
        {"tag": ("ünïcödé",), "age_rating": ("general", "adult")},
    ]
    for query in [None, *QUERIES]:
        for sort in (None, *CatalogSort):
            for extra in filters:
                pages: list[str] = []
                cursor = None
                while True:
                    request = CatalogRequest(q=query, sort=sort, limit=4, cursor=cursor, **extra)
                    result = catalog.search(request)
                    pages += [json.loads(e)["pack_id"] for e in result.entries]
                    if result.next is None:
                        break
                    cursor = result.next
                answers.append(pages)
    return answers


@pytest.fixture
def postgres_database() -> Iterator[Any]:
    if not POSTGRES_URL:
        pytest.skip(NO_POSTGRES)
    schema = _schema_name()
    admin = connect(POSTGRES_URL, poolclass=_null_pool())
    with admin.write() as conn:
        conn.exec_driver_sql(f'CREATE SCHEMA "{schema}"')
    database = connect(POSTGRES_URL, schema=schema)
    database.upgrade()
    try:
        yield database
    finally:
        database.dispose()
        with admin.write() as conn:
            conn.exec_driver_sql(f'DROP SCHEMA "{schema}" CASCADE')
        admin.dispose()


def test_sqlite_postgresql_and_the_fake_give_the_same_answers(tmp_path: Path, postgres_database: Any) -> None:
    sqlite = connect(f"sqlite:///{tmp_path / 'c.db'}")
    sqlite.upgrade()
    memory = MemoryPackStore()
    stores = {
        "sqlite": _load(SqlPackStore(sqlite), SqlCatalogStore(sqlite), SqlKeyStore(sqlite)),
        "postgresql": _load(
            SqlPackStore(postgres_database), SqlCatalogStore(postgres_database), SqlKeyStore(postgres_database)
        ),
        "memory": _load(memory, memory, MemoryKeyStore()),
    }
    answers = {name: _answers(catalog) for name, catalog in stores.items()}
    sqlite.dispose()
    assert answers["sqlite"] == answers["memory"]
    assert answers["postgresql"] == answers["memory"]
    assert sum(1 for a in answers["memory"] if a) > len(answers["memory"]) // 3  # most questions find something
    assert max(len(a) for a in answers["memory"]) > 8  # and some need several pages


def test_words_are_normalized_once_for_index_and_query() -> None:
    assert words("Café au LAIT, rock'n'roll 118") == ("café", "au", "lait", "rock", "n", "roll", "118")
    assert words("Straße ﬁne") == ("strasse", "fine")
    assert words("東京の灯台 cliff-path") == ("東京の灯台", "cliff", "path")
    assert words("x" * 100) == ("x" * 64,)
    assert words("a_b\x00c") == ("a", "b", "c")


def test_a_cursor_from_another_key_is_refused() -> None:
    store = MemoryPackStore()
    clock = FixedClock()
    packs = Packs(store, MemoryBlobStore(clock), clock)
    for n in range(3):
        packs.submit("alice", published_bytes(f"p{n}"))
        packs.publish(ALICE, f"p{n}", 1)
    first = Catalog(store, MemoryKeyStore()).search(CatalogRequest(limit=1))
    assert first.next is not None
    assert len(Catalog(store, MemoryKeyStore()).search(CatalogRequest(limit=1)).entries) == 1
    with pytest.raises(InvalidCursorError):
        Catalog(store, MemoryKeyStore()).search(CatalogRequest(limit=1, cursor=first.next))


def test_pages_are_remembered_until_the_catalog_changes() -> None:
    store = MemoryPackStore()
    clock = FixedClock()
    packs = Packs(store, MemoryBlobStore(clock), clock)
    packs.submit("alice", published_bytes("p1", title="Lantern One"))
    packs.publish(ALICE, "p1", 1)
    searches: list[Any] = []
    original = store.search

    def counting(query: Any) -> Any:
        searches.append(query)
        return original(query)

    store.search = counting  # type: ignore[method-assign]
    catalog = Catalog(store, MemoryKeyStore())
    first = catalog.search(CatalogRequest(q="lantern"))
    assert catalog.search(CatalogRequest(q="Lantern")) == first  # the same words: the same page
    assert len(searches) == 1
    catalog.search(CatalogRequest(q="lantern", limit=5))  # another limit: another page
    assert len(searches) == 2
    packs.submit("alice", published_bytes("p2", title="Lantern Two"))
    packs.publish(ALICE, "p2", 1)
    assert [json.loads(e)["pack_id"] for e in catalog.search(CatalogRequest(q="lantern")).entries] == ["p2", "p1"]
    assert len(searches) == 3
    uncached = Catalog(store, MemoryKeyStore(), remembered=0)
    uncached.search(CatalogRequest(q="lantern"))
    uncached.search(CatalogRequest(q="lantern"))
    assert len(searches) == 5


def test_another_process_publishing_is_seen_at_once(settings: Any) -> None:
    from creatorpack.service.app import create_app

    with TestClient(create_app(settings)) as here, TestClient(create_app(settings)) as there:
        alice = issue(here)
        _publish(here, alice, published_bytes("p1", title="Lantern One"))
        assert _ids(here, q="lantern") == ["p1"]
        _publish(there, alice, published_bytes("p2", title="Lantern Two"))
        assert _ids(here, q="lantern") == ["p2", "p1"]
        assert there.delete("/v1/packs/p1/publish", headers=alice).status_code == 204
        assert _ids(here, q="lantern") == ["p2"]


def test_a_pack_without_words_is_listed_and_found_by_nothing(client: TestClient) -> None:
    alice = issue(client)
    _publish(client, alice, published_bytes("p.mute", title="!!!", tagline="...", description="— …"))
    assert _ids(client) == ["p.mute"]
    assert _ids(client, q="mute") == []
