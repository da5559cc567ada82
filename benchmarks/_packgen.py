"""Generate realistic, valid 0.5 packs of a given size for benchmarks (deterministic per seed)."""

from __future__ import annotations

import hashlib
import random
from collections.abc import Callable
from typing import Any

from creatorpack.lint import LintConfig, lint

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


def _art() -> dict[str, Any]:
    """The one image asset the runtime and shop packs' achievements show."""
    return {
        "id": "art",
        "kind": "image",
        "mime_type": "image/png",
        "sha256": _sha("art"),
        "byte_size": 10,
        "description": "Art.",
        "reveal_when": {"op": "literal", "value": True},
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


def make_runtime_pack(rules: int = 10_000, achievements: int = 1_000, seed: int = 11) -> dict[str, Any]:
    """A valid 0.5 pack for the runtime benchmark: many rules over a wide state, conditions up to depth 4."""
    rng = random.Random(seed)
    counters = [f"c{i}" for i in range(40)]
    sets = [f"s{i}" for i in range(10)]
    flags = [f"f{i}" for i in range(20)]
    members = ["a", "b", "c", "d", "e"]
    observations = [f"o{i}" for i in range(20)]
    choices = [f"q{i}" for i in range(10)]

    def leaf(rng: random.Random = rng) -> dict[str, Any]:
        pick = rng.random()
        if pick < 0.45:
            return {
                "op": rng.choice(["gt", "gte", "lt", "lte", "eq", "ne"]),
                "path": f"/{rng.choice(counters)}",
                "value": rng.randint(0, 20),
            }
        if pick < 0.6:
            return {"op": "contains", "path": f"/{rng.choice(sets)}", "value": rng.choice(members)}
        if pick < 0.7:
            return {"op": "eq", "path": f"/flags/{rng.choice(flags)}", "value": rng.random() < 0.5}
        if pick < 0.85:
            return {"op": "observed", "id": rng.choice(observations), "value": rng.random() < 0.5}
        if pick < 0.95:
            return {"op": "observed", "id": rng.choice(choices), "value": rng.choice(["x", "y", "z"])}
        return {"op": "literal", "value": rng.random() < 0.8}

    def condition(depth: int) -> dict[str, Any]:
        if depth <= 1 or rng.random() < 0.25:
            return leaf()
        if rng.random() < 0.15:
            return {"op": "not", "condition": condition(depth - 1)}
        return {
            "op": rng.choice(["all", "any"]),
            "conditions": [condition(depth - 1) for _ in range(rng.randint(1, 3))],
        }

    properties: dict[str, Any] = {c: {"type": "integer", "minimum": 0, "maximum": 20} for c in counters}
    properties.update({s: {"type": "array", "items": {"enum": members}, "uniqueItems": True} for s in sets})
    properties["flags"] = {
        "type": "object",
        "properties": {f: {"type": "boolean"} for f in flags},
        "additionalProperties": False,
    }
    initial: dict[str, Any] = dict.fromkeys(counters, 10)
    initial.update({s: [] for s in sets})
    initial["flags"] = dict.fromkeys(flags, False)
    rule_list: list[dict[str, Any]] = []
    for i in range(rules):
        if i % 4 == 0:
            effects: list[dict[str, Any]] = [
                {
                    "op": "increment",
                    "path": f"/{rng.choice(counters)}",
                    "by": rng.choice([-1, 1, 2]),
                    "overflow": rng.choice(["clamp", "reject"]),
                }
            ]
            if rng.random() < 0.3:
                effects.append(
                    {"op": rng.choice(["add", "remove"]), "path": f"/{rng.choice(sets)}", "value": rng.choice(members)}
                )
            rule_list.append({"kind": "effect", "id": f"e{i}", "when": condition(4), "effects": effects})
        else:
            rule = {"kind": "guidance", "id": f"g{i}", "when": condition(4), "instruction": f"Guidance {i}."}
            if rng.random() < 0.3:
                rule["completion"] = condition(2)
            rule_list.append(rule)
    achievement_list = [
        {
            "id": f"a{i}",
            "visibility": rng.choice(["visible", "hidden"]),
            "title": f"Achievement {i}",
            "description": "Something happened.",
            "when": condition(4),
            "artwork_asset_id": "art",
        }
        for i in range(achievements)
    ]
    pack = {
        "protocol_version": "0.5",
        "manifest": {"pack_id": "runtime.bench", "revision": 1, "title": "Runtime benchmark", "language": "en"},
        "runtime": {
            "runtime_id": "bench",
            "state": {"schema": {"type": "object", "properties": properties, "additionalProperties": False}},
            "entries": [{"id": "start", "initial_state": initial}],
            "observations": [{"type": "boolean", "id": o, "question": f"{o}?"} for o in observations]
            + [
                {"type": "choice", "id": q, "question": f"{q}?", "choices": {"x": "X", "y": "Y", "z": "Z"}}
                for q in choices
            ],
            "rules": rule_list,
        },
        "instructions": {},
        "entries": [{"title": "Start"}],
        "provenance": [],
        "progression": {"protocol": "service.progression/2", "achievements": achievement_list},
        "presentation": {},
        "assets": [_art()],
    }
    _possible(pack, leaf, random.Random(seed + 1))
    return pack


def make_story_pack(
    rules: int = 10_000, achievements: int = 1_000, subplots: int = 100, seed: int = 11
) -> dict[str, Any]:
    """A valid 0.5 pack shaped like a long story, for the reachability benchmark (deterministic per seed).

    The runtime pack's state and conditions, with two changes that make it play like a story rather
    than like noise: every effect rule fires on an answer of the reader's (its ``when`` also needs
    one observation's answer), and counters move up as well as down (``by`` from -2, -1, 1, 2). In
    the runtime pack about half of the 2,500 effect rules fire on every turn whatever the answers,
    so every counter sits at its top from the third turn on. Then ``subplots`` side stories, each
    with its own members and yes/no observation, in turn the three shapes only a relation decides
    (:func:`_subplot`): four rules and two achievements each, within ``rules`` and ``achievements``.
    """
    pack = make_runtime_pack(rules - 4 * subplots, achievements - 2 * subplots, seed)
    rng = random.Random(seed + 7)
    runtime = pack["runtime"]
    answers = [o["id"] for o in runtime["observations"]]
    for rule in runtime["rules"]:
        if rule["kind"] != "effect":
            continue
        asked = rng.choice(answers)
        value: Any = rng.random() < 0.5 if asked.startswith("o") else rng.choice(["x", "y", "z"])
        rule["when"] = {"op": "all", "conditions": [{"op": "observed", "id": asked, "value": value}, rule["when"]]}
        for effect in rule["effects"]:
            if effect["op"] == "increment":
                effect["by"] = rng.choice([-2, -1, 1, 2])
    for k in range(subplots):
        _subplot(pack, k, rng)

    def leaf(rng: random.Random) -> dict[str, Any]:
        return {"op": "observed", "id": f"o{rng.randrange(20)}", "value": rng.random() < 0.5}

    _possible(pack, leaf, random.Random(seed + 1))
    return pack


def _subplot(pack: dict[str, Any], k: int, rng: random.Random) -> None:
    """Side story ``k``: one of three shapes whose one unreachable achievement and rule only a relation rules out.

    0. *Ending stops it first*: mood falls on each turn the reader is bold, rises on another answer
       up to a limit, and a bold turn at mood ``-t`` ends the session: mood never passes ``-t``.
    1. *Guarded by an answer*: noise rises on the bold answer and is hushed to 0 in the same turn on
       the other, so noise and the other answer never meet after a turn.
    2. *Holding each other up*: two counters every rule moves together stay equal.
    """
    runtime, progression = pack["runtime"], pack["progression"]
    properties = runtime["state"]["schema"]["properties"]
    start = runtime["entries"][0]["initial_state"]
    bold = rng.random() < 0.5
    answer = f"p{k}"
    runtime["observations"].append({"type": "boolean", "id": answer, "question": f"Is the reader bold ({k})?"})
    other = f"o{rng.randrange(20)}"

    def observed(ident: str, value: Any) -> dict[str, Any]:
        return {"op": "observed", "id": ident, "value": value}

    def compare(op: str, member: str, value: int) -> dict[str, Any]:
        return {"op": op, "path": f"/{member}", "value": value}

    def both(*conditions: dict[str, Any]) -> dict[str, Any]:
        return {"op": "all", "conditions": list(conditions)}

    def member(name: str, low: int, high: int, initial: int) -> None:
        properties[name] = {"type": "integer", "minimum": low, "maximum": high}
        start[name] = initial

    def effect(ident: str, when: dict[str, Any], *increments: tuple[str, int, int | None]) -> None:
        effects = [
            {"op": "increment", "path": f"/{name}", "by": by, **({"limit": limit} if limit is not None else {})}
            for name, by, limit in increments
        ]
        runtime["rules"].append({"kind": "effect", "id": ident, "when": when, "effects": effects})

    def guidance(ident: str, when: dict[str, Any]) -> None:
        runtime["rules"].append({"kind": "guidance", "id": ident, "when": when, "instruction": f"Guidance {ident}."})

    def achievement(ident: str, when: dict[str, Any]) -> None:
        progression["achievements"].append(
            {
                "id": ident,
                "visibility": "hidden",
                "title": f"Achievement {ident}",
                "description": "Something happened.",
                "when": when,
                "artwork_asset_id": "art",
            }
        )

    shape = k % 3
    if shape == 0:
        mood, t = f"mood{k}", rng.randint(2, 4)
        member(mood, -10, 10, 0)
        effect(f"sulk{k}", observed(answer, bold), (mood, -1, None))
        effect(f"cheer{k}", observed(other, value=True), (mood, 1, rng.randint(1, 3)))
        ending = both(observed(answer, bold), compare("lte", mood, -t))
        progression.setdefault("endings", []).append(
            {
                "id": f"reckless{k}",
                "title": "Too far",
                "when": ending,
                "priority": 0,
                "closing_text": "It ends.",
                "artwork_asset_id": "art",
                "guidance": {
                    "summary": "S.",
                    "next_step": "N.",
                    "requirements": [{"id": "all", "hint": "H.", "condition_ref": ""}],
                },
            }
        )
        achievement(f"low{k}", compare("lte", mood, 1 - t))
        achievement(f"despair{k}", compare("lte", mood, -t - 1))  # a bold turn at -t ends first
        guidance(f"gloom{k}", compare("lte", mood, 1 - t))
        guidance(f"abyss{k}", compare("lt", mood, -t))
    elif shape == 1:
        noise, top = f"noise{k}", rng.randint(4, 8)
        member(noise, 0, top, 0)
        effect(f"clatter{k}", observed(answer, bold), (noise, 1, None))
        effect(f"hush{k}", {"op": "not", "condition": observed(answer, bold)}, (noise, -top, None))
        achievement(f"loud{k}", compare("gte", noise, rng.randint(2, top)))
        achievement(f"heard{k}", both(observed(answer, not bold), compare("gte", noise, 1)))  # hushed that turn
        guidance(f"din{k}", compare("gte", noise, 1))
        guidance(f"careful{k}", both(observed(answer, not bold), compare("gt", noise, 0)))
    else:
        rope, anchor, limit = f"rope{k}", f"anchor{k}", rng.randint(3, 6)
        member(rope, 0, 9, 0)
        member(anchor, 0, 9, 0)
        effect(f"haul{k}", observed(answer, bold), (rope, 1, limit), (anchor, 1, limit))
        effect(f"lower{k}", observed(other, value=False), (rope, -1, None), (anchor, -1, None))
        achievement(f"taut{k}", both(compare("gte", rope, limit), compare("gte", anchor, limit)))
        achievement(f"lopsided{k}", both(compare("gte", rope, 2), compare("eq", anchor, 0)))  # they stay equal
        guidance(f"slack{k}", compare("gte", anchor, 1))
        guidance(f"askew{k}", both(compare("gt", anchor, 1), compare("lt", rope, 1)))


def _possible(pack: dict[str, Any], leaf: Callable[[random.Random], dict[str, Any]], rng: random.Random) -> None:
    """Replace, in place, every part of a condition that lint finds can never hold by another random leaf.

    A condition that can never hold makes lint report an error and skip the reachability search,
    so a benchmark of the search on such a pack would time nothing; random conditions write some
    ("gt 20" on a counter whose maximum is 20, "eq 3" and "eq 5" together). The rest (and what
    needs a relation between members to decide) stays as generated.
    """
    for _ in range(20):
        wrong = [f.pointer for f in lint(pack, LintConfig(reachability=False)).errors if f.code == "never-holds"]
        if not wrong:
            return
        for pointer in wrong:
            *parents, last = (int(t) if t.isdigit() else t for t in pointer.lstrip("/").split("/"))
            node: Any = pack
            for token in parents:
                node = node[token]
            node[last] = leaf(rng)
    raise AssertionError("conditions that can never hold are left after 20 rounds of replacing them")


def make_shop_pack(items: int = 1_000) -> dict[str, Any]:
    """A valid 0.5 pack of purchases from one purse: per item, a rule that earns a coin and one that buys it.

    Twelve yes/no observations; a yes to one earns, a no to another buys (``overflow: reject``,
    which undoes the item's ``add`` when the purse is short); an achievement per item held.
    Every item can be bought, but only on a turn whose answers leave the purse full enough.
    """
    observations = [{"type": "boolean", "id": f"o{k}", "question": f"o{k}?"} for k in range(12)]
    rules: list[dict[str, Any]] = []
    for k in range(items):
        rules.append(
            {
                "kind": "effect",
                "id": f"earn{k}",
                "when": {"op": "observed", "id": f"o{k % 12}", "value": True},
                "effects": [{"op": "increment", "path": "/coins", "by": 1}],
            }
        )
        rules.append(
            {
                "kind": "effect",
                "id": f"buy{k}",
                "when": {"op": "observed", "id": f"o{(k + 5) % 12}", "value": False},
                "effects": [
                    {"op": "increment", "path": "/coins", "by": -(k % 7 + 2), "overflow": "reject"},
                    {"op": "add", "path": "/pack", "value": f"item{k}"},
                ],
            }
        )
    return {
        "protocol_version": "0.5",
        "manifest": {"pack_id": "shop.bench", "revision": 1, "title": "Shop benchmark", "language": "en"},
        "runtime": {
            "runtime_id": "shop",
            "state": {
                "schema": {
                    "type": "object",
                    "properties": {
                        "coins": {"type": "integer", "minimum": 0, "maximum": 60},
                        "pack": {
                            "type": "array",
                            "items": {"enum": [f"item{k}" for k in range(items)]},
                            "uniqueItems": True,
                        },
                    },
                    "required": ["coins", "pack"],
                    "additionalProperties": False,
                }
            },
            "entries": [{"id": "start", "initial_state": {"coins": 3, "pack": []}}],
            "observations": observations,
            "rules": rules,
        },
        "instructions": {},
        "entries": [{"title": "Start"}],
        "provenance": [],
        "progression": {
            "protocol": "service.progression/2",
            "achievements": [
                {
                    "id": f"has{k}",
                    "visibility": "visible",
                    "title": f"Item {k}",
                    "description": "Bought.",
                    "when": {"op": "contains", "path": "/pack", "value": f"item{k}"},
                    "artwork_asset_id": "art",
                }
                for k in range(items)
            ],
        },
        "presentation": {},
        "assets": [_art()],
    }
