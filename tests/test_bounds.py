"""Every rule of the contract at its boundary: the value at the bound passes, the one past it fails.

Each case puts one object (valid as given) into a version's minimal example, then sets one field
to the value at the bound (the pack must stay valid) and to the value just past it (the pack
must fail with exactly one violation, at the expected pointer, with the expected code).
"""

from __future__ import annotations

import copy
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import pytest

import creatorpack

from .conftest import example, put

SHA = "0" * 64
SAFE = 9007199254740991
TRUE: dict[str, Any] = {"op": "literal", "value": True}
CROP = {"x": 0, "y": 0, "width": 1, "height": 1}
GUIDANCE: dict[str, Any] = {
    "summary": "S",
    "next_step": "N",
    "requirements": [{"id": "r", "hint": "H", "condition_ref": ""}],
}
V3, V4, V5 = ("0.3", "0.4", "0.5"), ("0.4", "0.5"), ("0.5",)
V345 = ("0.3", "0.4", "0.5")

READER_CARD: dict[str, Any] = {
    "id": "card",
    "display_name": "Mara",
    "introduction": "A keeper.",
    "reveal_when": TRUE,
    "kind": "actor",
    "entry_ids": ["opening"],
    "avatar": {"asset_id": "a", "crop": dict(CROP), "reveal_when": TRUE},
    "image": {"asset_id": "a", "reveal_when": TRUE},
    "relationships": [{"actor_id": "b", "label": "sister", "reveal_when": TRUE}],
}
ASSET = {
    "id": "a",
    "kind": "image",
    "mime_type": "image/png",
    "sha256": SHA,
    "byte_size": 1,
    "description": "D",
    "reveal_when": TRUE,
    "reference_only": False,
    "generation_record": {
        "input_assets": [{"asset_id": "b", "sha256": SHA}],
        "model": "m",
        "output_sha256": SHA,
        "prompt": "p",
        "provider": "v",
        "config": {"task": "text_to_image"},
    },
    "source_url": None,
    "uri": None,
}
PUBLICATION = {
    "tagline": "T",
    "description": "D",
    "creator_credit": "C",
    "rights": {"basis": "original", "statement": "S"},
    "tags": ["t"],
    "genres": ["g"],
    "content_warnings": ["w"],
    "target_audience": ["a"],
    "cover_asset_id": None,
}
CASTING = {
    "id": "cast",
    "actor_id": "mara",
    "character_id": "12345678-9abc-def0-1234-56789abcdef0",
    "character_revision": 1,
    "when": TRUE,
    "entry_ids": ["opening"],
    "deeds": [{"id": "d", "when": TRUE}],
    "knowledge": [{"id": "k", "text": "K", "when": TRUE}],
}
ACHIEVEMENT = {
    "id": "ach",
    "visibility": "visible",
    "title": "T",
    "description": "D",
    "when": TRUE,
    "artwork_asset_id": "a",
    "badge_id": None,
}
BADGE = {
    "id": "b",
    "title": "T",
    "description": "D",
    "collectible": {
        "protocol": "service.pin-badge/1",
        "model": "round-pin/1",
        "front_asset_id": "a",
        "crop": dict(CROP),
        "finish": "gloss/1",
    },
}
ENDING = {
    "id": "end",
    "title": "T",
    "when": TRUE,
    "artwork_asset_id": "a",
    "guidance": GUIDANCE,
    "priority": 0,
    "closing_text": "C",
}
GUIDED = {"protocol": "service.progression/2", "achievements": [ACHIEVEMENT], "endings": [ENDING], "badges": [BADGE]}
STAGE = {
    "paragraph_index": 0,
    "paragraph_digest": SHA,
    "location": "L",
    "subject": None,
    "time_of_day": "unspecified",
    "time_label": "",
    "cast": [],
}
ENTRY_05 = {
    "title": "Opening",
    "text_annotations": [],
    "opening_illustrations": [{"after_paragraph_index": 0, "illustration_id": "i", "paragraph_digest": SHA}],
    "opening_stages": [STAGE],
}
PRESENTATION = {
    "bindings": [
        {"asset_id": "a", "role": "background", "time_of_day": "day"},
        {"role": "character", "performance": {"reactions": {"smile": {"asset_id": None, "note": {"en": "N"}}}}},
    ],
    "illustration_rules": [{"id": "ir", "illustration_id": "i", "match": "M", "when": TRUE, "priority": 0}],
}
RUNTIME_EXTRAS: dict[str, Any] = {
    "observations": [
        {"type": "boolean", "id": "helped", "question": "Q"},
        {"type": "choice", "id": "way", "question": "Q", "choices": {"north": "N", "south": "S"}},
    ],
    "rules": [
        {"kind": "guidance", "id": "g", "when": TRUE, "instruction": "I", "completion": None},
        {
            "kind": "effect",
            "id": "e",
            "when": TRUE,
            "effects": [
                {"op": "increment", "path": "/n", "by": 1, "limit": None, "overflow": "clamp"},
                {"op": "add", "path": "/s", "value": "x"},
            ],
        },
    ],
}
ACTOR = {
    "id": "mara",
    "entry_ids": [],
    "name": "Mara",
    "public_intro": "I",
    "appearance": "A",
    "goal": "G",
    "stakes": "S",
    "methods": ["m"],
    "limits": ["l"],
    "origin": None,
    "visual_anchor_ids": [],
}
ARC = {
    "id": "arc",
    "entry_ids": [],
    "question": "Q",
    "promises": ["p"],
    "completion_condition": None,
    "outcome_space": ["o"],
    "pacing": {
        "target_scene_count": [1, 2],
        "max_continuations_per_scene": 1,
        "max_run_continuations": 1,
        "repetition_limits": [],
        "recovery_rule": "R",
    },
}
ACTOR_SETUP = {"actor_id": "mara", "goal": "G", "known_fact_ids": [], "beliefs": [], "relationship_notes": []}
ANCHOR = {"anchor_id": "an", "reference_asset_ids": ["a"], "role": "identity", "instruction": None, "strength": None}
ASSET_02 = {
    "id": "a",
    "entry_ids": [],
    "kind": "image",
    "description": "D",
    "alt_text": "A",
    "uri": None,
    "sha256": None,
    "mime_type": "image/png",
    "byte_size": None,
    "reference_only": True,
    "depicts_fact_ids": [],
    "depicts_event_ids": [],
    "valid_when": None,
    "origin": None,
    "source_url": None,
    "references": [],
    "generation": None,
    "generation_record": None,
    "anchor_references": [ANCHOR],
}


def base(version: str) -> dict[str, Any]:
    """The version's minimal example with one of every object the cases touch, all valid."""
    pack = example(version, "minimal")
    if version == "0.2":
        pack["actors"] = [copy.deepcopy(ACTOR)]
        pack["arcs"] = [copy.deepcopy(ARC)]
        pack["entries"] = [{"id": "opening", "actor_setup": [copy.deepcopy(ACTOR_SETUP)]}]
        pack["assets"] = [copy.deepcopy(ASSET_02)]
        return pack
    pack["reader_cards"] = [copy.deepcopy(READER_CARD)]
    pack["assets"] = [copy.deepcopy(ASSET)]
    pack["publication"] = copy.deepcopy(PUBLICATION)
    pack["illustrations"] = [{"id": "i", "asset_id": "a", "alt": "A", "actor_ids": [], "entry_ids": []}]
    pack["content"] = [{"id": "c", "text": "T", "selection": "always", "entry_ids": [], "when": TRUE}]
    pack["entries"] = [{"title": "Opening", "text_annotations": []}]
    runtime = pack["runtime"]
    runtime["state"]["schema"]["properties"] = {
        "n": {"type": "integer", "minimum": 0, "maximum": 10},
        "s": {"type": "array", "items": {"enum": ["x"]}, "uniqueItems": True},
    }
    runtime["entries"] = [{"initial_state": {"n": 0, "s": []}}]
    runtime.update(copy.deepcopy(RUNTIME_EXTRAS))
    if version in V4:
        pack["character_castings"] = [copy.deepcopy(CASTING)]
    if version == "0.4":
        pack["progression"] = copy.deepcopy(
            {"protocol": "service.progression/1", "achievements": [ACHIEVEMENT], "badges": [BADGE]}
        )
    if version == "0.5":
        pack["progression"] = copy.deepcopy(GUIDED)
        pack["presentation"] = copy.deepcopy(PRESENTATION)
        pack["entries"] = [copy.deepcopy(ENTRY_05)]
        pack["assets"][0]["access"] = "standard"
    return pack


@dataclass(frozen=True)
class Case:
    """At ``pointer``, ``ok`` is valid and ``bad`` breaks the rule named ``code``."""

    versions: tuple[str, ...]
    pointer: str
    ok: Any
    bad: Any
    code: str
    at: str | None = None  # where the violation is reported, when not at ``pointer``
    extra: dict[str, Any] = field(default_factory=dict)  # other fields to set first

    @property
    def where(self) -> str:
        return self.at if self.at is not None else self.pointer


def text(n: int) -> str:
    return "x" * n


def ids(n: int) -> list[str]:
    return [f"i{k}" for k in range(n)]


RC = "/reader_cards/0"
AS = "/assets/0"
PUB = "/publication"
CC = "/character_castings/0"
ACH5 = "/progression/achievements/0"
END = "/progression/endings/0"
BDG = "/progression/badges/0"
R = "/runtime"
ST = "/runtime/state/schema/properties"

CASES: list[Case] = [
    # Conventions: Id, Sha256, safe integers.
    Case(V345, "/manifest/pack_id", "a" + text(79), "a" + text(80), "invalid-id"),
    Case(V345, "/manifest/pack_id", "a.b-c_9", "a b", "invalid-id"),
    Case(V345, "/manifest/pack_id", "Z", "9", "invalid-id"),
    Case(V345, "/manifest/pack_id", "a", "", "invalid-id"),
    Case(V345, f"{AS}/sha256", "f" * 64, "f" * 65, "invalid-sha256"),
    Case(V345, f"{AS}/sha256", "0123456789abcdef" * 4, "0123456789ABCDEF" * 4, "invalid-sha256"),
    Case(V345, f"{AS}/sha256", "a" * 64, "a" * 63, "invalid-sha256"),
    # Manifest.
    Case(V345, "/manifest/revision", 1, 0, "minimum"),
    Case(V345, "/manifest/revision", SAFE, SAFE + 1, "maximum"),
    Case(V345, "/manifest/revision", 2, 1.5, "type"),
    Case(V345, "/manifest/title", "T", "", "min-length"),
    Case(V345, "/manifest/language", "zh-CN", "zh-cn", "enum"),
    Case(V345, "/manifest/language", "zh", "fr", "enum"),
    Case(V345, "/manifest/source_documents", [{"any": 1}], {"not": "array"}, "type"),
    # Provenance.
    Case(
        V345,
        "/provenance",
        [{"path": "p", "basis": "source-derived", "review": "pending"}],
        [{"path": "p", "basis": "derived", "review": "pending"}],
        "enum",
        at="/provenance/0/basis",
    ),
    Case(
        V345,
        "/provenance",
        [{"path": "p", "basis": "original", "review": "accepted", "source_refs": [1]}],
        [{"path": "p", "basis": "original", "review": "maybe"}],
        "enum",
        at="/provenance/0/review",
    ),
    Case(
        V345,
        "/provenance",
        [{"path": "p", "basis": "original", "review": "accepted"}],
        [{"path": "p", "basis": "original", "review": "accepted", "x": 1}],
        "additional-property",
        at="/provenance/0/x",
    ),
    Case(
        V345,
        "/provenance",
        [{"path": "", "basis": "original", "review": "accepted"}],
        [{"basis": "original", "review": "accepted"}],
        "required",
        at="/provenance/0",
    ),
    # Runtime.
    Case(V345, f"{R}/runtime_id", "any string at all", 1, "type"),
    Case(V345, f"{R}/entries", [{"initial_state": {"n": 0, "s": []}, "id": "x"}], [], "min-items"),
    Case(V345, f"{R}/entries/0/initial_state", {"n": 0, "s": [], "free": [1, {"x": None}]}, [], "type"),
    Case(V345, f"{R}/state/schema/type", "object", "array", "const"),
    Case(V345, f"{R}/state/schema/additionalProperties", False, True, "const"),
    Case(V345, f"{R}/state/schema/required", ["n"], ["9n"], "invalid-id", at=f"{R}/state/schema/required/0"),
    Case(V345, f"{ST}/n/minimum", -SAFE, -SAFE - 1, "minimum"),
    Case(V345, f"{ST}/n/maximum", SAFE, SAFE + 1, "maximum"),
    Case(V345, f"{ST}/s/items/enum", ["x"], [], "min-items"),
    Case(V345, f"{ST}/s/items/enum", ["x", "y"], ["x", "9"], "invalid-id", at=f"{ST}/s/items/enum/1"),
    Case(V345, f"{ST}/s/uniqueItems", True, False, "const"),
    Case(V345, f"{ST}/b", {"type": "boolean"}, {"type": "boolean", "x": 1}, "additional-property", at=f"{ST}/b/x"),
    Case(V345, f"{R}/observations/0/question", "Q", "", "min-length"),
    Case(V345, f"{R}/observations/1/choices", {"a": "A", "b": "B"}, {"a": "A"}, "min-properties"),
    Case(
        V345,
        f"{R}/observations/1/choices",
        {"a": "A", "b": "B"},
        {"a": "A", "9b": "B"},
        "invalid-property-name",
        at=f"{R}/observations/1/choices/9b",
    ),
    Case(V345, f"{R}/observations/1/choices/north", "N", "", "min-length"),
    Case(V345, f"{R}/observations/0/type", "boolean", "bool", "unknown-observation-type"),
    Case(
        V345,
        f"{R}/rules/0",
        RUNTIME_EXTRAS["rules"][0],
        {**RUNTIME_EXTRAS["rules"][0], "x": 1},
        "additional-property",
        at=f"{R}/rules/0/x",
    ),
    Case(V345, f"{R}/rules/0/instruction", "I", "", "min-length"),
    Case(V345, f"{R}/rules/0/completion", TRUE, {"op": "maybe"}, "unknown-op", at=f"{R}/rules/0/completion/op"),
    Case(V345, f"{R}/rules/1/effects/0/by", -SAFE, -SAFE - 1, "minimum"),
    Case(V345, f"{R}/rules/1/effects/0/by", SAFE, SAFE + 1, "maximum"),
    Case(V345, f"{R}/rules/1/effects/0/limit", SAFE, SAFE + 1, "maximum"),
    Case(V345, f"{R}/rules/1/effects/0/limit", -SAFE, -SAFE - 1, "minimum"),
    Case(V345, f"{R}/rules/1/effects/0/overflow", "reject", "wrap", "enum"),
    Case(
        V345,
        f"{R}/rules/1/effects/1",
        {"op": "remove", "path": "/s", "value": "x"},
        {"op": "remove", "path": "/s", "value": "x", "by": 1},
        "additional-property",
        at=f"{R}/rules/1/effects/1/by",
    ),
    Case(V345, f"{R}/rules/1/effects/1/value", "y", "not an id", "invalid-id"),
    Case(V345, f"{R}/rules/1/when", {"op": "not", "condition": TRUE}, {"op": "not"}, "required"),
    # Conditions.
    Case(
        V345,
        "/content/0/when",
        {"op": "all", "conditions": [TRUE]},
        {"op": "all", "conditions": []},
        "min-items",
        at="/content/0/when/conditions",
    ),
    Case(
        V345,
        "/content/0/when",
        {"op": "observed", "id": "way", "value": "n"},
        {"op": "observed", "id": "way", "value": ""},
        "min-length",
        at="/content/0/when/value",
    ),
    # Assets.
    Case(V345, f"{AS}/byte_size", 1, 0, "minimum"),
    Case(V345, f"{AS}/byte_size", 32_000_000, 32_000_001, "maximum"),
    Case(V345, f"{AS}/description", "D", "", "min-length"),
    Case(V345, f"{AS}/kind", "audio", "text", "enum", extra={f"{AS}/mime_type": "audio/wav"}),
    Case(("0.3", "0.4"), f"{AS}/mime_type", "image/webp", "image/apng", "enum"),
    Case(V5, f"{AS}/mime_type", "image/apng", "image/gif", "enum"),
    Case(V5, f"{AS}/access", "reward_only", "secret", "enum"),
    Case(("0.3", "0.4"), f"{AS}/reference_only", True, "yes", "type"),
    Case(("0.3", "0.4"), AS, ASSET, {**ASSET, "access": "standard"}, "additional-property", at=f"{AS}/access"),
    Case(V345, f"{AS}/generation_record/config/task", "image_to_image", "text_to_video", "asset-image-task-rule"),
    Case(V345, f"{AS}/generation_record/model", "m", "", "min-length"),
    Case(V345, f"{AS}/generation_record/output_sha256", SHA, "x", "invalid-sha256"),
    Case(
        V345, f"{AS}/generation_record/input_assets/0", {"asset_id": "b", "sha256": SHA}, {"asset_id": "b"}, "required"
    ),
    Case(V345, f"{AS}/generation_record", None, "none", "type"),
    Case(V345, f"{AS}/uri", "file.png", 1, "type"),
    # Content.
    Case(V345, "/content/0/text", "T", "", "min-length"),
    Case(V345, "/content/0/selection", "jev", "sometimes", "enum"),
    # Crop.
    Case(V345, f"{RC}/avatar/crop/x", 0, -0.01, "minimum"),
    Case(V345, f"{RC}/avatar/crop/x", 1, 1.01, "maximum"),
    Case(V345, f"{RC}/avatar/crop/y", 1, 1.5, "maximum"),
    Case(V345, f"{RC}/avatar/crop/width", 0.001, 0, "exclusive-minimum"),
    Case(V345, f"{RC}/avatar/crop/width", 1, 1.001, "maximum"),
    Case(V345, f"{RC}/avatar/crop/height", 1e-9, 0, "exclusive-minimum"),
    Case(V345, f"{RC}/avatar/crop/height", 1, 2, "maximum"),
    # Reader cards.
    Case(V345, f"{RC}/display_name", text(100), text(101), "max-length"),
    Case(V345, f"{RC}/display_name", "M", "", "min-length"),
    Case(V345, f"{RC}/introduction", text(600), text(601), "max-length"),
    Case(V345, f"{RC}/introduction", "I", "", "min-length"),
    Case(V345, f"{RC}/kind", "prop", "item", "enum"),
    Case(V345, f"{RC}/entry_ids", ids(8), ids(9), "max-items"),
    Case(
        V345,
        f"{RC}/relationships",
        [READER_CARD["relationships"][0]] * 32,
        [READER_CARD["relationships"][0]] * 33,
        "max-items",
    ),
    Case(V345, f"{RC}/relationships/0/label", text(200), text(201), "max-length"),
    Case(V345, f"{RC}/relationships/0/label", "L", "", "min-length"),
    Case(V345, f"{RC}/avatar", None, {"asset_id": "a"}, "required"),
    Case(V345, f"{RC}/image", None, {"asset_id": "a"}, "required"),
    # Display length counts code points, not bytes or UTF-16 units.
    Case(V345, f"{RC}/display_name", "😀" * 100, "😀" * 101, "max-length"),
    # Illustrations.
    Case(V345, "/illustrations/0/alt", text(600), text(601), "max-length"),
    Case(V345, "/illustrations/0/alt", "A", "", "min-length"),
    Case(V345, "/illustrations/0/actor_ids", ids(64), ids(65), "max-items"),
    Case(V345, "/illustrations/0/entry_ids", ids(8), ids(9), "max-items"),
    # Publication.
    Case(V345, f"{PUB}/tagline", text(200), text(201), "max-length"),
    Case(V345, f"{PUB}/tagline", "T", "", "min-length"),
    Case(V345, f"{PUB}/description", text(10000), text(10001), "max-length"),
    Case(V345, f"{PUB}/creator_credit", text(200), text(201), "max-length"),
    Case(V345, f"{PUB}/tags", ["t"] * 64, ["t"] * 65, "max-items"),
    Case(V345, f"{PUB}/genres", ["g"] * 64, ["g"] * 65, "max-items"),
    Case(V345, f"{PUB}/content_warnings", ["w"] * 64, ["w"] * 65, "max-items"),
    Case(V345, f"{PUB}/target_audience", ["a"] * 64, ["a"] * 65, "max-items"),
    Case(V345, f"{PUB}/tags/0", "t", "", "min-length"),
    Case(V345, f"{PUB}/age_rating", "adult", "mature", "enum"),
    Case(V345, f"{PUB}/visibility", "unlisted", "hidden", "enum"),
    Case(V345, f"{PUB}/comments_enabled", True, "true", "type"),
    Case(V345, f"{PUB}/cover_asset_id", "a", "1a", "invalid-id"),
    Case(V345, f"{PUB}/cover_motion_asset_id", None, "", "invalid-id"),
    Case(V345, f"{PUB}/rights/basis", "public_domain", "cc-by", "enum"),
    Case(V345, f"{PUB}/rights/statement", "S", "", "min-length"),
    # Pack entries.
    Case(V345, "/entries/0/text_annotations", [{}] * 32, [{}] * 33, "max-items"),
    Case(V345, "/entries/0/title", "T", "", "min-length"),
    Case(V345, "/entries/0", {"title": "T", "anything": {"not": "shown"}}, {"anything": 1}, "required"),
    # Character castings.
    Case(
        V4,
        f"{CC}/character_id",
        "abcdef01-2345-6789-abcd-ef0123456789",
        "ABCDEF01-2345-6789-abcd-ef0123456789",
        "invalid-uuid",
    ),
    Case(
        V4,
        f"{CC}/character_id",
        "abcdef01-2345-6789-abcd-ef0123456789",
        "abcdef0123456789abcdef0123456789",
        "invalid-uuid",
    ),
    Case(V4, f"{CC}/character_revision", 1, 0, "minimum"),
    Case(V4, f"{CC}/character_revision", SAFE, SAFE + 1, "maximum"),
    Case(V4, f"{CC}/player_actor_id", None, "-", "invalid-id"),
    Case(V4, f"{CC}/entry_ids", ids(8), ids(9), "max-items"),
    Case(V4, f"{CC}/deeds", [{"id": "d", "when": TRUE}] * 32, [{"id": "d", "when": TRUE}] * 33, "max-items"),
    Case(
        V4,
        f"{CC}/knowledge",
        [{"id": "k", "text": "K", "when": TRUE}] * 24,
        [{"id": "k", "text": "K", "when": TRUE}] * 25,
        "max-items",
    ),
    Case(V4, f"{CC}/knowledge/0/text", text(600), text(601), "max-length"),
    Case(V4, f"{CC}/knowledge/0/text", " k ", " \t\n\u3000", "blank-string"),
    Case(V4, f"{CC}/knowledge/0/text", "\u00a0.", "\u00a0\u2028\ufeff", "blank-string"),
    # Progression (achievements and badges: 0.4 container and 0.5 guided container).
    Case(V4, f"{ACH5}/title", text(200), text(201), "max-length"),
    Case(V4, f"{ACH5}/title", "T", "   ", "blank-string"),
    Case(V4, f"{ACH5}/description", text(2000), text(2001), "max-length"),
    Case(V4, f"{ACH5}/description", "D", "", "min-length"),
    Case(V4, f"{ACH5}/visibility", "hidden", "secret", "enum"),
    Case(V4, f"{ACH5}/badge_id", "b", 7, "type"),
    Case(V4, f"{BDG}/title", "T", "\n", "blank-string"),
    Case(V4, f"{BDG}/description", text(2000), text(2001), "max-length"),
    Case(V4, f"{BDG}/collectible/protocol", "service.pin-badge/1", "service.pin-badge/2", "const"),
    Case(V4, f"{BDG}/collectible/model", "round-pin/1", "square-pin/1", "const"),
    Case(V4, f"{BDG}/collectible/finish", "holo/1", "holo/2", "enum"),
    Case(V4, f"{BDG}/collectible/effect_mask_asset_id", "a", "", "invalid-id"),
    Case(V4, f"{BDG}/collectible/crop/width", 1, 0, "exclusive-minimum"),
    Case(V4, "/progression/badges", [BADGE] * 128, [BADGE] * 129, "max-items"),
    Case(V5, "/progression/endings", [ENDING] * 64, [ENDING] * 65, "max-items"),
    Case(("0.4",), "/progression/endings", [{"any": "shape"}] * 64, [{"any": "shape"}] * 65, "max-items"),
    Case(
        ("0.4",),
        "/progression/endings",
        [{"id": "e", "when": TRUE}],
        [{"id": "e", "when": {"op": "maybe"}}],
        "unknown-op",
        at="/progression/endings/0/when/op",
    ),
    Case(V5, f"{END}/priority", -SAFE, -SAFE - 1, "minimum"),
    Case(V5, f"{END}/priority", SAFE, SAFE + 1, "maximum"),
    Case(V5, f"{END}/closing_text", text(2000), text(2001), "max-length"),
    Case(V5, f"{END}/closing_text", "C", " ", "blank-string"),
    Case(V5, f"{END}/guidance/summary", text(2000), text(2001), "max-length"),
    Case(V5, f"{END}/guidance/next_step", "N", "\t", "blank-string"),
    Case(V5, f"{END}/guidance/requirements", GUIDANCE["requirements"] * 64, GUIDANCE["requirements"] * 65, "max-items"),
    Case(V5, f"{END}/guidance/requirements", GUIDANCE["requirements"], [], "min-items"),
    Case(V5, f"{END}/guidance/requirements/0/hint", text(2000), text(2001), "max-length"),
    Case(
        V5,
        f"{END}/guidance/requirements/0/condition_ref",
        "/conditions/10/conditions/0",
        "/conditions/01",
        "invalid-condition-ref",
    ),
    Case(V5, f"{END}/guidance/requirements/0/condition_ref", "/conditions/0" * 39, "/conditions/0" * 40, "max-length"),
    Case(V5, f"{END}/guidance/requirements/0/condition_ref", "", "/conditions/", "invalid-condition-ref"),
    Case(V5, f"{END}/guidance/requirements/0/condition_ref", "/conditions/1", "conditions/1", "invalid-condition-ref"),
    Case(
        V5,
        f"{END}/guidance/requirements/0",
        {"id": "r", "hint": "H", "condition_ref": "", "more": "not shown"},
        {"id": "r", "hint": "H", "more": "not shown"},
        "required",
    ),
    Case(V5, f"{ACH5}", {**ACHIEVEMENT}, {**{k: v for k, v in ACHIEVEMENT.items() if k != "visibility"}}, "required"),
    Case(
        V5,
        f"{ACH5}",
        {**{k: v for k, v in ACHIEVEMENT.items() if k != "visibility"}, "guidance": GUIDANCE},
        {**ACHIEVEMENT, "guidance": GUIDANCE},
        "additional-property",
        at=f"{ACH5}/visibility",
    ),
    Case(V5, "/progression/protocol", "service.progression/2", "service.progression/3", "enum"),
    # Presentation (0.5).
    Case(V5, "/presentation/bindings/0/time_of_day", "dusk", "evening", "enum"),
    Case(V5, "/presentation/bindings/0", {"asset_id": "a", "role": "background"}, {"role": "background"}, "required"),
    Case(
        V5,
        "/presentation/bindings/0",
        {"role": "character", "x": 1},
        {"role": "background", "asset_id": "a", "x": 1},
        "additional-property",
        at="/presentation/bindings/0/x",
    ),
    Case(V5, "/presentation/bindings/1/performance/idle_asset_id", "a", "-a", "invalid-id"),
    Case(V5, "/presentation/bindings/1/performance/reactions/smile/note/en", text(600), text(601), "max-length"),
    Case(V5, "/presentation/bindings/1/performance/reactions/smile/note/en", "N", " ", "blank-string"),
    Case(V5, "/presentation/illustration_rules/0/priority", 1000, 1001, "maximum"),
    Case(V5, "/presentation/illustration_rules/0/priority", -1000, -1001, "minimum"),
    Case(V5, "/presentation/illustration_rules/0/match", text(1000), text(1001), "max-length"),
    Case(V5, "/presentation/illustration_rules/0/match", "M", "\u2003", "blank-string"),
    # Opening illustrations and stages (0.5).
    Case(V5, "/entries/0/opening_illustrations/0/after_paragraph_index", 31, 32, "maximum"),
    Case(V5, "/entries/0/opening_illustrations/0/after_paragraph_index", 0, -1, "minimum"),
    Case(V5, "/entries/0/opening_stages/0/paragraph_index", 255, 256, "maximum"),
    Case(V5, "/entries/0/opening_stages/0/location", text(200), text(201), "max-length"),
    Case(V5, "/entries/0/opening_stages/0/location", "L", "", "min-length"),
    Case(V5, "/entries/0/opening_stages/0/time_label", text(80), text(81), "max-length"),
    Case(V5, "/entries/0/opening_stages/0/cast", [1, "a", None, {}], [1, "a", None, {}, []], "max-items"),
    Case(V5, "/entries/0/opening_stages/0/time_of_day", "night", "noon", "enum"),
    Case(
        V5,
        "/entries/0/opening_stages/0",
        {**STAGE, "subject": {"any": ["type"]}},
        {k: v for k, v in STAGE.items() if k != "subject"},
        "required",
    ),
    Case(V5, "/entries/0/opening_stages/0/background_asset_id", None, "1", "invalid-id"),
    # 0.2.
    Case(("0.2",), "/default_entry_id", "opening", "1opening", "invalid-id"),
    Case(("0.2",), "/actors/0/id", "worlds", "world", "reserved-id"),
    Case(("0.2",), "/actors/0/id", "readers", "reader", "reserved-id"),
    Case(("0.2",), "/actors/0/name", text(200), text(201), "max-length"),
    Case(("0.2",), "/actors/0/goal", text(20000), text(20001), "max-length"),
    Case(("0.2",), "/actors/0/stakes", "S", "", "min-length"),
    Case(("0.2",), "/actors/0/methods", ["m"], [], "min-items"),
    Case(("0.2",), "/actors/0/limits", ["l"] * 4096, ["l"] * 4097, "max-items"),
    Case(("0.2",), "/actors/0/visual_anchor_ids", ids(64), ids(65), "max-items"),
    Case(("0.2",), "/actors/0/visual_anchor_ids", ["a", "b"], ["a", "a"], "unique-items"),
    Case(("0.2",), "/entries/0/actor_setup/0/known_fact_ids", ids(4096), ids(4097), "max-items"),
    Case(("0.2",), "/entries/0/actor_setup/0/known_fact_ids", ["f"], ["f", "f"], "unique-items"),
    Case(("0.2",), "/entries/0/actor_setup/0/beliefs", [None] * 4096, [None] * 4097, "max-items"),
    Case(
        ("0.2",),
        "/entries/0/actor_setup/0/relationship_notes",
        ["n"],
        [""],
        "min-length",
        at="/entries/0/actor_setup/0/relationship_notes/0",
    ),
    Case(("0.2",), "/arcs/0/question", text(20000), text(20001), "max-length"),
    Case(("0.2",), "/arcs/0/promises", [1], [], "min-items"),
    Case(("0.2",), "/arcs/0/outcome_space", ["o"] * 4096, ["o"] * 4097, "max-items"),
    Case(
        ("0.2",),
        "/arcs/0/pacing/target_scene_count",
        [1, 10000],
        [1, 10001],
        "maximum",
        at="/arcs/0/pacing/target_scene_count/1",
    ),
    Case(("0.2",), "/arcs/0/pacing/target_scene_count", [1, 1], [1], "min-items"),
    Case(("0.2",), "/arcs/0/pacing/target_scene_count", [1, 1], [1, 1, 1], "max-items"),
    Case(
        ("0.2",),
        "/arcs/0/pacing/target_scene_count",
        [1, 1],
        [0, 1],
        "minimum",
        at="/arcs/0/pacing/target_scene_count/0",
    ),
    Case(("0.2",), "/arcs/0/pacing/max_continuations_per_scene", 1000, 1001, "maximum"),
    Case(("0.2",), "/arcs/0/pacing/max_continuations_per_scene", 1, 0, "minimum"),
    Case(("0.2",), "/arcs/0/pacing/max_run_continuations", 100000, 100001, "maximum"),
    Case(("0.2",), "/arcs/0/pacing/repetition_limits", ["r"] * 4096, ["r"] * 4097, "max-items"),
    Case(("0.2",), "/arcs/0/pacing/recovery_rule", "R", "", "min-length"),
    Case(("0.2",), "/assets/0/byte_size", 1_073_741_824, 1_073_741_825, "maximum"),
    Case(("0.2",), "/assets/0/byte_size", 1, 0, "minimum"),
    Case(("0.2",), "/assets/0/alt_text", text(20000), text(20001), "max-length"),
    Case(("0.2",), "/assets/0/depicts_fact_ids", ["f", "g"], ["f", "f"], "unique-items"),
    Case(("0.2",), "/assets/0/depicts_event_ids", ids(4096), ids(4097), "max-items"),
    Case(("0.2",), "/assets/0/anchor_references", [ANCHOR] * 64, [ANCHOR] * 65, "max-items"),
    Case(("0.2",), "/assets/0/anchor_references/0/reference_asset_ids", ids(64), ids(65), "max-items"),
    Case(("0.2",), "/assets/0/anchor_references/0/reference_asset_ids", ["a"], [], "min-items"),
    Case(("0.2",), "/assets/0/anchor_references/0/role", "last_frame", "middle_frame", "enum"),
    Case(("0.2",), "/assets/0/anchor_references/0/strength", 1, 1.01, "maximum"),
    Case(("0.2",), "/assets/0/anchor_references/0/strength", 0, -0.01, "minimum"),
    Case(("0.2",), "/assets/0/anchor_references/0/instruction", text(20000), text(20001), "max-length"),
    # 0.2 asset conditional rules.
    Case(
        ("0.2",),
        "/assets/0/generation_record",
        None,
        {"config": {}},
        "asset-record-rule",
        at="/assets/0/byte_size",
        extra={"/assets/0/uri": "u", "/assets/0/sha256": SHA},
    ),
    Case(
        ("0.2",),
        "/assets/0/generation",
        None,
        {"task": "text_to_image"},
        "asset-generation-rule",
        at="/assets/0/generation_record",
        extra={"/assets/0/uri": "file.png"},
    ),
    Case(("0.2",), "/assets/0/anchor_references", [], [ANCHOR], "asset-audio-rule", extra={"/assets/0/kind": "audio"}),
    Case(
        ("0.2",),
        "/assets/0/references",
        [],
        [{"r": 1}],
        "asset-audio-rule",
        extra={"/assets/0/kind": "audio", "/assets/0/anchor_references": []},
    ),
    Case(
        ("0.2",),
        "/assets/0/generation",
        {"task": "image_to_image"},
        {"task": "text_to_video"},
        "asset-image-task-rule",
        at="/assets/0/generation/task",
        extra={
            "/assets/0/generation_record": {"config": {"task": "text_to_image"}},
            "/assets/0/byte_size": 1,
            "/assets/0/sha256": SHA,
            "/assets/0/uri": "u",
        },
    ),
    Case(
        ("0.2",),
        "/assets/0/generation_record",
        {"config": {"task": "video_to_video"}},
        {"config": {"task": "text_to_image"}},
        "asset-video-task-rule",
        at="/assets/0/generation_record/config/task",
        extra={"/assets/0/kind": "video", "/assets/0/byte_size": 1, "/assets/0/sha256": SHA, "/assets/0/uri": "u"},
    ),
]


def apply(case: Case) -> Iterator[dict[str, Any]]:
    """The ok document, then the bad document, for each version of the case."""
    for version in case.versions:
        for value in (case.ok, case.bad):
            doc = base(version)
            for pointer, extra in case.extra.items():
                put(doc, pointer, copy.deepcopy(extra))
            yield put(doc, case.pointer, copy.deepcopy(value))


def case_id(case: Case) -> str:
    return f"{'+'.join(case.versions)}:{case.pointer}:{case.code}"


@pytest.mark.parametrize("version", ["0.2", "0.3", "0.4", "0.5"])
def test_base_documents_are_valid(version: str) -> None:
    report = creatorpack.validate(base(version))
    assert report.violations == ()


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_bound(case: Case) -> None:
    docs = list(apply(case))
    for version, ok, bad in zip(case.versions, docs[::2], docs[1::2], strict=True):
        good = creatorpack.validate(ok)
        assert good.violations == (), (version, good.violations)
        report = creatorpack.validate(bad)
        got = [(v.pointer, v.code) for v in report.violations]
        assert got == [(case.where, case.code)], (version, report.violations)
