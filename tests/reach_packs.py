"""Test support: the packs the reachability tests share, and the small builders they are written with.

The issue's relational shapes planted in the rich example (:data:`SHAPES`), and two small packs of
the budget tests (:func:`fog`, :func:`climb`). One copy here keeps the tests that share them, and
the lint benchmark, from importing one test module from another.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Final

from creatorpack.contract.conditions import Goal
from creatorpack.scaffold import files
from tests.planting import Doc, plant_achievement, plant_member, plant_rule

__all__ = [
    "R3",
    "RICH",
    "SHAPES",
    "climb",
    "compare",
    "ending",
    "ending_stops_it_first",
    "every",
    "fog",
    "guarded_by_an_answer",
    "holding_each_other_up",
    "increment",
    "observed",
    "rich",
]

RICH = Path(__file__).resolve().parent.parent / "examples" / "0.5" / "rich.json"


def rich() -> Doc:
    """The rich 0.5 example, fresh."""
    doc: Doc = json.loads(RICH.read_text())
    return doc


def ending(doc: Doc, ident: str, when: Doc) -> None:
    """An ending ``ident`` reached when ``when`` holds, appended to ``doc``'s."""
    doc["progression"]["endings"].append(
        {
            "id": ident,
            "title": ident,
            "when": when,
            "priority": 0,
            "closing_text": "It ends.",
            "artwork_asset_id": "storm_art",
            "guidance": {
                "summary": "S.",
                "next_step": "N.",
                "requirements": [{"id": "all", "hint": "H.", "condition_ref": ""}],
            },
        }
    )


def observed(ident: str, value: Any) -> Doc:
    """An ``observed`` test."""
    return {"op": "observed", "id": ident, "value": value}


def compare(op: str, path: str, value: Any) -> Doc:
    """A comparison of the member at ``path``."""
    return {"op": op, "path": path, "value": value}


def increment(path: str, by: int, **extra: Any) -> Doc:
    """An ``increment`` effect."""
    return {"op": "increment", "path": path, "by": by, **extra}


def ending_stops_it_first() -> Doc:
    """The creator's shape: mood falls only on a bold turn, and a bold turn at mood -3 or below ends the session.

    The bold approach here is leaving the lamp dark.

    So mood reaches -3 only on a bold turn, which ends there: "mood <= -4" is unreachable. Mara's
    company lifts it again, up to 2, so mood ranges over -3..2 in between.
    """
    doc = rich()
    plant_member(doc, "mood", {"type": "integer", "minimum": -10, "maximum": 10}, initial=0)
    plant_rule(
        doc, "sulk", observed("lamp_choice", "left_dark"), increment("/mood", -1)
    )  # the bold approach: leave it dark
    plant_rule(doc, "cheer", observed("met_mara", True), increment("/mood", 1, limit=2))
    ending(
        doc,
        "reckless",
        {"op": "all", "conditions": [observed("lamp_choice", "left_dark"), compare("lte", "/mood", -3)]},
    )
    plant_achievement(doc, "low_spirits", compare("lte", "/mood", -2))
    plant_achievement(doc, "despair", compare("lte", "/mood", -4))
    return doc


def guarded_by_an_answer() -> Doc:
    """Noise rises when the lamp is left dark and is hushed to 0 in the same turn on any other answer.

    So noise and a relit lamp never meet after a turn, though each alone is within reach.
    """
    doc = rich()
    plant_member(doc, "noise", {"type": "integer", "minimum": 0, "maximum": 6}, initial=0)
    plant_rule(doc, "clatter", observed("lamp_choice", "left_dark"), increment("/noise", 1))
    plant_rule(doc, "hush", {"op": "not", "condition": observed("lamp_choice", "left_dark")}, increment("/noise", -6))
    plant_achievement(doc, "loud", compare("gte", "/noise", 3))
    careful = {"op": "all", "conditions": [observed("lamp_choice", "relit"), compare("gte", "/noise", 1)]}
    plant_achievement(doc, "careful_but_heard", careful)
    return doc


def holding_each_other_up() -> Doc:
    """Two counters that every rule moves together: they stay equal, so one high and one low never holds."""
    doc = rich()
    for name in ("rope", "anchor"):
        plant_member(doc, name, {"type": "integer", "minimum": 0, "maximum": 9}, initial=0)
    plant_rule(
        doc, "haul", observed("gave_key", True), increment("/rope", 1, limit=4), increment("/anchor", 1, limit=4)
    )
    plant_rule(doc, "lower", observed("helped_stranger", False), increment("/rope", -1), increment("/anchor", -1))
    plant_achievement(
        doc, "taut", {"op": "all", "conditions": [compare("gte", "/rope", 4), compare("gte", "/anchor", 4)]}
    )
    plant_achievement(
        doc, "lopsided", {"op": "all", "conditions": [compare("gte", "/rope", 2), compare("eq", "/anchor", 0)]}
    )
    return doc


SHAPES = {
    "ending-stops-it-first": (ending_stops_it_first, "despair", "low_spirits"),
    "guarded-by-an-answer": (guarded_by_an_answer, "careful_but_heard", "loud"),
    "holding-each-other-up": (holding_each_other_up, "lopsided", "taut"),
}
"""Each shape: its pack, the achievement only a relation rules out, and one within reach beside it."""


def every(*conditions: Doc) -> Doc:
    """An ``all`` of ``conditions``."""
    return {"op": "all", "conditions": list(conditions)}


def fog() -> Doc:
    """A small pack (~800 turns to explore) with two unreachable rules (found by a fuzz of random packs).

    `r3` needs `/s` to hold a and b with `/i1` at most 0; no over-approximation of all turns at
    once shows it is unreachable, but the boxes turn by turn with shared answers do. `r9` (a
    guidance rule) needs `/i0` = 0, `/i1` = 3 and `/s` = [c] together, each of which some state
    has: only a search that explores every reachable state shows it, and that search needs more
    than a quarter of the default budget.
    """
    doc: Doc = json.loads(files("0.5")["pack.json"])
    doc["runtime"]["state"]["schema"] = {
        "type": "object",
        "properties": {
            "i0": {"type": "integer", "minimum": 0, "maximum": 5},
            "i1": {"type": "integer", "minimum": 0, "maximum": 4},
            "s": {"type": "array", "items": {"enum": ["a", "b", "c"]}, "uniqueItems": True},
        },
        "required": ["i0", "i1", "s"],
        "additionalProperties": False,
    }
    doc["runtime"]["entries"] = [
        {"id": "e0", "initial_state": {"i0": 5, "i1": 0, "s": ["a"]}},
        {"id": "e1", "initial_state": {"i0": 4, "i1": 4, "s": ["b"]}},
    ]
    doc["entries"] = [{"id": "e0", "title": "T"}, {"id": "e1", "title": "T"}]
    doc["runtime"]["observations"] = [
        {"type": "boolean", "id": "o1", "question": "q?"},
        {"type": "choice", "id": "o2", "question": "q?", "choices": {"x": "X", "y": "Y", "z": "Z"}},
    ]
    o2 = {"op": "observed", "id": "o2"}
    rules: list[tuple[Doc, list[Doc]]] = [
        (
            {**o2, "value": "y"},
            [{"op": "add", "path": "/s", "value": "c"}, {"op": "remove", "path": "/s", "value": "b"}],
        ),
        (compare("contains", "/s", "b"), [increment("/i1", 2)]),
        (every(compare("eq", "/s", ["a"]), {"op": "observed", "id": "o1", "value": False}), [increment("/i1", -2)]),
        (
            every(
                compare("lt", "/i1", 3),
                {"op": "any", "conditions": [compare("gte", "/i0", 1), compare("contains", "/s", "c")]},
                every(compare("contains", "/s", "a"), compare("lte", "/i1", 0), compare("contains", "/s", "b")),
            ),
            [increment("/i0", 1, overflow="clamp"), increment("/i0", 1, overflow="clamp")],
        ),
        (
            compare("ne", "/i1", 0),
            [increment("/i1", -2, overflow="reject"), increment("/i1", 2, limit=2, overflow="clamp")],
        ),
        (
            {**o2, "value": "z"},
            [{"op": "remove", "path": "/s", "value": "b"}, {"op": "add", "path": "/s", "value": "a"}],
        ),
        ({**o2, "value": "z"}, [{"op": "remove", "path": "/s", "value": "a"}]),
        (
            {"op": "not", "condition": compare("eq", "/s", ["c"])},
            [increment("/i1", 1, limit=4), increment("/i0", 1, limit=1)],
        ),
        (compare("gt", "/i0", 2), [increment("/i0", -1), increment("/i1", 2)]),
    ]
    doc["runtime"]["rules"] = [
        {"kind": "effect", "id": f"r{i}", "when": when, "effects": effects} for i, (when, effects) in enumerate(rules)
    ]
    together = every(compare("eq", "/i0", 0), compare("eq", "/i1", 3), compare("eq", "/s", ["c"]))
    doc["runtime"]["rules"].append({"kind": "guidance", "id": "r9", "when": together, "instruction": "Both."})
    doc["assets"][0]["reveal_when"] = {"op": "literal", "value": True}
    doc["progression"]["endings"] = []
    doc["progression"]["achievements"] = [
        {
            "id": "a1",
            "visibility": "visible",
            "title": "A1",
            "description": "d",
            "when": compare("gte", "/i0", 1),
            "artwork_asset_id": "ending_art",
        }
    ]
    return doc


def climb() -> Doc:
    """One counter that every turn raises by 1 from 0; an achievement and a rule need it at 20."""
    doc: Doc = json.loads(files("0.5")["pack.json"])
    doc["runtime"]["state"]["schema"] = {
        "type": "object",
        "properties": {"n": {"type": "integer", "minimum": 0, "maximum": 30}},
        "required": ["n"],
        "additionalProperties": False,
    }
    doc["runtime"]["entries"] = [{"id": "e0", "initial_state": {"n": 0}}]
    doc["entries"] = [{"id": "e0", "title": "T"}]
    doc["runtime"]["observations"] = [{"type": "boolean", "id": "o1", "question": "q?"}]
    doc["runtime"]["rules"] = [
        {"kind": "effect", "id": "up", "when": {"op": "literal", "value": True}, "effects": [increment("/n", 1)]},
        {"kind": "guidance", "id": "late", "when": compare("gte", "/n", 20), "instruction": "Late."},
    ]
    doc["assets"][0]["reveal_when"] = {"op": "literal", "value": True}
    doc["progression"]["achievements"] = [
        {
            "id": "far",
            "visibility": "visible",
            "title": "Far",
            "description": "d",
            "when": compare("gte", "/n", 20),
            "artwork_asset_id": "ending_art",
        }
    ]
    doc["progression"]["endings"] = []
    return doc


R3: Final = Goal("rule", "r3")
