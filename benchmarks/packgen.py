"""Generate realistic, valid 0.5 packs of a given size for benchmarks (deterministic per seed)."""

from __future__ import annotations

import hashlib
import random
from typing import Any

WORDS = [
    "lantern",
    "harbor",
    "whisper",
    "archive",
    "tide",
    "ember",
    "cipher",
    "orchard",
    "signal",
    "raven",
    "marble",
    "compass",
    "thread",
    "garden",
    "winter",
    "letter",
    "bridge",
    "candle",
    "mirror",
    "forest",
    "station",
    "velvet",
    "hollow",
    "echo",
    "summit",
    "river",
]


def _text(rng: random.Random, words: int) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(words)).capitalize() + "."


def _sha(seed: str) -> str:
    return hashlib.sha256(seed.encode()).hexdigest()


def _condition(rng: random.Random, depth: int) -> dict[str, Any]:
    if depth <= 0 or rng.random() < 0.3:
        pick = rng.random()
        if pick < 0.4:
            return {"op": rng.choice(["gte", "lt", "eq"]), "path": "/trust", "value": rng.randint(0, 10)}
        if pick < 0.7:
            return {"op": "contains", "path": "/clues", "value": rng.choice(["key", "map", "letter"])}
        if pick < 0.9:
            return {"op": "observed", "id": "helped", "value": rng.random() < 0.5}
        return {"op": "literal", "value": True}
    if rng.random() < 0.2:
        return {"op": "not", "condition": _condition(rng, depth - 1)}
    return {
        "op": rng.choice(["all", "any"]),
        "conditions": [_condition(rng, depth - 1) for _ in range(rng.randint(1, 3))],
    }


def _crop() -> dict[str, float]:
    return {"x": 0.1, "y": 0.05, "width": 0.8, "height": 0.9}


def make_pack(target_bytes: int, seed: int = 7) -> dict[str, Any]:
    """A valid 0.5 pack whose JSON is about ``target_bytes`` long."""
    rng = random.Random(seed)
    pack: dict[str, Any] = {
        "protocol_version": "0.5",
        "manifest": {"pack_id": "bench.pack", "revision": 3, "title": "The Lantern Archive", "language": "en"},
        "runtime": {
            "runtime_id": "bench-runtime",
            "state": {
                "schema": {
                    "type": "object",
                    "properties": {
                        "trust": {"type": "integer", "minimum": 0, "maximum": 10},
                        "clues": {"type": "array", "items": {"enum": ["key", "map", "letter"]}, "uniqueItems": True},
                        "met": {"type": "boolean"},
                    },
                    "required": ["trust", "clues", "met"],
                    "additionalProperties": False,
                }
            },
            "entries": [{"id": "opening", "initial_state": {"trust": 0, "clues": [], "met": False}}],
            "observations": [
                {"type": "boolean", "id": "helped", "question": "Did the reader help the stranger?"},
                {
                    "type": "choice",
                    "id": "path",
                    "question": "Which way?",
                    "choices": {"north": "North", "south": "South"},
                },
            ],
            "rules": [],
        },
        "instructions": {"narrator": "Keep the tone quiet and curious."},
        "entries": [{"id": "opening", "title": "At the harbor"}],
        "provenance": [{"path": "/", "basis": "original", "review": "accepted"}],
        "progression": {"protocol": "service.progression/2", "achievements": [], "endings": [], "badges": []},
        "presentation": {"bindings": [], "illustration_rules": []},
        "publication": {
            "tagline": "A quiet mystery by the sea.",
            "description": _text(rng, 60),
            "creator_credit": "Bench Writer",
            "rights": {"basis": "original", "statement": "All rights reserved."},
            "tags": ["mystery", "sea"],
        },
        "assets": [],
        "reader_cards": [],
        "content": [],
        "illustrations": [],
        "character_castings": [],
    }
    size = 4000
    i = 0
    while size < target_bytes:
        i += 1
        sha = _sha(f"asset{i}")
        asset = {
            "id": f"asset.{i}",
            "kind": "image",
            "mime_type": "image/png",
            "sha256": sha,
            "byte_size": rng.randint(1000, 3_000_000),
            "description": _text(rng, 12),
            "reveal_when": _condition(rng, 2),
            "generation_record": {
                "model": "painter-2",
                "provider": "studio",
                "prompt": _text(rng, 20),
                "output_sha256": sha,
                "input_assets": [],
                "config": {"task": "text_to_image"},
            },
        }
        card = {
            "id": f"card.{i}",
            "display_name": f"Keeper {i}",
            "introduction": _text(rng, 30),
            "reveal_when": _condition(rng, 3),
            "avatar": {"asset_id": f"asset.{i}", "crop": _crop()},
            "relationships": [
                {"actor_id": f"card.{max(1, i - 1)}", "label": "old friend", "reveal_when": _condition(rng, 1)}
            ],
        }
        rule = {
            "kind": "guidance",
            "id": f"rule.{i}",
            "when": _condition(rng, 3),
            "instruction": _text(rng, 25),
            "completion": _condition(rng, 2),
        }
        effect = {
            "kind": "effect",
            "id": f"effect.{i}",
            "when": _condition(rng, 2),
            "effects": [{"op": "increment", "path": "/trust", "by": 1, "limit": 10, "overflow": "clamp"}],
        }
        content = {
            "id": f"content.{i}",
            "text": _text(rng, 40),
            "selection": rng.choice(["always", "jev"]),
            "when": _condition(rng, 2),
        }
        achievement = {
            "id": f"ach.{i}",
            "visibility": rng.choice(["visible", "hidden"]),
            "title": f"Found clue {i}",
            "description": _text(rng, 15),
            "when": _condition(rng, 3),
            "artwork_asset_id": f"asset.{i}",
        }
        illustration = {"id": f"ill.{i}", "asset_id": f"asset.{i}", "alt": _text(rng, 10)}
        ill_rule = {
            "id": f"illrule.{i}",
            "illustration_id": f"ill.{i}",
            "match": _text(rng, 12),
            "when": _condition(rng, 2),
            "priority": rng.randint(-5, 5),
        }
        pack["assets"].append(asset)
        pack["reader_cards"].append(card)
        pack["runtime"]["rules"] += [rule, effect]
        pack["content"].append(content)
        pack["progression"]["achievements"].append(achievement)
        pack["illustrations"].append(illustration)
        pack["presentation"]["illustration_rules"].append(ill_rule)
        size += 5200
    return pack
