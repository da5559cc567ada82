"""Hypothesis, extending ``tests/test_diff_properties.py`` to the service and the CLI: random valid edits of a
rich pack, sessions played through the service's domain to every turn, then migrated.

The edits and the turns are that file's strategies. For every save, ``POST /v1/sessions/{id}/migrate``'s
domain must agree with the diff's verdict for that save (``as_is`` and ``by_plan``: moved, to exactly the
plan's save, and it plays on; ``cannot``: refused naming the same misfits, the session unchanged), and
``creatorpack play --load`` (which has no old pack, only the save's record of its state schema's members)
moves every save to exactly the service's migrated save, and refuses exactly the saves the verdict says
cannot move.
"""

from __future__ import annotations

import copy
import json
from datetime import UTC, datetime

import pytest
from hypothesis import event, given, settings
from hypothesis import strategies as st

from creatorpack.cli._play import load
from creatorpack.contract import validate
from creatorpack.diff import migration_plan
from creatorpack.errors import SessionLoadError
from creatorpack.play import Engine, Session, Turn, parse_script
from creatorpack.play.state import check_state
from creatorpack.service.engines import Engines
from creatorpack.service.errors import MigrationConflictError
from creatorpack.service.memory import FixedClock, MemoryBlobStore, MemoryPackStore, MemorySessionStore
from creatorpack.service.packs import Packs
from creatorpack.service.ports import TokenRecord
from creatorpack.service.sessions import NarratorSession, NarratorTurn, Sessions
from tests.conftest import EXAMPLES, example
from tests.test_diff_properties import EDITS, Edit, _answers

OWNER = TokenRecord("t", "alice", "creator", datetime(2026, 1, 1, tzinfo=UTC))


@settings(max_examples=40, deadline=None)
@given(st.sampled_from(["0.3", "0.4", "0.5"]), EDITS, st.data())
def test_service_migration_and_play_load_agree_with_the_verdict(
    version: str, edits: list[Edit], data: st.DataObject
) -> None:
    old = example(version, "rich")
    new = copy.deepcopy(old)
    new["manifest"]["revision"] += 1
    for edit in edits:
        edit(new)
    assert validate(new).valid
    clock = FixedClock()
    blobs, packs = MemoryBlobStore(clock), MemoryPackStore()
    Packs(packs, blobs, clock).submit("alice", json.dumps(old).encode())
    Packs(packs, blobs, clock).submit("alice", json.dumps(new).encode())
    store = MemorySessionStore()
    sessions = Sessions(store, packs, blobs, Engines(blobs), clock)
    pack_id, target = old["manifest"]["pack_id"], new["manifest"]["revision"]

    entry = data.draw(st.sampled_from([e["id"] for e in old["runtime"]["entries"]]))
    extra = data.draw(st.lists(_answers(old), max_size=4))
    turns = [*parse_script(EXAMPLES / version / "playthrough.jsonl"), *(Turn(a) for a in extra)]
    reference = Session.start(Engine(old), entry)
    schema = reference.engine.schema
    saves = [reference.state.to_json(schema)]  # a save as the service keeps it, its state schema's members too
    for turn in turns:
        if reference.over:
            break
        reference.turn(turn.observations)
        saves.append(reference.state.to_json(schema))

    plan = migration_plan(old, new)
    engine = Engine(new)
    for played, saved in enumerate(saves):
        sid = sessions.start(OWNER, pack_id, entry=entry, revision=old["manifest"]["revision"]).session_id
        for number, turn in enumerate(turns[:played], start=1):
            sessions.turn(OWNER, sid, number, Turn(turn.observations))
        before = sessions.read(OWNER, sid)
        assert isinstance(before, NarratorSession)
        assert before.save == saved  # the service plays as the library does
        verdict = plan.check(saved)
        event(f"save {verdict.level}")
        if verdict.level == "cannot":
            with pytest.raises(MigrationConflictError) as caught:
                sessions.migrate(OWNER, sid, target)
            assert caught.value.details["misfits"] == [m.to_json() for m in verdict.misfits]
            assert sessions.read(OWNER, sid) == before
            with pytest.raises(SessionLoadError):
                load(engine, saved)
            continue
        moved = sessions.migrate(OWNER, sid, target)
        assert isinstance(moved, NarratorSession)
        expected, report = plan.apply(saved)
        assert moved.save == expected
        assert moved.revision == target
        assert store.events(sid)[-1].result["migration"] == report.to_json()
        if moved.save["ending"] is None:
            played_on = sessions.turn(OWNER, sid, moved.turn + 1, Turn({}))
            assert isinstance(played_on, NarratorTurn)
            assert list(check_state(engine.schema, played_on.turn["state"])) == []
        loaded = load(engine, saved)  # creatorpack play --load, without the old pack
        assert loaded.session.state.state == moved.save["state"]  # the very state the service migrated to
        assert loaded.session.state.to_json(engine.schema) == moved.save
        assert loaded.migration == (report.to_json() if report.from_revision != report.to_revision else None)
        assert loaded.start.turn == saved["turn"]
