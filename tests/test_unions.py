"""Unions report inside the branch their discriminator selects, never "valid under none"."""

from __future__ import annotations

from typing import Any

import pytest

import creatorpack

from .conftest import example, put

OPS = ["literal", "eq", "ne", "gt", "gte", "lt", "lte", "contains", "observed", "all", "any", "not"]


def check_condition(condition: Any) -> list[tuple[str, str]]:
    pack = put(example("0.3", "minimal"), "/content", [{"id": "c", "text": "t", "selection": "always"}])
    pack["content"][0]["when"] = condition
    return [(v.pointer, v.code) for v in creatorpack.validate(pack).violations]


W = "/content/0/when"


@pytest.mark.parametrize(
    ("condition", "expected"),
    [
        ({"op": "literal", "value": True}, []),
        ({"op": "literal", "value": "yes"}, [(f"{W}/value", "type")]),
        ({"op": "literal"}, [(W, "required")]),
        ({"op": "literal", "value": True, "path": "/x"}, [(f"{W}/path", "additional-property")]),
        ({"op": "eq", "path": "/a", "value": {"any": ["json"]}}, []),
        ({"op": "gt", "path": "/a"}, [(W, "required")]),
        ({"op": "contains", "path": 3, "value": 1}, [(f"{W}/path", "type")]),
        ({"op": "observed", "id": "q", "value": True}, []),
        ({"op": "observed", "id": "q", "value": "left"}, []),
        ({"op": "observed", "id": "q", "value": ""}, [(f"{W}/value", "min-length")]),
        ({"op": "observed", "id": "q", "value": 1}, [(f"{W}/value", "type")]),
        ({"op": "observed", "id": "9q", "value": True}, [(f"{W}/id", "invalid-id")]),
        ({"op": "all", "conditions": []}, [(f"{W}/conditions", "min-items")]),
        ({"op": "any", "conditions": [{"op": "literal", "value": False}]}, []),
        (
            {"op": "all", "conditions": [{"op": "not", "condition": {"op": "lt", "path": "/a", "value": 1, "x": 1}}]},
            [(f"{W}/conditions/0/condition/x", "additional-property")],
        ),
        # A misspelt property is one finding: unknown `conditions`, did you mean `condition`, which is missing.
        ({"op": "not", "conditions": []}, [(f"{W}/conditions", "additional-property")]),
        (
            {"op": "not", "conditions": [], "x": 1},
            [(f"{W}/conditions", "additional-property"), (f"{W}/x", "additional-property")],
        ),
        ({"op": "xor", "conditions": []}, [(f"{W}/op", "unknown-op")]),
        ({"op": 7}, [(f"{W}/op", "unknown-op")]),
        ({"value": True}, [(W, "required")]),
        ("literal", [(W, "type")]),
    ],
)
def test_condition_errors_come_from_the_selected_branch(condition: Any, expected: list[tuple[str, str]]) -> None:
    assert sorted(check_condition(condition)) == sorted(expected)


def test_unknown_op_is_one_error_listing_the_ops() -> None:
    pack = put(example("0.3", "minimal"), "/content", [{"id": "c", "text": "t", "selection": "always"}])
    pack["content"][0]["when"] = {"op": "xor"}
    (violation,) = creatorpack.validate(pack).violations
    for op in OPS:
        assert repr(op) in violation.message


def test_no_message_says_valid_under_none() -> None:
    pack = example("0.5", "rich")
    pack["runtime"]["observations"] = [{"type": "slider", "id": "s"}, {"type": "choice", "id": "c"}]
    pack["runtime"]["rules"] = [{"kind": "guidance", "id": "g"}, {"kind": "effect", "effects": [{"op": "increment"}]}]
    report = creatorpack.validate(pack)
    got = sorted((v.pointer, v.code) for v in report.violations)
    assert got == sorted(
        [
            ("/runtime/observations/0/type", "unknown-observation-type"),
            ("/runtime/observations/1", "required"),  # question, choices: one finding per object
            ("/runtime/rules/0", "required"),  # when, instruction
            ("/runtime/rules/1/effects/0", "required"),  # path, by
        ]
    )
    messages = {v.pointer: v.message for v in report.violations}
    assert messages["/runtime/observations/1"] == "observations[1]: missing required properties: 'question', 'choices'"
    assert not any("any of" in v.message or "oneOf" in v.message for v in report.violations)


def test_effect_rules_and_unknown_effects_are_accepted() -> None:
    pack = example("0.5", "minimal")
    pack["runtime"]["rules"] = [
        {
            "kind": "effect",
            "id": "e",
            "when": {"op": "literal", "value": True},
            "effects": [{"op": "teleport", "to": 1}],
        },
        {"id": "no-kind", "custom": {"x": 1}},
    ]
    assert creatorpack.validate(pack).valid


@pytest.mark.parametrize(
    ("prop", "expected"),
    [
        ({"type": "integer", "minimum": 0, "maximum": 1}, []),
        ({"type": "integer", "minimum": 0}, [("/runtime/state/schema/properties/p", "required")]),
        (
            {"type": "boolean", "default": False},
            [("/runtime/state/schema/properties/p/default", "additional-property")],
        ),
        (
            {"type": "array", "items": {"enum": ["a"]}, "uniqueItems": False},
            [("/runtime/state/schema/properties/p/uniqueItems", "const")],
        ),
        (
            {"type": "array", "items": {"enum": []}, "uniqueItems": True},
            [("/runtime/state/schema/properties/p/items/enum", "min-items")],
        ),
        ({"type": "string", "enum": ["a", "b"]}, []),  # an EnumSchema: its fields are not shown
        ({"enum": ["a"]}, []),
        (
            {"type": "object", "properties": {"q": {"type": "boolean"}}, "additionalProperties": True},
            [("/runtime/state/schema/properties/p/additionalProperties", "const")],
        ),
        ("integer", [("/runtime/state/schema/properties/p", "type")]),
    ],
)
def test_state_schema_variants(prop: Any, expected: list[tuple[str, str]]) -> None:
    pack = example("0.3", "minimal")
    pack["runtime"]["state"]["schema"]["properties"] = {"p": prop}
    got = sorted((v.pointer, v.code) for v in creatorpack.validate(pack).violations)
    assert got == sorted(expected)


def test_state_schema_needs_a_property_with_an_id_name() -> None:
    pack = example("0.3", "minimal")
    pack["runtime"]["state"]["schema"]["properties"] = {}
    (violation,) = creatorpack.validate(pack).violations
    assert (violation.pointer, violation.code) == ("/runtime/state/schema/properties", "min-properties")
    pack["runtime"]["state"]["schema"]["properties"] = {"9lives": {"type": "boolean"}}
    (violation,) = creatorpack.validate(pack).violations
    assert (violation.pointer, violation.code) == ("/runtime/state/schema/properties/9lives", "invalid-property-name")


def test_progression_protocol_selects_the_container() -> None:
    pack = example("0.5", "minimal")
    pack["progression"] = {"protocol": "service.progression/1", "achievements": [], "anything": 1}
    assert creatorpack.validate(pack).valid
    pack["progression"] = {"protocol": "service.progression/2", "achievements": [], "anything": 1}
    (violation,) = creatorpack.validate(pack).violations
    assert (violation.pointer, violation.code) == ("/progression/anything", "additional-property")
    pack["progression"] = {"protocol": "service.progression/9"}
    (violation,) = creatorpack.validate(pack).violations
    assert (violation.pointer, violation.code) == ("/progression/protocol", "enum")


def test_bindings_by_role() -> None:
    pack = example("0.5", "minimal")
    pack["presentation"] = {
        "bindings": [
            {"role": "background", "asset_id": "bg", "extra": 1},
            {"role": "character", "actor_id": "x", "performance": {"reactions": {"grin": {}}}},
        ]
    }
    got = sorted((v.pointer, v.code) for v in creatorpack.validate(pack).violations)
    assert got == [
        ("/presentation/bindings/0/extra", "additional-property"),
        ("/presentation/bindings/1/performance/reactions/grin", "invalid-property-name"),
    ]
