"""The SQL session store on SQLite and PostgreSQL: round trips, and the compare-and-set under concurrency."""

from __future__ import annotations

import threading
from dataclasses import replace
from datetime import UTC, datetime

from creatorpack.play.views import RevealKind
from creatorpack.service.ports import NewRevision, SessionEvent, SessionRecord
from creatorpack.service.store import Database, SqlPackStore, SqlSessionStore

WHEN = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)


def _seed(database: Database) -> tuple[SessionRecord, SessionEvent]:
    SqlPackStore(database).add_revision("alice", NewRevision("harbour", 1, "a" * 64, 10, "0.5", WHEN))
    record = SessionRecord(
        "0123456789abcdef0123456789abcdef", "alice", "harbour", 1, 0, 0, {"turn": 0, "state": {"trust": 0}}, WHEN, WHEN
    )
    # The library's reader view keys its reveals by RevealKind (a str enum): stored as plain strings.
    result = {"narrator": {"turn": 0}, "reader": {"revealed": {RevealKind.ASSETS: ["face"]}}}
    start = SessionEvent(record.id, 0, "start", 0, 1, {"entry": None}, None, result, WHEN)
    store = SqlSessionStore(database)
    store.create(record, start)
    return record, start


def test_round_trip(database: Database) -> None:
    record, start = _seed(database)
    store = SqlSessionStore(database)
    assert store.session(record.id) == record
    assert store.session("f" * 32) is None
    stored = store.event(record.id, 0)
    assert stored is not None
    assert stored.result == {"narrator": {"turn": 0}, "reader": {"revealed": {"assets": ["face"]}}}
    assert replace(stored, result=start.result) == start
    moved = replace(record, turn=1, seq=1, saved={"turn": 1}, updated=WHEN.replace(hour=13))
    turn = SessionEvent(record.id, 1, "turn", 1, 1, {"turn": 1, "observations": {"a": True}}, "h" * 64, {"x": 1}, WHEN)
    assert store.append(moved, turn)
    migrated = replace(moved, revision=2, seq=2)
    migration = SessionEvent(record.id, 2, "migrate", 1, 2, {"revision": 2}, None, {"migration": {}}, WHEN)
    assert store.append(migrated, migration)
    assert store.session(record.id) == migrated
    assert store.turn_event(record.id, 1) == turn
    assert store.turn_event(record.id, 2) is None
    assert [e.kind for e in store.events(record.id)] == ["start", "turn", "migrate"]
    assert store.events("f" * 32) == []


def test_append_is_a_compare_and_set(database: Database) -> None:
    record, _ = _seed(database)
    store = SqlSessionStore(database)
    moved = replace(record, turn=1, seq=1)
    event = SessionEvent(record.id, 1, "turn", 1, 1, None, None, {}, WHEN)
    assert store.append(moved, event)
    assert not store.append(moved, event)  # the session is at seq 1 now: nothing stored
    stale = SessionEvent(record.id, 5, "turn", 5, 1, None, None, {}, WHEN)
    assert not store.append(replace(record, seq=5), stale)
    assert not store.append(replace(record, seq=3), SessionEvent(record.id, 2, "turn", 2, 1, None, None, {}, WHEN))
    assert len(store.events(record.id)) == 2


def test_sixteen_concurrent_appends_exactly_one_lands(database: Database) -> None:
    record, _ = _seed(database)
    store = SqlSessionStore(database)
    barrier = threading.Barrier(16)
    landed: list[int] = []

    def append(index: int) -> None:
        moved = replace(record, turn=1, seq=1, saved={"by": index})
        event = SessionEvent(record.id, 1, "turn", 1, 1, {"by": index}, None, {"by": index}, WHEN)
        barrier.wait()
        if store.append(moved, event):
            landed.append(index)

    threads = [threading.Thread(target=append, args=(i,)) for i in range(16)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(landed) == 1
    stored = store.session(record.id)
    assert stored is not None
    assert stored.saved == {"by": landed[0]}
    assert [e.request for e in store.events(record.id)] == [{"entry": None}, {"by": landed[0]}]
