"""The goal-directed walk on packs as creators write them: chains of prerequisites, goals of a second entry.

Both were reported by a probe as `reachability-bound` warnings on goals a few turns away, which a
larger bound did not find either (so `--strict` failed on ordinary packs).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from creatorpack.contract.conditions import Goal
from creatorpack.lint import lint
from creatorpack.scaffold import files
from creatorpack.testing import play

Doc = dict[str, Any]


def _pack(state: Doc, initial: list[Doc], observations: list[Doc], rules: list[Doc], endings: list[Doc]) -> Doc:
    doc: Doc = json.loads(files("0.5")["pack.json"])
    doc["runtime"]["state"]["schema"] = {
        "type": "object",
        "properties": state,
        "required": sorted(state),
        "additionalProperties": False,
    }
    doc["runtime"]["entries"] = [{"id": f"e{i}", "initial_state": values} for i, values in enumerate(initial)]
    doc["entries"] = [{"id": f"e{i}", "title": f"Part {i}"} for i in range(len(initial))]
    doc["runtime"]["observations"] = observations
    asides = [  # a guidance rule per yes/no question, so that each is read (and widens the turn)
        {"kind": "guidance", "id": f"aside_{o['id']}", "when": {"op": "observed", "id": o["id"], "value": True}}
        | {"instruction": "Mention it."}
        for o in observations
        if o["type"] == "boolean"
    ]
    doc["runtime"]["rules"] = [*rules, *asides]
    doc["assets"][0]["reveal_when"] = {"op": "literal", "value": True}
    template = doc["progression"]["endings"][0]
    doc["progression"]["endings"] = [{**template, **ending} for ending in endings]
    for ending in doc["progression"]["endings"]:
        ending["guidance"] = {
            **ending["guidance"],
            "requirements": [{"id": ending["id"], "hint": "Go on.", "condition_ref": ""}],
        }
    return doc


def second_entry() -> Doc:
    """The ending needs a member only the second entry starts with, and eight turns of the clock."""
    clock: Doc = {"kind": "effect", "id": "tick", "when": {"op": "literal", "value": True}}
    clock["effects"] = [{"op": "increment", "path": "/hours", "by": 1, "limit": 12}]
    late = {
        "op": "all",
        "conditions": [{"op": "gte", "path": "/hours", "value": 8}, {"op": "eq", "path": "/inside", "value": True}],
    }
    early = {
        "op": "all",
        "conditions": [{"op": "gte", "path": "/hours", "value": 3}, {"op": "eq", "path": "/inside", "value": False}],
    }
    asked = [{"type": "boolean", "id": f"q{i}", "question": "Q?"} for i in range(5)]
    return _pack(
        {"hours": {"type": "integer", "minimum": 0, "maximum": 12}, "inside": {"type": "boolean"}},
        [{"hours": 0, "inside": False}, {"hours": 0, "inside": True}],
        asked,
        [clock],
        [{"id": "late", "when": late, "priority": 1}, {"id": "arrived", "when": early}],
    )


def _decided_and_replayed(doc: Doc, goal: Goal) -> int:
    report = lint(json.dumps(doc))
    assert not [f.message for f in report.findings if f.code == "reachability-bound"]
    witness = report.witnesses[str(goal)]
    run = play(json.dumps(doc), [{"observations": dict(t)} for t in witness.turns], entry=witness.entry)
    return len(witness.turns) if run.ending == goal.id else -1


SURVIVAL = Path(__file__).parent / "packs" / "survival.json"
"""A creator's survival pack (written by a probe): days wear food and warmth down, storms hurt, and two
endings (starved, froze) stop a careless play. Its fire needs a shelter, each needs firewood, which
building uses up; its rescue needs the fire and a signal."""


def test_a_survival_pack_s_chains_are_witnessed_and_replay() -> None:
    doc = json.loads(SURVIVAL.read_text(encoding="utf-8"))
    report = lint(json.dumps(doc))
    chains = [Goal("rule", "build_fire"), Goal("achievement", "hearth"), Goal("rule", "light_signal")]
    for goal in [*chains, Goal("ending", "rescued")]:
        witness = report.witnesses[str(goal)]  # each was a reachability-bound warning
        run = play(json.dumps(doc), [{"observations": dict(t)} for t in witness.turns], entry=witness.entry)
        match goal:
            case Goal("rule", ident):
                assert ident in run.last.active_rules, goal
            case Goal("achievement", ident):
                assert ident in run.last.new_achievements, goal
            case Goal(_, ident):
                assert run.ending == ident, goal


def test_a_goal_only_the_second_entry_can_reach_is_walked_from_there() -> None:
    doc = second_entry()
    report = lint(json.dumps(doc))
    assert report.witnesses["ending:late"].entry == "e1"
    assert _decided_and_replayed(doc, Goal("ending", "late")) == 8
