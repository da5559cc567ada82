"""Random valid 0.5 packs (seeded, so a failure names its seed), in two profiles of one generator.

:data:`DIFFERENTIAL` (the default), for differential tests of the runtime: small but varied,
counters with bounds and limits, a set, nested flags, two observations, effect rules (some with
effects the schema refuses or on nested paths) and guidance rules with completions, achievements
with badges, an ending, reader cards scoped to entries, an asset. Its conditions also compare
paths that do not resolve and values of the wrong type.

:data:`REACH`, for the reachability tests that explore every state (``tests/test_reach_turns.py``):
two small counters and a set, effect rules only, every effect one the runtime applies, conditions
over what the abstract analysis tracks; fewer rules, goals and cards, so that exploring every
answer from every state stays fast.

A profile names what differs (which condition ops and effect ops are drawn, and the shape around
them); everything else is drawn in the same order for both, so a seed gives the same pack it gave
before the two generators were one.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from creatorpack.scaffold import files

__all__ = ["DIFFERENTIAL", "REACH", "Profile", "random_condition", "random_pack"]

Doc = dict[str, Any]
Draw = Callable[[random.Random], Doc]


def _varied_leaf(rng: random.Random) -> Doc:
    """A comparison, an ``observed`` test or a literal; some compare a missing path, a float, a string or a set."""
    pick = rng.random()
    if pick < 0.4:
        path = rng.choice(["/i0", "/i1", "/i0", "/missing"])
        value: Any = rng.randint(-1, 6) if rng.random() < 0.9 else rng.choice([2.5, True, "3"])
        return {"op": rng.choice(["eq", "ne", "lt", "lte", "gt", "gte"]), "path": path, "value": value}
    if pick < 0.55:
        return {"op": "contains", "path": "/s", "value": rng.choice("abc")}
    if pick < 0.62:
        return {"op": "eq", "path": "/flags/f" + rng.choice("01"), "value": rng.random() < 0.5}
    if pick < 0.65:
        return {"op": rng.choice(["eq", "ne"]), "path": "/s", "value": rng.sample("abc", rng.randint(0, 2))}
    if pick < 0.8:
        return {"op": "observed", "id": "o1", "value": rng.random() < 0.5}
    if pick < 0.95:
        return {"op": "observed", "id": "o2", "value": rng.choice("xyz")}
    return {"op": "literal", "value": rng.random() < 0.7}


def _counter_leaf(rng: random.Random) -> Doc:
    """A comparison of a counter with a small integer, a set's ``contains``, an ``observed`` test or a literal."""
    pick = rng.random()
    if pick < 0.45:
        path = rng.choice(["/i0", "/i1"])
        return {"op": rng.choice(["eq", "ne", "lt", "lte", "gt", "gte"]), "path": path, "value": rng.randint(0, 5)}
    if pick < 0.65:
        return {"op": "contains", "path": "/s", "value": rng.choice("abc")}
    if pick < 0.8:
        return {"op": "observed", "id": "o1", "value": rng.random() < 0.5}
    if pick < 0.95:
        return {"op": "observed", "id": "o2", "value": rng.choice("xyz")}
    return {"op": "literal", "value": rng.random() < 0.7}


def _varied_effect(rng: random.Random) -> Doc:
    """An increment (``by`` 0 at times) or a set change; one in ten is an effect the runtime rejects."""
    pick = rng.random()
    if pick < 0.6:
        effect: Doc = {"op": "increment", "path": rng.choice(["/i0", "/i1"]), "by": rng.choice([-2, -1, 0, 1, 2])}
        if rng.random() < 0.4:
            effect["overflow"] = "reject"
        if rng.random() < 0.25:
            effect["limit"] = rng.randint(0, 5)
        return effect
    if pick < 0.9:
        return {"op": rng.choice(["add", "remove"]), "path": "/s", "value": rng.choice("abc")}
    return rng.choice(
        [
            {"op": "increment", "path": "/flags/n", "by": 1},  # a nested path
            {"op": "increment", "path": "/s", "by": 1},  # not an integer
            {"op": "add", "path": "/i0", "value": "a"},  # not a set
            {"op": "increment", "path": "/nowhere", "by": 1},  # not in the schema
            {"op": "add", "path": "/s", "value": "d"},  # not one of the set's values
        ]
    )


def _counter_effect(rng: random.Random) -> Doc:
    """An increment that moves a counter, or a set change: every one an effect the runtime applies."""
    if rng.random() < 0.65:
        effect: Doc = {"op": "increment", "path": rng.choice(["/i0", "/i1"]), "by": rng.choice([-2, -1, 1, 2])}
        if rng.random() < 0.4:
            effect["overflow"] = "reject"
        if rng.random() < 0.25:
            effect["limit"] = rng.randint(0, 5)
        return effect
    return {"op": rng.choice(["add", "remove"]), "path": "/s", "value": rng.choice("abc")}


@dataclass(frozen=True, slots=True)
class Profile:
    """What a random pack draws: its conditions' and effects' ops (``leaf``, ``effect``), and its shape.

    Counts are inclusive ranges; ``guidance`` draws a kind per rule (else every rule has effects),
    ``visibility_and_badges`` draws each achievement's visibility and, when the pack has a badge,
    its badge (else every achievement is visible and has none); ``flags`` adds the nested
    ``/flags`` object.
    """

    leaf: Draw
    effect: Draw
    i1_minimum: int
    set_values: tuple[str, ...]
    flags: bool
    initial_set: Callable[[random.Random], list[str]]
    rules: tuple[int, int]
    guidance: bool
    effects: tuple[int, int]
    completion: float
    achievements: tuple[int, int]
    visibility_and_badges: bool
    cards: int


DIFFERENTIAL = Profile(
    leaf=_varied_leaf,
    effect=_varied_effect,
    i1_minimum=-2,
    set_values=("a", "b", "c", "e"),
    flags=True,
    initial_set=lambda rng: sorted(rng.sample("abc", rng.randint(0, 2))),
    rules=(3, 12),
    guidance=True,
    effects=(0, 3),
    completion=0.3,
    achievements=(2, 5),
    visibility_and_badges=True,
    cards=3,
)
"""The runtime's differential tests: every op, effects the runtime rejects, guidance rules, badges."""

REACH = Profile(
    leaf=_counter_leaf,
    effect=_counter_effect,
    i1_minimum=0,
    set_values=("a", "b", "c"),
    flags=False,
    initial_set=lambda rng: rng.sample("abc", 1),
    rules=(3, 8),
    guidance=False,
    effects=(1, 2),
    completion=0.2,
    achievements=(2, 4),
    visibility_and_badges=False,
    cards=2,
)
"""The exhaustive reachability tests: counters, a set and answers, small enough to explore every state."""


def random_condition(rng: random.Random, depth: int, leaf: Draw = _varied_leaf) -> Doc:
    """A condition over the random pack's state and observations, at most ``depth`` groups deep."""
    if depth == 0 or rng.random() < 0.35:
        return leaf(rng)
    if rng.random() < 0.2:
        return {"op": "not", "condition": random_condition(rng, depth - 1, leaf)}
    parts = [random_condition(rng, depth - 1, leaf) for _ in range(rng.randint(1, 3))]
    return {"op": rng.choice(["all", "any"]), "conditions": parts}


def random_pack(seed: int, profile: Profile = DIFFERENTIAL) -> Doc:
    """A valid 0.5 pack drawn from ``seed`` as ``profile`` says."""
    rng = random.Random(seed)

    def condition(depth: int) -> Doc:
        return random_condition(rng, depth, profile.leaf)

    doc: Doc = json.loads(files("0.5")["pack.json"])
    properties: Doc = {
        "i0": {"type": "integer", "minimum": 0, "maximum": rng.randint(3, 6)},
        "i1": {"type": "integer", "minimum": profile.i1_minimum, "maximum": rng.randint(3, 6)},
        "s": {"type": "array", "items": {"enum": list(profile.set_values)}, "uniqueItems": True},
    }
    if profile.flags:
        properties["flags"] = {
            "type": "object",
            "properties": {
                "f0": {"type": "boolean"},
                "f1": {"type": "boolean"},
                "n": {"type": "integer", "minimum": 0, "maximum": 3},
            },
            "required": ["f0", "f1", "n"],
            "additionalProperties": False,
        }
    doc["runtime"]["state"]["schema"] = {
        "type": "object",
        "properties": properties,
        "required": list(properties),
        "additionalProperties": False,
    }
    entries = rng.randint(1, 2)
    states: list[Doc] = []
    for _ in range(entries):
        state: Doc = {"i0": rng.randint(0, 3), "i1": rng.randint(0, 3), "s": profile.initial_set(rng)}
        if profile.flags:
            state["flags"] = {"f0": rng.random() < 0.5, "f1": False, "n": 0}
        states.append(state)
    doc["runtime"]["entries"] = [{"id": f"e{k}", "initial_state": state} for k, state in enumerate(states)]
    doc["entries"] = [{"id": f"e{k}", "title": "T"} for k in range(entries)]
    doc["runtime"]["observations"] = [
        {"type": "boolean", "id": "o1", "question": "q?"},
        {"type": "choice", "id": "o2", "question": "q?", "choices": {"x": "X", "y": "Y", "z": "Z"}},
    ]
    rules: list[Doc] = []
    for i in range(rng.randint(*profile.rules)):
        if not profile.guidance or rng.random() < 0.6:
            rule: Doc = {"kind": "effect", "id": f"r{i}", "when": condition(2)}
            rule["effects"] = [profile.effect(rng) for _ in range(rng.randint(*profile.effects))]
        else:
            rule = {"kind": "guidance", "id": f"g{i}", "when": condition(2), "instruction": f"Do {i}."}
        if rng.random() < profile.completion:
            rule["completion"] = condition(1)
        rules.append(rule)
    doc["runtime"]["rules"] = rules
    badges = (doc["progression"].get("badges") or []) if profile.visibility_and_badges else []
    badge = badges[0]["id"] if badges else None
    achievements = []
    for i in range(rng.randint(*profile.achievements)):
        achievement: Doc = {
            "id": f"a{i}",
            "visibility": rng.choice(["visible", "hidden"]) if profile.visibility_and_badges else "visible",
            "title": "A",
            "description": "d",
            "when": condition(2),
            "artwork_asset_id": "ending_art",
        }
        if badge is not None and rng.random() < 0.3:
            achievement["badge_id"] = badge
        achievements.append(achievement)
    doc["progression"]["achievements"] = achievements
    endings = doc["progression"].get("endings") or []
    doc["progression"]["endings"] = endings[:1]
    for ending in doc["progression"]["endings"]:
        ending["when"] = condition(2)
    doc["assets"][0]["reveal_when"] = condition(2)
    doc["reader_cards"] = [
        {"id": f"c{k}", "kind": "actor", "display_name": "C", "introduction": "I.", "reveal_when": condition(2)}
        for k in range(profile.cards)
    ]
    if rng.random() < 0.5:
        doc["reader_cards"][1]["entry_ids"] = [f"e{entries - 1}"]
    return doc
