"""Random valid 0.5 packs for differential tests of the runtime (seeded, so a failure names its seed).

Small but varied: counters with bounds and limits, a set, nested flags, two observations, effect
rules (some with effects the schema refuses or on nested paths) and guidance rules with
completions, achievements with badges, an ending, reader cards scoped to entries, an asset.
"""

from __future__ import annotations

import json
import random
from typing import Any

from creatorpack.scaffold import files

__all__ = ["random_condition", "random_pack"]

Doc = dict[str, Any]


def random_condition(rng: random.Random, depth: int) -> Doc:
    """A condition over the random pack's state and observations, at most ``depth`` groups deep."""
    if depth == 0 or rng.random() < 0.35:
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
    if rng.random() < 0.2:
        return {"op": "not", "condition": random_condition(rng, depth - 1)}
    parts = [random_condition(rng, depth - 1) for _ in range(rng.randint(1, 3))]
    return {"op": rng.choice(["all", "any"]), "conditions": parts}


def _effect(rng: random.Random) -> Doc:
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


def random_pack(seed: int) -> Doc:
    """A valid 0.5 pack drawn from ``seed``."""
    rng = random.Random(seed)
    doc: Doc = json.loads(files("0.5")["pack.json"])
    doc["runtime"]["state"]["schema"] = {
        "type": "object",
        "properties": {
            "i0": {"type": "integer", "minimum": 0, "maximum": rng.randint(3, 6)},
            "i1": {"type": "integer", "minimum": -2, "maximum": rng.randint(3, 6)},
            "s": {"type": "array", "items": {"enum": ["a", "b", "c", "e"]}, "uniqueItems": True},
            "flags": {
                "type": "object",
                "properties": {
                    "f0": {"type": "boolean"},
                    "f1": {"type": "boolean"},
                    "n": {"type": "integer", "minimum": 0, "maximum": 3},
                },
                "required": ["f0", "f1", "n"],
                "additionalProperties": False,
            },
        },
        "required": ["i0", "i1", "s", "flags"],
        "additionalProperties": False,
    }
    entries = rng.randint(1, 2)
    doc["runtime"]["entries"] = [
        {
            "id": f"e{k}",
            "initial_state": {
                "i0": rng.randint(0, 3),
                "i1": rng.randint(0, 3),
                "s": sorted(rng.sample("abc", rng.randint(0, 2))),
                "flags": {"f0": rng.random() < 0.5, "f1": False, "n": 0},
            },
        }
        for k in range(entries)
    ]
    doc["entries"] = [{"id": f"e{k}", "title": "T"} for k in range(entries)]
    doc["runtime"]["observations"] = [
        {"type": "boolean", "id": "o1", "question": "q?"},
        {"type": "choice", "id": "o2", "question": "q?", "choices": {"x": "X", "y": "Y", "z": "Z"}},
    ]
    rules: list[Doc] = []
    for i in range(rng.randint(3, 12)):
        if rng.random() < 0.6:
            rule: Doc = {"kind": "effect", "id": f"r{i}", "when": random_condition(rng, 2)}
            rule["effects"] = [_effect(rng) for _ in range(rng.randint(0, 3))]
        else:
            rule = {"kind": "guidance", "id": f"g{i}", "when": random_condition(rng, 2), "instruction": f"Do {i}."}
        if rng.random() < 0.3:
            rule["completion"] = random_condition(rng, 1)
        rules.append(rule)
    doc["runtime"]["rules"] = rules
    badges = doc["progression"].get("badges") or []
    badge = badges[0]["id"] if badges else None
    achievements = []
    for i in range(rng.randint(2, 5)):
        achievement: Doc = {
            "id": f"a{i}",
            "visibility": rng.choice(["visible", "hidden"]),
            "title": "A",
            "description": "d",
            "when": random_condition(rng, 2),
            "artwork_asset_id": "ending_art",
        }
        if badge is not None and rng.random() < 0.3:
            achievement["badge_id"] = badge
        achievements.append(achievement)
    doc["progression"]["achievements"] = achievements
    endings = doc["progression"].get("endings") or []
    doc["progression"]["endings"] = endings[:1]
    for ending in doc["progression"]["endings"]:
        ending["when"] = random_condition(rng, 2)
    doc["assets"][0]["reveal_when"] = random_condition(rng, 2)
    doc["reader_cards"] = [
        {
            "id": f"c{k}",
            "kind": "actor",
            "display_name": "C",
            "introduction": "I.",
            "reveal_when": random_condition(rng, 2),
        }
        for k in range(3)
    ]
    if rng.random() < 0.5:
        doc["reader_cards"][1]["entry_ids"] = [f"e{entries - 1}"]
    return doc
