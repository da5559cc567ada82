"""The scatter phase of the guided search: short plays of pseudo-random answers, the same on every run.

A goal two turns away, each turn needing four answers at once, is out of reach of one-answer
moves and of a single solved turn; the plays find it, their witness replays, and two searches
give the same witnesses turn for turn.
"""

from __future__ import annotations

import json
import time
from typing import Any

from creatorpack.contract.conditions import Goal
from creatorpack.lint.reach import _decide as _reach
from creatorpack.lint.reach import _witness
from creatorpack.play.engine import Engine, Turn
from creatorpack.scaffold import files

Doc = dict[str, Any]
NEEDED = {"o0": True, "o1": False, "o2": True, "o3": True}
"""The answers the one rule that raises ``/n`` needs, all in the same turn."""
PINNED = [3793791033, 1853398634, 113532184]


def _pack() -> Doc:
    doc: Doc = json.loads(files("0.5")["pack.json"])
    doc["runtime"]["state"]["schema"] = {
        "type": "object",
        "properties": {"n": {"type": "integer", "minimum": 0, "maximum": 9}},
        "required": ["n"],
        "additionalProperties": False,
    }
    doc["runtime"]["entries"] = [{"id": "e0", "initial_state": {"n": 0}}]
    doc["entries"] = [{"id": "e0", "title": "T"}]
    doc["runtime"]["observations"] = [{"type": "boolean", "id": f"o{k}", "question": "q?"} for k in range(6)]
    needed = [{"op": "observed", "id": ident, "value": value} for ident, value in NEEDED.items()]
    doc["runtime"]["rules"] = [
        {
            "kind": "effect",
            "id": "climb",
            "when": {"op": "all", "conditions": needed},
            "effects": [{"op": "increment", "path": "/n", "by": 1}],
        },
    ]
    doc["assets"][0]["reveal_when"] = {"op": "literal", "value": True}
    doc["progression"]["endings"] = []
    doc["progression"]["achievements"] = [
        {
            "id": "two_up",
            "visibility": "visible",
            "title": "A",
            "description": "d",
            "when": {"op": "gte", "path": "/n", "value": 2},
            "artwork_asset_id": "ending_art",
        }
    ]
    return doc


def _scattered(doc: Doc) -> _witness.Search:
    engine = Engine(doc)
    targets = [t for t in _reach.targets(engine) if t.kind == "achievement"]
    search = _witness.Search(engine, targets, 1_000, time.monotonic() + 600, time.monotonic)
    search.scatter(search.starts(), plays=100, turns=3)
    return search


def test_the_plays_reach_a_goal_that_needs_many_answers_on_two_turns_and_replay() -> None:
    doc = _pack()
    search = _scattered(doc)
    witness = search.found[Goal("achievement", "two_up")]
    engine = Engine(doc)
    session, _ = engine.start(witness.entry)
    for move in witness.turns:
        session, _ = engine.step(session, Turn(move))
    assert "two_up" in session.achievements
    assert 2 <= len(witness.turns) <= 4  # two turns that raise `/n`, at most one turn more on the way


def test_the_plays_are_the_same_on_every_run() -> None:
    first, second = _scattered(_pack()), _scattered(_pack())
    assert {k: (w.entry, w.turns) for k, w in first.found.items()} == {
        k: (w.entry, w.turns) for k, w in second.found.items()
    }
    assert first.spent == second.spent


def test_the_draws_are_fixed_numbers() -> None:
    """The draws are splitmix64 of the play's, turn's and observation's numbers: pinned, so no platform moves them."""
    assert [_witness._draw(0, 0, k) for k in range(3)] == PINNED
    assert len({_witness._draw(p, t, k) for p in range(10) for t in range(3) for k in range(6)}) == 180
