"""Contract fidelity: rules the contract states are checked where it states them, and once.

- Visual anchors' ``reveal_when`` is a condition ("Places where conditions occur"), though the
  shape of ``visual_anchors`` is otherwise not shown.
- The ``id`` of a 0.4 (and ``service.progression/1``) ending is an Id (Convention 3).
- One mistake is one finding: a union that checks ``type`` and then selects a branch that checks
  it again must not report the same error twice.
- Readings that docs/contract-gaps.md records (numbers as doubles, the depth limit) hold.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Iterator
from typing import Any

import pytest

import creatorpack
from creatorpack.contract.validation import MAX_DEPTH, Validator

from .conftest import example, put

LITERAL: dict[str, Any] = {"op": "literal", "value": True}


def _found(pack: Any) -> list[tuple[str, str]]:
    return [(v.pointer, v.code) for v in creatorpack.validate(pack).violations]


# --- visual_anchors[].reveal_when is a condition (0.3 to 0.5) ---------------------------------


@pytest.mark.parametrize("version", ["0.3", "0.4", "0.5"])
def test_a_visual_anchors_reveal_when_with_an_unknown_op_is_reported_at_the_op(version: str) -> None:
    pack = example(version, "rich")
    pack["visual_anchors"] = [{"id": "a", "reveal_when": {"op": "zz"}}]
    text = json.dumps(pack, indent=1)
    (violation,) = creatorpack.validate(text).violations
    assert (violation.pointer, violation.code) == ("/visual_anchors/0/reveal_when/op", "unknown-op")
    assert violation.line is not None
    assert violation.column is not None
    assert text.splitlines()[violation.line - 1][violation.column - 1 :].startswith('"zz"')


@pytest.mark.parametrize("version", ["0.3", "0.4", "0.5"])
@pytest.mark.parametrize(
    ("reveal_when", "expected"),
    [
        (
            {"op": "all", "conditions": [{"op": "eq", "path": "/x"}]},
            ("/visual_anchors/1/reveal_when/conditions/0", "required"),
        ),
        (
            {"op": "not", "condition": {"op": "observed", "id": "1 bad", "value": True}},
            ("/visual_anchors/1/reveal_when/condition/id", "invalid-id"),
        ),
        ({"op": "literal", "value": True, "extra": 1}, ("/visual_anchors/1/reveal_when/extra", "additional-property")),
        ({"op": "literal", "value": "yes"}, ("/visual_anchors/1/reveal_when/value", "type")),
        ("always", ("/visual_anchors/1/reveal_when", "type")),
        (None, ("/visual_anchors/1/reveal_when", "type")),
        ({}, ("/visual_anchors/1/reveal_when", "required")),
    ],
)
def test_a_visual_anchors_reveal_when_is_checked_like_any_condition(
    version: str, reveal_when: Any, expected: tuple[str, str]
) -> None:
    pack = example(version, "minimal")
    pack["visual_anchors"] = [{"id": "fine", "reveal_when": LITERAL}, {"id": "a", "reveal_when": reveal_when}]
    assert _found(pack) == [expected]


@pytest.mark.parametrize("version", ["0.3", "0.4", "0.5"])
@pytest.mark.parametrize(
    "anchors",
    [
        "anything",
        5,
        None,
        {"reveal_when": {"op": "zz"}},  # not an array: the shape stays open
        [],
        [5, "x", None, ["nested", {"reveal_when": {"op": "zz"}}]],  # items that are not objects
        [{"id": "1 bad", "asset_ids": ["2 bad"], "anything": {"op": "zz"}}],  # no reveal_when
        [{"reveal_when": {"op": "any", "conditions": [LITERAL, {"op": "gte", "path": "/trust", "value": 1}]}}],
    ],
)
def test_visual_anchors_otherwise_stay_open(version: str, anchors: Any) -> None:
    pack = example(version, "minimal")
    pack["visual_anchors"] = anchors
    assert creatorpack.validate(pack).valid


def test_a_02_visual_anchor_is_not_checked() -> None:
    """0.2 defines no condition grammar (its condition is not shown): its visual anchors stay any value."""
    pack = example("0.2", "minimal")
    pack["visual_anchors"] = [{"id": "a", "reveal_when": {"op": "zz"}}]
    assert creatorpack.validate(pack).valid


# --- the id of a 0.4 / service.progression/1 ending is an Id ---------------------------------


def _progression_1(version: str, endings: list[Any]) -> dict[str, Any]:
    pack = example(version, "rich")
    if version == "0.5":
        pack["progression"] = {"protocol": "service.progression/1", "achievements": [], "endings": endings}
    else:
        pack["progression"]["endings"] = endings
    return pack


@pytest.mark.parametrize("version", ["0.4", "0.5"])
@pytest.mark.parametrize("bad", ["1 bad", "", "a" * 81, 5, None])
def test_an_ending_id_that_is_not_an_id_is_invalid_id(version: str, bad: Any) -> None:
    pack = _progression_1(version, [{"id": "fine", "when": LITERAL}, {"id": bad, "when": LITERAL}])
    code = "invalid-id" if isinstance(bad, str) else "type"
    assert _found(pack) == [("/progression/endings/1/id", code)]


@pytest.mark.parametrize("version", ["0.4", "0.5"])
def test_the_other_members_of_an_unshown_ending_stay_open(version: str) -> None:
    endings = [
        {"id": "e", "when": LITERAL, "badge_id": "1 bad", "artwork_asset_id": 5, "priority": "high", "more": {}},
        {"when": LITERAL},  # no id: nothing says an id is required here
        "not an object",
    ]
    assert creatorpack.validate(_progression_1(version, endings)).valid


# --- one mistake, one finding -----------------------------------------------------------------


@pytest.mark.parametrize(
    ("version", "pointer", "shown"),
    [
        *((v, "/runtime/rules/0", "rules[0]") for v in ("0.3", "0.4", "0.5")),
        *((v, "/progression/achievements/0", "achievements[0]") for v in ("0.4", "0.5")),
    ],
)
@pytest.mark.parametrize("value", ["x", 5, None, [], True])
def test_a_rule_or_achievement_that_is_not_an_object_is_one_type_finding(
    version: str, pointer: str, shown: str, value: Any
) -> None:
    pack = example(version, "rich")
    put(pack, pointer, value)
    (violation,) = creatorpack.validate(json.dumps(pack)).violations
    assert (violation.pointer, violation.code) == (pointer, "type")
    assert violation.message.startswith(f"{shown}: expected object, got ")


def _containers(node: Any, path: tuple[str | int, ...] = ()) -> Iterator[tuple[str | int, ...]]:
    """Every array item and every member whose value is an array or an object, outermost first."""
    if isinstance(node, dict):
        for key, child in node.items():
            if isinstance(child, dict | list):
                yield (*path, key)
            yield from _containers(child, (*path, key))
    elif isinstance(node, list):
        for index, child in enumerate(node):
            yield (*path, index)
            yield from _containers(child, (*path, index))


@pytest.mark.parametrize("version", ["0.2", "0.3", "0.4", "0.5"])
def test_no_wrong_type_anywhere_gives_two_identical_findings(version: str) -> None:
    """Every union of the shipped schemas checks a value's type once (one mistake, one finding)."""
    validator = Validator()
    pack = example(version, "rich")
    repeated: list[tuple[tuple[str | int, ...], list[tuple[str, str, str]]]] = []
    for path in list(_containers(pack)):
        parent: Any = pack
        for token in path[:-1]:
            parent = parent[token]
        kept = parent[path[-1]]
        parent[path[-1]] = 5
        findings = [(v.pointer, v.code, v.message) for v in validator.validate(pack).violations]
        parent[path[-1]] = kept
        twice = [finding for finding, count in Counter(findings).items() if count > 1]
        if twice:
            repeated.append((path, twice))
    assert repeated == []


# --- readings recorded in docs/contract-gaps.md (no behaviour change) --------------------------


def _with_crop_width(number: str) -> str:
    """The 0.5 example as text, with ``number`` written as the first crop's width (reader card 0's avatar)."""
    text = json.dumps(example("0.5", "rich"), indent=1)
    changed, count = re.subn(r'("crop": \{[^}]*"width": )[^,\s}]+', rf"\g<1>{number}", text, count=1)
    assert count == 1
    return changed


def test_numbers_are_read_as_doubles() -> None:
    text = json.dumps(example("0.5", "rich"), indent=1)
    almost_one = text.replace('"revision": 3,', '"revision": 1.0000000000000001,', 1)
    assert almost_one != text
    assert creatorpack.validate(almost_one).valid  # the double nearest it is 1: an integer
    assert creatorpack.validate(_with_crop_width("4.9e-324")).valid  # the least double above 0
    (violation,) = creatorpack.validate(_with_crop_width("1e-400")).violations
    assert (violation.pointer, violation.code) == ("/reader_cards/0/avatar/crop/width", "exclusive-minimum")
    assert violation.message == "width: 0.0 must be greater than 0"
    with pytest.raises(creatorpack.NotJSONError, match="overflows a double") as caught:
        creatorpack.validate(_with_crop_width("1e400"))
    assert caught.value.code == "invalid-json"


def test_a_condition_nested_past_the_depth_limit_is_limit_exceeded() -> None:
    pack = example("0.5", "minimal")
    condition: dict[str, Any] = LITERAL
    for _ in range(MAX_DEPTH):
        condition = {"op": "not", "condition": condition}
    pack["presentation"]["illustration_rules"] = [
        {"id": "r", "illustration_id": "i", "match": "any scene", "when": condition}
    ]
    with pytest.raises(creatorpack.LimitError) as caught:
        creatorpack.validate(json.dumps(pack))
    assert caught.value.code == "limit-exceeded"
