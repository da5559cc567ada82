"""The session domain against the in-memory fakes of every port: no database, no HTTP."""

from __future__ import annotations

import hashlib
import json
import logging
import threading
from collections.abc import Callable
from dataclasses import replace
from datetime import UTC, datetime
from typing import Any

import pytest

import creatorpack
from creatorpack.play import Engine, Session, Turn
from creatorpack.play.views import READER_KINDS
from creatorpack.service.assets import Assets
from creatorpack.service.engines import Engines
from creatorpack.service.errors import (
    ConflictError,
    InvalidTurnError,
    MigrationConflictError,
    NotFoundError,
    SessionEndedError,
    TurnConflictError,
    UnplayableError,
)
from creatorpack.service.memory import (
    FixedClock,
    MemoryAssetStore,
    MemoryBlobStore,
    MemoryPackStore,
    MemorySessionStore,
)
from creatorpack.service.packs import Packs
from creatorpack.service.ports import Actor, RevisionRecord, Scope, SessionEvent, SessionRecord, TokenRecord
from creatorpack.service.sessions import (
    Asset,
    NarratorSession,
    NarratorTurn,
    ReaderSession,
    ReaderTranscript,
    ReaderTurn,
    Sessions,
    audience,
)
from creatorpack.service.shapes import plain
from tests.conftest import example
from tests.service.sessions_support import ASSETS, harbour, harbour_bytes, narrowed
from tests.test_views import READER_FIELDS  # the one allow-list of the reader view


def token(account: str, scope: Scope) -> TokenRecord:
    return TokenRecord(f"{account}-{scope}", account, scope, datetime(2026, 1, 1, tzinfo=UTC))


ALICE = token("alice", "creator")
ALICE_READER = token("alice", "reader")
BOB_HOST = token("bob", "host")
BOB_CREATOR = token("bob", "creator")
RITA = token("rita", "reader")
ADMIN = token("root", "admin")


class World:
    """The domain over memory fakes, with alice's harbour pack at revision 1 (and more on demand)."""

    def __init__(self) -> None:
        self.clock = FixedClock()
        self.blobs = MemoryBlobStore(self.clock)
        self.packs = MemoryPackStore()
        self.store = MemorySessionStore()
        self.engines = Engines(self.blobs)
        self.sessions = Sessions(self.store, self.packs, self.blobs, self.engines, self.clock)
        self.domain = Packs(self.packs, self.blobs, self.clock)
        self.domain.submit("alice", harbour_bytes(1))

    def submit(self, pack: dict[str, Any]) -> None:
        self.domain.submit("alice", json.dumps(pack).encode())

    def publish(self, revision: int | None) -> None:
        """Publish a revision of the harbour pack (its visibility its own), or withdraw it (None)."""
        if revision is None:
            self.domain.unpublish(Actor("alice"), "harbour")
        else:
            self.domain.publish(Actor("alice"), "harbour", revision)


@pytest.fixture
def world() -> World:
    return World()


def engine() -> Engine:
    return Engine.from_source(harbour())


def test_the_owner_starts_and_plays_with_the_full_turn(world: World) -> None:
    started = world.sessions.start(ALICE, "harbour")
    assert isinstance(started, NarratorSession)
    expected = Session.start(engine())
    assert expected.last is not None
    assert started.current == expected.last.to_json()
    assert started.save == expected.state.to_json(expected.engine.schema)
    assert (started.revision, started.turn, started.entry) == (1, 0, "opening")
    played = world.sessions.turn(ALICE, started.session_id, 1, Turn({"helped": True}))
    assert isinstance(played, NarratorTurn)
    assert played.to_json() == expected.turn({"helped": True}).to_json()
    again = world.sessions.read(ALICE, started.session_id)
    assert isinstance(again, NarratorSession)
    assert again.turn == 1
    assert again.save == expected.state.to_json(expected.engine.schema)


def test_a_reader_token_gets_the_reader_view_only(world: World) -> None:
    world.publish(1)
    started = world.sessions.start(RITA, "harbour")
    assert isinstance(started, ReaderSession)
    assert set(started.current) == READER_FIELDS
    assert set(started.to_json()) == {"session_id", "pack_id", "revision", "entry", "turn", "over", "view", "current"}
    played = world.sessions.turn(RITA, started.session_id, 1, Turn({"helped": True}))
    assert isinstance(played, ReaderTurn)
    reference = Session.start(engine())
    assert played.to_json() == reference.turn({"helped": True}).reader_view().to_json()
    assert set(played.to_json()["revealed"]) == {str(k) for k in READER_KINDS}  # no castings, deeds, knowledge
    transcript = world.sessions.transcript(RITA, started.session_id)
    assert isinstance(transcript, ReaderTranscript)
    entry_fields = {"seq", "kind", "turn", "revision", "at", "view", "narration"}
    assert [set(plain(e)) for e in transcript.entries] == [entry_fields] * 2


def test_who_sees_what() -> None:
    assert audience(RITA, "alice") == "reader"
    assert audience(ALICE_READER, "alice") == "reader"  # a reader token is a reader, even the owner's
    assert audience(ALICE, "alice") == "narrator"
    assert audience(BOB_CREATOR, "alice") == "reader"  # a creator of other packs is not the narrator
    assert audience(BOB_HOST, "alice") == "narrator"
    assert audience(ADMIN, "alice") == "narrator"


def test_others_start_only_on_the_published_revision_of_a_visible_pack(world: World) -> None:
    world.submit(harbour(2, "private"))
    world.submit(harbour(3, "unlisted"))
    for who in (RITA, BOB_HOST, ADMIN, BOB_CREATOR):
        with pytest.raises(NotFoundError, match="no pack 'harbour' for this account"):
            world.sessions.start(who, "harbour")  # not published
    world.publish(2)
    with pytest.raises(NotFoundError):
        world.sessions.start(BOB_HOST, "harbour")  # private
    world.publish(3)
    assert world.sessions.start(BOB_HOST, "harbour").revision == 3  # unlisted: by id
    assert world.sessions.start(RITA, "harbour", revision=3).revision == 3
    with pytest.raises(NotFoundError, match="no published revision 2"):
        world.sessions.start(RITA, "harbour", revision=2)
    with pytest.raises(NotFoundError, match="no pack 'harbour'"):
        world.sessions.start(BOB_CREATOR, "harbour")
    # The owner playtests any live revision; by default the published one.
    assert world.sessions.start(ALICE, "harbour").revision == 3
    assert world.sessions.start(ALICE, "harbour", revision=2).revision == 2
    with pytest.raises(NotFoundError, match="no revision 4"):
        world.sessions.start(ALICE, "harbour", revision=4)
    with pytest.raises(NotFoundError, match="no pack 'nowhere'"):
        world.sessions.start(ALICE, "nowhere")
    world.publish(None)
    with pytest.raises(NotFoundError):
        world.sessions.start(RITA, "harbour")  # withdrawn


def test_the_owners_default_is_the_latest_live_revision_when_none_is_published(world: World) -> None:
    world.submit(harbour(2))
    assert world.sessions.start(ALICE, "harbour").revision == 2
    world.domain.delete("alice", "harbour", 2)
    assert world.sessions.start(ALICE, "harbour").revision == 1


def test_entries_and_unplayable_starts(world: World) -> None:
    world.publish(1)
    assert world.sessions.start(ALICE, "harbour", entry="late").entry == "late"
    with pytest.raises(UnplayableError) as caught:
        world.sessions.start(ALICE, "harbour", entry="nowhere")
    assert caught.value.message == "no runtime entry 'nowhere'; the entries are opening, late"
    assert caught.value.details == {"problems": []}
    with pytest.raises(UnplayableError) as caught:
        world.sessions.start(RITA, "harbour", entry="nowhere")
    assert caught.value.message == "no entry 'nowhere'"  # no pack entry has an id to tell; the runtime's are not
    assert caught.value.details == {"problems": []}
    bad = harbour(2)
    bad["runtime"]["entries"][0]["initial_state"]["trust"] = 99
    world.submit(bad)
    with pytest.raises(UnplayableError) as caught:
        world.sessions.start(ALICE, "harbour", revision=2)
    assert caught.value.details["problems"] == [{"pointer": "/trust", "message": "99 is outside 0..10"}]
    named = harbour(3)
    named["runtime"]["entries"][0]["initial_state"]["trust"] = 99
    named["entries"][0]["id"] = "the_quay"  # the first runtime entry's pack entry, by position
    world.submit(named)
    with pytest.raises(UnplayableError) as caught:  # started by the name readers see: the same problems
        world.sessions.start(ALICE, "harbour", revision=3, entry="the_quay")
    assert caught.value.details["problems"] == [{"pointer": "/trust", "message": "99 is outside 0..10"}]
    listed = harbour(4)
    listed["entries"][0]["id"] = "the_quay"  # the reader view lists this name, not the runtime entry's
    world.submit(listed)
    world.publish(4)
    with pytest.raises(UnplayableError) as caught:
        world.sessions.start(RITA, "harbour", entry="the_qay")
    assert caught.value.message == "no entry 'the_qay' (did you mean 'the_quay'?); the entries are the_quay"
    with pytest.raises(UnplayableError) as caught:
        world.sessions.start(ALICE, "harbour", revision=4, entry="the_qay")
    assert caught.value.message.startswith("no runtime entry 'the_qay'")  # the owner is told the runtime's


def test_turn_numbers_retries_and_the_ending(world: World) -> None:
    sid = world.sessions.start(ALICE, "harbour", entry="late").session_id
    with pytest.raises(TurnConflictError) as caught:
        world.sessions.turn(ALICE, sid, 2, Turn({}))
    assert caught.value.details == {"current_turn": 0}
    first = world.sessions.turn(ALICE, sid, 1, Turn({"way": "south"}))
    events = len(world.store.events(sid))
    again = world.sessions.turn(ALICE, sid, 1, Turn({"way": "south"}))
    assert again == first
    assert len(world.store.events(sid)) == events  # nothing applied
    with pytest.raises(TurnConflictError, match="already played with another body") as caught:
        world.sessions.turn(ALICE, sid, 1, Turn({"way": "north"}))
    assert caught.value.details == {"current_turn": 1}
    ended = world.sessions.turn(ALICE, sid, 2, Turn({"helped": True}))
    assert ended.to_json()["ending"] == "good"
    with pytest.raises(SessionEndedError, match="reached the ending 'good' at turn 2") as over:
        world.sessions.turn(ALICE, sid, 3, Turn({"helped": True}))
    assert over.value.details == {"current_turn": 2}
    assert world.sessions.turn(ALICE, sid, 2, Turn({"helped": True})) == ended  # the last turn still retries


@pytest.mark.parametrize(("number", "observations"), [(7, {}), (3, {}), (2, {"way": "north"}), (1, {"way": "south"})])
def test_an_ended_session_takes_no_turn_but_the_retry(world: World, number: int, observations: dict[str, Any]) -> None:
    sid = world.sessions.start(ALICE, "harbour", entry="late").session_id
    world.sessions.turn(ALICE, sid, 1, Turn({"way": "south"}))
    ended = world.sessions.turn(ALICE, sid, 2, Turn({"helped": True}))
    with pytest.raises(SessionEndedError, match="reached the ending 'good' at turn 2; it takes no more turns") as over:
        world.sessions.turn(ALICE, sid, number, Turn(observations))
    assert over.value.details == {"current_turn": 2}
    assert world.sessions.turn(ALICE, sid, 2, Turn({"helped": True})) == ended


def test_a_retry_is_the_same_body_in_any_key_order(world: World) -> None:
    sid = world.sessions.start(ALICE, "harbour").session_id
    first = world.sessions.turn(ALICE, sid, 1, Turn({"helped": True, "way": "south"}, ("r1",)))
    assert world.sessions.turn(ALICE, sid, 1, Turn({"way": "south", "helped": True}, ("r1",))) == first
    with pytest.raises(TurnConflictError):
        world.sessions.turn(ALICE, sid, 1, Turn({"helped": True, "way": "south"}, ()))


@pytest.mark.parametrize(
    ("observations", "matches", "message"),
    [
        ({"nope": True}, (), "unknown observation 'nope'; this pack's observations: helped, way"),
        ({"helped": "yes"}, (), "observation 'helped' is a yes/no question: answer true or false, not 'yes'"),
        ({"way": "west"}, (), "observation 'way' takes one of the choices ['north', 'south'], not 'west'"),
        ({}, ("r9",), "unknown illustration rule(s) ['r9']; this pack's rules: ['r1', 'r2', 'r3', 'r4', 'r5']"),
    ],
)
def test_bad_observations_are_refused_with_plays_message_and_change_nothing(
    world: World, observations: dict[str, Any], matches: tuple[str, ...], message: str
) -> None:
    world.publish(1)
    sid = world.sessions.start(ALICE, "harbour").session_id
    before = world.store.session(sid)
    with pytest.raises(InvalidTurnError) as caught:
        world.sessions.turn(ALICE, sid, 1, Turn(observations, matches))
    assert caught.value.message == message
    assert world.store.session(sid) == before
    assert len(world.store.events(sid)) == 1
    reader = world.sessions.start(RITA, "harbour").session_id
    with pytest.raises(InvalidTurnError) as caught:
        world.sessions.turn(RITA, reader, 1, Turn(observations, matches))
    assert caught.value.message == "the turn's observations or illustration matches do not fit this pack"


def test_other_accounts_do_not_find_a_session(world: World) -> None:
    world.publish(1)
    sid = world.sessions.start(RITA, "harbour").session_id
    calls: list[Callable[[TokenRecord], object]] = [
        lambda who: world.sessions.read(who, sid),
        lambda who: world.sessions.transcript(who, sid),
        lambda who: world.sessions.turn(who, sid, 1, Turn({})),
        lambda who: world.sessions.migrate(who, sid, 1),
        lambda who: world.sessions.asset(who, sid, "face"),
    ]
    for call in calls:
        for who in (ALICE, BOB_HOST, ADMIN):
            with pytest.raises(NotFoundError, match=f"no session '{sid}' for this account"):
                call(who)
    with pytest.raises(NotFoundError, match="no session 'nope'"):
        world.sessions.read(RITA, "nope")


def test_the_same_account_with_another_token_sees_by_that_tokens_scope(world: World) -> None:
    sid = world.sessions.start(ALICE, "harbour").session_id
    assert isinstance(world.sessions.read(ALICE, sid), NarratorSession)
    assert isinstance(world.sessions.read(ALICE_READER, sid), ReaderSession)


def test_engines_are_compiled_once_per_revision_and_shared(world: World) -> None:
    world.publish(1)
    ids = [world.sessions.start(who, "harbour").session_id for who in (ALICE, RITA, BOB_HOST)]
    for who, sid in zip((ALICE, RITA, BOB_HOST), ids, strict=True):
        world.sessions.turn(who, sid, 1, Turn({"helped": True}))
        world.sessions.read(who, sid)
    assert world.engines.compiled == 1
    fresh = Sessions(world.store, world.packs, world.blobs, world.engines, world.clock)  # another request handler
    fresh.turn(ALICE, ids[0], 2, Turn({}))  # the state is rebuilt from the save, the engine is shared
    assert world.engines.compiled == 1


def test_concurrent_first_uses_compile_once() -> None:
    world = World()
    record = world.packs.revision("harbour", 1)
    assert record is not None
    barrier = threading.Barrier(8)
    found: list[Engine] = []

    def use() -> None:
        barrier.wait()
        found.append(world.engines.engine(record))

    threads = [threading.Thread(target=use) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert world.engines.compiled == 1
    assert len({id(e) for e in found}) == 1


def test_the_engine_cache_is_bounded() -> None:
    world = World()
    world.engines = Engines(world.blobs, max_engines=2)
    for revision in (2, 3):
        world.submit(harbour(revision))
    records = [world.packs.revision("harbour", n) for n in (1, 2, 3)]
    for record in records:
        assert record is not None
        world.engines.engine(record)
    first = records[0]
    assert first is not None
    world.engines.engine(first)  # evicted by the third: compiled again
    assert world.engines.compiled == 4


def test_concurrent_turns_on_one_session_exactly_one_wins(world: World) -> None:
    sid = world.sessions.start(ALICE, "harbour").session_id
    barrier = threading.Barrier(8)
    outcomes: list[str] = []

    def play(index: int) -> None:
        barrier.wait()
        try:
            world.sessions.turn(ALICE, sid, 1, Turn({"helped": index % 2 == 0, "way": "south"}))
            outcomes.append("played")
        except TurnConflictError:
            outcomes.append("conflict")

    threads = [threading.Thread(target=play, args=(i,)) for i in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    events = world.store.events(sid)
    assert [e.kind for e in events] == ["start", "turn"]
    winner = events[1].request
    assert winner is not None
    same = sum(1 for i in range(8) if (i % 2 == 0) == winner["observations"]["helped"])
    assert outcomes.count("played") == same  # the winner and its identical retries
    assert outcomes.count("conflict") == 8 - same


def test_a_session_on_a_deleted_revision_must_migrate(world: World) -> None:
    world.submit(harbour(2))
    sid = world.sessions.start(ALICE, "harbour", revision=1).session_id
    world.domain.delete("alice", "harbour", 1)
    with pytest.raises(ConflictError, match="revision 1 of 'harbour' was deleted") as caught:
        world.sessions.turn(ALICE, sid, 1, Turn({}))
    assert caught.value.reason == "deleted"
    assert caught.value.details == {"latest_revision": 2}
    moved = world.sessions.migrate(ALICE, sid, 2)
    assert moved.revision == 2
    assert world.sessions.turn(ALICE, sid, 1, Turn({})).to_json()["turn"] == 1


def test_a_reader_on_a_deleted_revision_learns_only_the_published_revision(world: World) -> None:
    world.publish(1)
    sid = world.sessions.start(RITA, "harbour").session_id
    world.submit(harbour(2))
    world.submit(harbour(3))
    world.publish(2)
    world.domain.delete("alice", "harbour", 1)
    with pytest.raises(ConflictError, match="was deleted") as caught:
        world.sessions.turn(RITA, sid, 1, Turn({}))
    assert (caught.value.reason, caught.value.details) == ("deleted", {"latest_revision": 2})  # not 3


# -- migration -----------------------------------------------------------------------------------------


def test_migrate_by_plan_and_the_transcript_records_it(world: World) -> None:
    new = harbour(2)
    schema = new["runtime"]["state"]["schema"]
    schema["properties"]["courage"] = {"type": "integer", "minimum": 0, "maximum": 5}
    schema["required"].append("courage")
    for entry, value in zip(new["runtime"]["entries"], (1, 3), strict=True):
        entry["initial_state"]["courage"] = value
    del schema["properties"]["lit"]
    schema["required"].remove("lit")
    for entry in new["runtime"]["entries"]:
        del entry["initial_state"]["lit"]
    world.submit(new)
    sid = world.sessions.start(ALICE, "harbour", revision=1).session_id
    world.sessions.turn(ALICE, sid, 1, Turn({"helped": True}))
    moved = world.sessions.migrate(ALICE, sid, 2)
    assert isinstance(moved, NarratorSession)
    assert (moved.revision, moved.turn) == (2, 1)
    assert moved.save["state"] == {"trust": 2, "items": ["map"], "harbour": {"storm": 0}, "courage": 1}
    assert moved.current["turn"] == 1
    assert moved.current["active_rules"] == []
    entry = plain(world.sessions.transcript(ALICE, sid).entries[-1])
    assert (entry["kind"], entry["turn"], entry["revision"], entry["request"]) == ("migrate", 1, 2, {"revision": 2})
    assert entry["migration"]["from_revision"] == 1
    assert entry["migration"]["to_revision"] == 2
    assert entry["migration"]["level"] == "by_plan"
    assert [(s["action"], s["pointer"]) for s in entry["migration"]["steps"]] == [
        ("drop", "/state/lit"),
        ("add", "/state/courage"),
    ]
    played = world.sessions.turn(ALICE, sid, 2, Turn({"helped": True}))
    assert plain(played.to_json())["state"]["trust"] == 4
    assert world.sessions.migrate(ALICE, sid, 2) == world.sessions.read(ALICE, sid)  # already there: nothing
    assert len(world.sessions.transcript(ALICE, sid).entries) == 4


def test_migrate_refuses_naming_each_value_that_no_longer_fits(world: World) -> None:
    world.submit(narrowed(2, 3))
    sid = world.sessions.start(ALICE, "harbour", entry="late", revision=1).session_id
    before = world.store.session(sid)
    with pytest.raises(MigrationConflictError) as caught:
        world.sessions.migrate(ALICE, sid, 2)
    assert caught.value.details["misfits"] == [{"pointer": "/state/trust", "message": "5 is outside 0..3"}]
    assert caught.value.details["revision"] == 1
    assert "/state/trust: 5 is outside 0..3" in caught.value.message
    assert world.store.session(sid) == before


@pytest.mark.parametrize(
    ("storm_maximum", "count"), [(3, "1 saved value no longer fits"), (0, "2 saved values no longer fit")]
)
def test_a_readers_refused_migration_counts_the_values_in_agreement(
    world: World, storm_maximum: int, count: str
) -> None:
    pack = narrowed(2, 3)
    pack["runtime"]["state"]["schema"]["properties"]["harbour"]["properties"]["storm"]["maximum"] = storm_maximum
    world.submit(pack)
    sid = world.sessions.start(ALICE_READER, "harbour", entry="late", revision=1).session_id
    with pytest.raises(MigrationConflictError) as caught:
        world.sessions.migrate(ALICE_READER, sid, 2)
    assert caught.value.message == f"the session cannot move to revision 2: {count}"
    assert "misfits" not in caught.value.details


def test_readers_migrate_to_the_published_revision_only_and_misfits_stay_hidden(world: World) -> None:
    world.publish(1)
    world.submit(narrowed(2, 3, publishable=True))
    world.submit(harbour(3))
    sid = world.sessions.start(RITA, "harbour", entry="late").session_id
    with pytest.raises(NotFoundError, match="no published revision 3"):
        world.sessions.migrate(RITA, sid, 3)
    world.publish(2)
    with pytest.raises(MigrationConflictError) as caught:
        world.sessions.migrate(RITA, sid, 2)
    assert caught.value.message == "the session cannot move to revision 2: 1 saved value no longer fits"
    assert "misfits" not in caught.value.details
    world.publish(3)
    moved = world.sessions.migrate(RITA, sid, 3)
    assert isinstance(moved, ReaderSession)
    assert moved.revision == 3
    assert set(moved.current) == READER_FIELDS


# -- assets --------------------------------------------------------------------------------------------


def test_assets_only_in_reach_and_reward_only_after_the_reward(world: World) -> None:
    world.publish(1)
    sid = world.sessions.start(RITA, "harbour").session_id
    face = world.sessions.asset(RITA, sid, "face")
    assert face == Asset("face", hashlib.sha256(ASSETS["face"]).hexdigest())  # the file: the one uploaded under it
    for hidden in ("art", "view", "nope"):  # reward_only before its reward, not yet revealed, no such asset
        with pytest.raises(NotFoundError, match=f"no asset '{hidden}' in this session's reach"):
            world.sessions.asset(RITA, sid, hidden)
    world.sessions.turn(RITA, sid, 1, Turn({"helped": True}))
    with pytest.raises(NotFoundError):
        world.sessions.asset(RITA, sid, "art")
    world.sessions.turn(RITA, sid, 2, Turn({"helped": True}))  # friend unlocks: its artwork is art
    assert world.sessions.asset(RITA, sid, "art").sha256 == hashlib.sha256(ASSETS["art"]).hexdigest()


def test_a_session_asset_is_its_uploaded_file(world: World) -> None:
    assets = Assets(MemoryAssetStore(), world.packs, world.blobs, world.clock)
    sid = world.sessions.start(ALICE, "harbour").session_id
    reached = world.sessions.asset(ALICE, sid, "face")
    with pytest.raises(NotFoundError, match="the file of asset 'face' has not been uploaded yet"):
        assets.session_file(reached.asset_id, reached.sha256)
    assets.upload(reached.sha256, ASSETS["face"])
    found = assets.session_file(reached.asset_id, reached.sha256)
    assert (found.asset.mime_type, found.asset.size, found.public, found.ranged) == (
        "image/png",
        len(ASSETS["face"]),
        False,
        False,
    )
    assert b"".join(assets.stream(found.asset)) == ASSETS["face"]
    assert b"".join(assets.stream(found.asset, 3, 7)) == ASSETS["face"][3:7]


# -- diff ------------------------------------------------------------------------------------------------


def test_diff_of_two_revisions_is_the_owners(world: World) -> None:
    world.submit(narrowed(2, 3))
    found = world.sessions.diff("alice", "harbour", 1, 2)
    assert found["old_revision"] == 1
    assert found["new_revision"] == 2
    assert {"section": "state", "kind": "rebounded", "key": "/trust"}.items() <= found["changes"][0].items()
    assert found["compatibility"]["level"] == "may_not_fit"
    with pytest.raises(NotFoundError, match="no pack 'harbour'"):
        world.sessions.diff("bob", "harbour", 1, 2)
    with pytest.raises(NotFoundError, match="no revision 9"):
        world.sessions.diff("alice", "harbour", 1, 9)


# -- the memory store ------------------------------------------------------------------------------


def test_memory_store_append_is_a_compare_and_set() -> None:
    store = MemorySessionStore()
    when = datetime(2026, 1, 1, tzinfo=UTC)
    record = SessionRecord("s1", "alice", "harbour", 1, 0, 0, {"turn": 0}, when, when)
    start = SessionEvent("s1", 0, "start", 0, 1, None, None, {"n": 0}, when)
    store.create(record, start)
    with pytest.raises(KeyError):
        store.create(record, start)
    moved = replace(record, turn=1, seq=1)
    event = SessionEvent("s1", 1, "turn", 1, 1, {"turn": 1}, "h", {"n": 1}, when)
    assert store.append(moved, event)
    assert not store.append(moved, event)  # the session is at seq 1 now
    assert store.session("s1") == moved
    assert store.turn_event("s1", 1) == event
    assert store.event("s1", 0) == start
    assert store.event("s1", 5) is None
    assert store.events("s1") == [start, event]


def test_the_revision_row_is_trusted_for_revision_seconds(world: World) -> None:
    trusting = Sessions(world.store, world.packs, world.blobs, world.engines, world.clock, revision_seconds=60)
    world.submit(harbour(2))
    sid = trusting.start(ALICE, "harbour", revision=1).session_id
    trusting.turn(ALICE, sid, 1, Turn({}))  # reads and keeps revision 1's row
    world.domain.delete("alice", "harbour", 1)
    assert trusting.turn(ALICE, sid, 2, Turn({})).to_json()["turn"] == 2  # the deletion is not seen yet
    with pytest.raises(ConflictError, match="was deleted"):
        world.sessions.turn(ALICE, sid, 3, Turn({}))  # revision_seconds=0: every turn reads the row


def test_a_revision_stored_valid_plays_under_a_stricter_reading_since(caplog: pytest.LogCaptureFixture) -> None:
    """A visual anchor's reveal_when that is no condition was valid when stored; it is refused now, played still."""
    pack = example("0.5", "rich")
    pack["visual_anchors"] = [{"id": "anchor_a", "reveal_when": "when the lamp is lit"}]
    data = json.dumps(pack).encode()
    assert not creatorpack.validate(data).valid  # an upload of it now is refused
    blobs = MemoryBlobStore()
    sha = blobs.put(data)
    stored = RevisionRecord("harbour-light", 3, sha, len(data), "0.5", datetime(2026, 11, 1, tzinfo=UTC))
    with caplog.at_level(logging.WARNING, logger="creatorpack.service"):
        _, start = Engines(blobs).engine(stored).start()
    assert "mara" in start.revealed["reader_cards"]
    assert any("no longer validates" in r.getMessage() for r in caplog.records)


def test_a_stored_revision_broken_elsewhere_is_refused_not_played() -> None:
    """Bytes that no release would have stored (no entries) are an invalid pack (422), never a crash (500)."""
    pack = example("0.5", "rich")
    pack["runtime"]["entries"] = []
    pack["visual_anchors"] = [{"id": "anchor_a", "reveal_when": "when the lamp is lit"}]
    data = json.dumps(pack).encode()
    blobs = MemoryBlobStore()
    stored = RevisionRecord("harbour-light", 3, blobs.put(data), len(data), "0.5", datetime(2026, 11, 1, tzinfo=UTC))
    with pytest.raises(creatorpack.InvalidPackError):
        Engines(blobs).engine(stored)


def test_a_read_of_openness_that_overlaps_a_withdrawal_here_keeps_nothing(
    world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A turn that read the pack as published while an unpublish committed here does not remember it as open."""
    sessions = Sessions(world.store, world.packs, world.blobs, world.engines, world.clock, revision_seconds=60)
    world.publish(1)
    started = sessions.start(RITA, "harbour")
    read = world.packs.pack

    def read_then_withdraw(pack_id: str) -> Any:
        found = read(pack_id)  # published, as this turn reads it
        monkeypatch.setattr(world.packs, "pack", read)
        world.publish(None)
        sessions.forget(pack_id)  # what the unpublish route does once it has committed
        return found

    monkeypatch.setattr(world.packs, "pack", read_then_withdraw)
    sessions.turn(RITA, started.session_id, 1, Turn({"helped": True}))  # read before the withdrawal: it plays
    with pytest.raises(NotFoundError, match="no longer published"):
        sessions.turn(RITA, started.session_id, 2, Turn({"helped": True}))
