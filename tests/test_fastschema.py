"""The quick schema behind a valid pack's yes/no gives the shipped schema's verdict on every condition."""

from __future__ import annotations

import copy
import functools
from pathlib import Path
from typing import Any

import jsonschema_rs
import pytest
from hypothesis import given
from hypothesis import strategies as st

from creatorpack.contract import _fastschema, schema
from creatorpack.contract.validation import Validator

_EXAMPLES = Path(__file__).resolve().parent.parent / "examples"

_CONDITION = {"$ref": "https://creatorpack.dev/schema/common.json#/$defs/Condition"}


@functools.cache
def _validators() -> tuple[Any, Any]:
    """(shipped, quick) validators of one condition, from the 0.5 bundle."""
    shipped = schema.bundle("0.5")
    quick = _fastschema.for_is_valid(shipped)
    assert quick is not shipped
    options = jsonschema_rs.RegexOptions()
    return tuple(  # type: ignore[return-value]
        jsonschema_rs.validator_for(
            {"$id": bundle["$id"], **_CONDITION, "$defs": bundle["$defs"]}, pattern_options=options
        )
        for bundle in (shipped, quick)
    )


_OPS = st.sampled_from(["eq", "ne", "gt", "gte", "lt", "lte", "contains", "all", "any", "observed", "not", "literal"])
_ODD_OPS = st.sampled_from(["", "and", "EQ", 1, None, ["eq"]])
_SCALARS: st.SearchStrategy[Any] = st.none() | st.booleans() | st.integers(-2, 2)
_VALUES: st.SearchStrategy[Any] = _SCALARS | st.sampled_from(["", "x", "a.b"]) | st.just([])
_EXTRA = st.sampled_from(["value", "path", "id", "conditions", "condition", "note"])


def _conditions(children: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    members = st.fixed_dictionaries(
        {"op": _OPS | _ODD_OPS},
        optional={
            "path": _VALUES,
            "value": _VALUES,
            "id": st.sampled_from(["seen", "", "Bad Id", 3]),
            "conditions": st.lists(children, max_size=3) | children,
            "condition": children,
            "note": _VALUES,
        },
    )
    return members | st.lists(children, max_size=2) | _VALUES


_TREES = st.recursive(_VALUES, _conditions, max_leaves=10)


@st.composite
def _shaped(draw: st.DrawFn) -> Any:
    """A condition that is valid or nearly so: each op with its members, then maybe one member dropped or added."""
    op = draw(_OPS)
    node: dict[str, Any] = {"op": op}
    if op in ("all", "any"):
        node["conditions"] = draw(st.lists(_shaped() | _TREES, max_size=3))
    elif op == "not":
        node["condition"] = draw(_shaped() | _TREES)
    elif op == "observed":
        node |= {"id": draw(st.sampled_from(["seen", "x1"])), "value": draw(st.booleans() | st.just("yes"))}
    elif op == "literal":
        node["value"] = draw(st.booleans())
    else:
        node |= {"path": "state.n", "value": draw(_VALUES)}
    if draw(st.booleans()):
        drop = draw(st.sampled_from(sorted(node)))
        if draw(st.booleans()):
            del node[drop]
        else:
            node[draw(_EXTRA)] = draw(_VALUES)
    return node


@given(_shaped() | _TREES)
def test_the_quick_schema_gives_the_shipped_verdict_on_every_condition(condition: Any) -> None:
    shipped, quick = _validators()
    assert quick.is_valid(condition) == shipped.is_valid(condition)


def test_the_shipped_chain_is_rewritten_in_every_version() -> None:
    for version in (*schema.SUPPORTED_VERSIONS, None):
        shipped = schema.bundle(version)
        quick = _fastschema.for_is_valid(shipped)
        assert quick["$defs"]["common.json"]["$defs"]["Condition"]["anyOf"]
        assert shipped["$defs"]["common.json"]["$defs"]["Condition"]["if"] == {"type": "object"}  # copy, not edit


def _without_chain_link(defs: dict[str, Any]) -> None:
    defs["Condition"]["then"]["else"] = defs["Condition"]["then"]["else"]["else"]  # all/any now hit the final enum


def _overlapping(defs: dict[str, Any]) -> None:
    defs["Condition"]["then"]["if"]["properties"]["op"]["enum"].append("all")  # the chain's order matters


def _unpinned(defs: dict[str, Any]) -> None:
    del defs["Comparison"]["properties"]["op"]  # a comparison branch would accept other ops


def _untyped(defs: dict[str, Any]) -> None:
    del defs["LiteralCondition"]["type"]


@pytest.mark.parametrize("change", [_without_chain_link, _overlapping, _unpinned, _untyped])
def test_a_chain_an_any_of_would_not_match_is_left_as_shipped(change: Any) -> None:
    shipped = copy.deepcopy(schema.bundle("0.5"))
    change(shipped["$defs"]["common.json"]["$defs"])
    assert _fastschema.for_is_valid(shipped) is shipped


def test_a_valid_pack_is_answered_by_the_quick_schema_and_compiles_only_that() -> None:
    validator = Validator()
    text = (_EXAMPLES / "0.5" / "minimal.json").read_bytes()
    assert validator.validate(text).valid
    assert set(validator._compiled) == {("0.5", False)}
    broken = text.replace(b'"revision": 1', b'"revision": "one"', 1)
    assert broken != text
    assert [v.code for v in validator.validate(broken).violations]
    assert set(validator._compiled) == {("0.5", False), ("0.5", True)}
