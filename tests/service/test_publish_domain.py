"""Publishing and the reader view against the in-memory fakes: no database, no HTTP."""

from __future__ import annotations

import json
from typing import Any

import orjson
import pytest

from creatorpack import Engine
from creatorpack.service.errors import LintFailedError, NotFoundError
from creatorpack.service.memory import FixedClock, MemoryAssetStore, MemoryBlobStore, MemoryPackStore
from creatorpack.service.packs import Packs, Refreshed
from creatorpack.service.ports import Actor, NewPublication, PackEventKind
from creatorpack.service.reader import publication_visibility, reader_view
from creatorpack.service.shapes import plain
from tests.conftest import example
from tests.service.conftest import pack_bytes, published_bytes

ALICE = Actor("alice", "tok1")


@pytest.fixture
def store() -> MemoryPackStore:
    return MemoryPackStore()


@pytest.fixture
def packs(store: MemoryPackStore) -> Packs:
    clock = FixedClock()
    return Packs(store, MemoryBlobStore(clock), clock, assets=MemoryAssetStore())


def test_publish_stores_the_reader_view_and_journals(packs: Packs, store: MemoryPackStore) -> None:
    packs.submit("alice", published_bytes(), token_id="tok1")
    done = packs.publish(ALICE, "moon.garden", 1)
    assert (done.revision, done.visibility, done.warnings) == (1, "public", ())
    document = packs.reader(None, "moon.garden")
    assert document.public
    assert orjson.loads(document.data)["title"] == "Supper at the Lighthouse"
    assert [(e.kind, e.revision, e.token_id) for e in packs.events("alice", "moon.garden")] == [
        (PackEventKind.UPLOAD, 1, "tok1"),
        (PackEventKind.PUBLISH, 1, "tok1"),
    ]
    record = store.pack("moon.garden")
    assert record is not None
    assert (record.published_revision, record.visibility) == (1, "public")


def test_lint_errors_refuse_and_change_nothing(packs: Packs, store: MemoryPackStore) -> None:
    packs.submit("alice", published_bytes(cover_asset_id="nope"))
    with pytest.raises(LintFailedError) as caught:
        packs.publish(ALICE, "moon.garden", 1)
    assert [(e["pointer"], e["code"]) for e in caught.value.errors] == [
        ("/publication/cover_asset_id", "unknown-reference")
    ]
    assert store.publication("moon.garden") is None
    with pytest.raises(NotFoundError):
        packs.reader("alice", "moon.garden")


def test_private_packs_are_read_by_their_owner_only(packs: Packs) -> None:
    packs.submit("alice", pack_bytes())
    assert packs.publish(ALICE, "moon.garden", 1).visibility == "private"
    assert not packs.reader("alice", "moon.garden").public
    for viewer in (None, "bob"):
        with pytest.raises(NotFoundError):
            packs.reader(viewer, "moon.garden")


def test_only_the_owner_publishes(packs: Packs) -> None:
    packs.submit("alice", published_bytes())
    with pytest.raises(NotFoundError):
        packs.publish(Actor("bob"), "moon.garden", 1)
    with pytest.raises(NotFoundError):
        packs.unpublish(Actor("bob"), "moon.garden")
    with pytest.raises(NotFoundError):
        packs.events("bob", "moon.garden")


@pytest.mark.parametrize(("value", "expected"), [("public", "public"), ("unlisted", "unlisted"), (None, "private")])
def test_visibility_defaults_to_private(value: str | None, expected: str) -> None:
    assert publication_visibility(json.loads(published_bytes(visibility=value))) == expected
    assert publication_visibility({}) == "private"


def _view(version: str) -> dict[str, Any]:
    pack = example(version, "rich")
    _, start = Engine(pack).start()
    shown: dict[str, Any] = plain(reader_view(pack, start.reader_view(), "2026-01-01T00:00:00+00:00"))
    return shown


def test_the_reader_view_of_the_rich_0_5_pack() -> None:
    view = _view("0.5")
    pack = example("0.5", "rich")
    assert set(view) == {
        "pack_id",
        "revision",
        "published",
        "title",
        "language",
        "publication",
        "entries",
        "achievements",
        "badges",
        "reader_cards",
    }
    assert (view["pack_id"], view["revision"], view["title"]) == ("harbour-light", 3, "The Harbour Light")
    assert [e["title"] for e in view["entries"]] == [e["title"] for e in pack["entries"]]
    hidden = {a["id"] for a in pack["progression"]["achievements"] if a.get("visibility") == "hidden"}
    assert hidden == {"salt_and_kindness"}
    assert [a["id"] for a in view["achievements"]] == ["first_light", "storm_watcher", "keepers_confidence"]
    assert [b["id"] for b in view["badges"]] == ["badge_lamplighter", "badge_storm"]  # not the ending's badge
    # brass_key is revealed only once it is held or trust is high: not at the start
    assert [c["id"] for c in view["reader_cards"]] == ["mara", "tobias", "wren", "lighthouse"]
    mara = view["reader_cards"][0]
    assert mara["avatar"] is None  # its reveal_when needs trust >= 1
    assert mara["image"] == {"asset_id": "mara_portrait", "crop": None}
    assert mara["relationships"] == [
        {"actor_id": "wren", "label": "Knows her as the ferry clerk who never misses a sailing"}
    ]
    assert view["reader_cards"][3]["image"] is None  # the lamp room is shown once the logbook page is held
    assert view["publication"]["cover"]["url"] == "/v1/packs/harbour-light/assets/cover_still"
    assert "visibility" not in view["publication"]
    assert "comments_enabled" not in view["publication"]


@pytest.mark.parametrize("version", ["0.3", "0.4"])
def test_older_rich_packs_have_a_reader_view(version: str) -> None:
    view = _view(version)
    assert view["title"] == example(version, "rich")["manifest"]["title"]
    assert view["reader_cards"]
    if version == "0.3":
        assert view["achievements"] == []
        assert view["badges"] == []


def test_refresh_rebuilds_only_stale_views_and_keeps_the_publication(packs: Packs, store: MemoryPackStore) -> None:
    packs.submit("alice", published_bytes(), token_id="tok1")
    packs.submit("alice", published_bytes("sun.garden"), token_id="tok1")
    packs.publish(ALICE, "moon.garden", 1)
    packs.publish(ALICE, "sun.garden", 1)
    fresh = store.publication("moon.garden")
    assert fresh is not None
    assert packs.refresh_publications() == Refreshed(2, (), ())  # built by these rules: nothing to do
    stale = json.loads(fresh.reader)
    stale["title"] = "A title an older release wrote"
    assert store.refresh_publication(
        NewPublication("moon.garden", 1, fresh.visibility, fresh.published, json.dumps(stale).encode())
    )
    assert not store.refresh_publication(NewPublication("moon.garden", 2, "public", fresh.published, b"{}"))
    events = len(packs.events("alice", "moon.garden"))
    assert packs.refresh_publications() == Refreshed(2, ("moon.garden",), ())
    assert store.publication("moon.garden") == fresh  # the view, covers, revision and time as published
    assert len(packs.events("alice", "moon.garden")) == events  # the owner published nothing
    packs.unpublish(ALICE, "sun.garden")
    assert packs.refresh_publications() == Refreshed(1, (), ())


def test_refresh_leaves_a_publication_made_meanwhile_and_names_what_it_cannot_rebuild(
    store: MemoryPackStore,
) -> None:
    clock = FixedClock()
    blobs = MemoryBlobStore(clock)
    packs = Packs(store, blobs, clock, assets=MemoryAssetStore())
    for pack_id in ("a.pack", "b.pack", "c.pack"):
        packs.submit("alice", published_bytes(pack_id), token_id="tok1")
        packs.publish(ALICE, pack_id, 1)
    first = store.publication("a.pack")
    assert first is not None
    stale = NewPublication("a.pack", 1, first.visibility, first.published, b"{}")
    clock.advance(5)
    packs.publish(ALICE, "a.pack", 1)  # the same revision published again, later
    assert not store.refresh_publication(stale)  # named by its time: the new publication stands
    assert store.publication("a.pack") != first
    revision = store.owned_revision("b.pack", 1)
    assert revision is not None
    blobs.delete(revision[1].sha256)
    done = packs.refresh_publications()
    assert done.checked == 3
    assert done.failed == (("b.pack", "the stored bytes of revision 1 are missing"),)
