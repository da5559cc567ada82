"""Witnesses by bounded model checking (``lint/reach/_bmc.py``): z3 proposes short plays, the runtime decides.

A counter `/n` that a turn answering `o1` yes raises by 1 from 0: `/n` is k after k such turns,
so each achievement `n<k>` takes exactly k turns and the guidance rule `at2` is active first on
turn 3; the guidance rule `once` is never active (the turn that makes its `when` hold completes
it). With a completion `/n >= 1` on the raising rule it raises `/n` once only, which the encoding
does not know (whether a rule with effects was completed is a free Boolean there): z3 proposes
plays the runtime does not play, and the replay must throw them away.
"""

from __future__ import annotations

import json
import time
from typing import Any

from creatorpack.contract.conditions import Goal
from creatorpack.lint.reach import _bmc
from creatorpack.lint.reach import _decide as _reach
from creatorpack.lint.reach._abstract import analyse
from creatorpack.play.engine import Engine, Turn
from creatorpack.scaffold import files

Doc = dict[str, Any]


def stairs(*, completion: bool = False) -> Doc:
    """The pack of the module docstring (``completion``: the raising rule completes once `/n` is 1)."""
    doc: Doc = json.loads(files("0.5")["pack.json"])
    doc["runtime"]["state"]["schema"] = {
        "type": "object",
        "properties": {"n": {"type": "integer", "minimum": 0, "maximum": 10}},
        "required": ["n"],
        "additionalProperties": False,
    }
    doc["runtime"]["entries"] = [{"id": "e0", "initial_state": {"n": 0}}]
    doc["entries"] = [{"id": "e0", "title": "T"}]
    doc["runtime"]["observations"] = [{"type": "boolean", "id": "o1", "question": "q?"}]
    up: Doc = {
        "kind": "effect",
        "id": "up",
        "when": {"op": "observed", "id": "o1", "value": True},
        "effects": [{"op": "increment", "path": "/n", "by": 1}],
    }
    if completion:
        up["completion"] = {"op": "gte", "path": "/n", "value": 1}
    at2 = {"kind": "guidance", "id": "at2", "when": {"op": "eq", "path": "/n", "value": 2}, "instruction": "Two."}
    once = {
        "kind": "guidance",
        "id": "once",
        "when": {"op": "gte", "path": "/n", "value": 1},
        "completion": {"op": "gte", "path": "/n", "value": 1},
        "instruction": "Never: completed by the turn that makes its `when` hold.",
    }
    doc["runtime"]["rules"] = [up, at2, once]
    doc["assets"][0]["reveal_when"] = {"op": "literal", "value": True}
    doc["progression"]["achievements"] = [
        {
            "id": f"n{k}",
            "visibility": "visible",
            "title": f"N{k}",
            "description": "d",
            "when": {"op": "eq", "path": "/n", "value": k},
            "artwork_asset_id": "ending_art",
        }
        for k in (1, 2, 3, 5)
    ]
    doc["progression"]["endings"] = []
    return doc


def _witnesses(doc: Doc, turns: int = _bmc.TURNS, queries: int = _bmc.QUERIES) -> _bmc.Bmc:
    engine = Engine(doc)
    analyses = [analyse(engine.program, e, name) for e, name in zip(engine.entries, engine.entry_ids(), strict=True)]
    return _bmc.witnesses(engine, analyses, _reach.targets(engine), turns=turns, queries=queries)


def _replayed(doc: Doc, turns: list[dict[str, Any]]) -> tuple[list[str], list[str]]:
    """The achievements unlocked and the rules active on the last turn, playing ``turns`` from the start."""
    engine = Engine(doc)
    session, _ = engine.start()
    active: tuple[str, ...] = ()
    for move in turns:
        session, active = engine.advance(session, Turn(move))
    return list(session.achievements), list(active)


def test_plays_of_two_and_three_turns_are_found_and_replay_to_their_goals() -> None:
    made = _witnesses(stairs(), turns=3)
    assert made.spurious == 0  # the encoding of this pack is exact: every model replays to what it proposed
    assert Goal("rule", "once") not in made.found
    found = made.found
    assert [len(found[Goal("achievement", f"n{k}")].turns) for k in (1, 2, 3)] == [1, 2, 3]
    assert len(found[Goal("rule", "at2")].turns) == 3
    assert "n3" in _replayed(stairs(), found[Goal("achievement", "n3")].turns)[0]
    assert "at2" in _replayed(stairs(), found[Goal("rule", "at2")].turns)[1]


def test_a_goal_that_takes_more_turns_than_are_unrolled_gets_no_witness() -> None:
    """With n turns unrolled a play has at most n + 1 (a rule is active on the turn after them)."""
    two = _witnesses(stairs(), turns=2).found
    assert Goal("achievement", "n2") in two
    assert Goal("rule", "at2") in two  # active on turn 3, which is not unrolled
    one = _witnesses(stairs(), turns=1).found
    assert max(len(reached.turns) for reached in one.values()) <= 2
    assert Goal("achievement", "n3") not in one
    assert Goal("rule", "at2") not in one
    assert Goal("achievement", "n5") not in _witnesses(stairs(), turns=3).found


def test_a_model_the_runtime_does_not_play_is_thrown_away() -> None:
    """With the completion, z3 may leave `up` uncompleted on turn 2 and propose `/n` = 2: the replay says no."""
    made = _witnesses(stairs(completion=True), turns=3)
    assert made.spurious > 0
    assert Goal("achievement", "n1") in made.found
    assert Goal("completion", "up") in made.found
    assert Goal("achievement", "n2") not in made.found
    assert Goal("rule", "at2") not in made.found


def test_the_queries_are_bounded_by_a_count() -> None:
    assert _witnesses(stairs(), queries=1).queries == 1
    assert _witnesses(stairs(), queries=0).found == {}


def test_decide_takes_the_witnesses_after_the_box_phase_and_can_leave_them_out() -> None:
    """The guided search plays no turn (a budget of 0) and the exhaustive search is out: only the phase witnesses."""
    goal = Goal("achievement", "n2")
    with_bmc = _reach.decide(stairs(), 0, 1e9, time.monotonic, exhaustive=False, turn_rules=0, bmc=True)
    without = _reach.decide(stairs(), 0, 1e9, time.monotonic, exhaustive=False, turn_rules=0, bmc=False)
    assert goal in with_bmc.witnesses
    assert goal not in without.witnesses
    assert any(f.code == "reachability-bound" and "'n2'" in f.message for f in without.findings)
    assert not any(f.code == "reachability-bound" and "'n2'" in f.message for f in with_bmc.findings)
    assert Goal("achievement", "n5") not in with_bmc.witnesses
    # Off by default: too slow for a default lint of a big pack (docs/performance.md).
    assert goal not in _reach.decide(stairs(), 0, 1e9, time.monotonic, exhaustive=False, turn_rules=0).witnesses
