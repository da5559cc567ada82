"""The condition grammar's semantics: comparisons, membership, observed answers, groups."""

from __future__ import annotations

from types import MappingProxyType
from typing import Any

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from creatorpack.contract.conditions import leaves, parse
from creatorpack.play._pool import pool_of
from creatorpack.play._typed import shape_of
from creatorpack.play.conditions import (
    MISSING,
    compile_condition,
    expression,
    generate_all,
    generate_function,
    json_equal,
    parse_pointer,
    resolve,
    sub_condition,
)

STATE: dict[str, Any] = {
    "trust": 3,
    "lit": True,
    "items": ["key", "map"],
    "name": "harbour master",
    "flags": {"met": True, "a/b": 1, "t~x": 2},
    "ratio": 0.5,
    "list": [10, 20],
}


def holds(condition: dict[str, Any], answers: dict[str, Any] | None = None, **kwargs: Any) -> bool:
    return compile_condition(condition, **kwargs)(STATE, answers or {})


@pytest.mark.parametrize(
    ("condition", "expected"),
    [
        ({"op": "literal", "value": True}, True),
        ({"op": "literal", "value": False}, False),
        ({"op": "eq", "path": "/trust", "value": 3}, True),
        ({"op": "eq", "path": "/trust", "value": 3.0}, True),
        ({"op": "eq", "path": "/lit", "value": 1}, False),  # true is not 1
        ({"op": "eq", "path": "/flags", "value": {"met": True, "a/b": 1, "t~x": 2}}, True),
        ({"op": "eq", "path": "/flags/met", "value": True}, True),
        ({"op": "eq", "path": "/flags/a~1b", "value": 1}, True),
        ({"op": "eq", "path": "/flags/t~0x", "value": 2}, True),
        ({"op": "eq", "path": "/list/1", "value": 20}, True),
        ({"op": "eq", "path": "/list/01", "value": 20}, False),
        ({"op": "ne", "path": "/trust", "value": 4}, True),
        ({"op": "ne", "path": "/missing", "value": 4}, False),  # a missing path makes every comparison false
        ({"op": "eq", "path": "/missing", "value": None}, False),
        ({"op": "gt", "path": "/trust", "value": 2}, True),
        ({"op": "gt", "path": "/trust", "value": 3}, False),
        ({"op": "gte", "path": "/trust", "value": 3}, True),
        ({"op": "lt", "path": "/ratio", "value": 1}, True),
        ({"op": "lte", "path": "/trust", "value": 2}, False),
        ({"op": "gt", "path": "/lit", "value": 0}, False),  # numbers only
        ({"op": "gt", "path": "/name", "value": "a"}, False),
        ({"op": "gt", "path": "/trust", "value": "1"}, False),
        ({"op": "gt", "path": "/trust", "value": True}, False),
        ({"op": "contains", "path": "/items", "value": "key"}, True),
        ({"op": "contains", "path": "/items", "value": "rope"}, False),
        ({"op": "contains", "path": "/name", "value": "master"}, True),
        ({"op": "contains", "path": "/name", "value": 3}, False),
        ({"op": "contains", "path": "/trust", "value": 3}, False),
        ({"op": "contains", "path": "/missing", "value": 3}, False),
        ({"op": "eq", "path": "trust", "value": 3}, False),  # not a JSON Pointer: never resolves
        (
            {"op": "all", "conditions": [{"op": "literal", "value": True}, {"op": "gt", "path": "/trust", "value": 1}]},
            True,
        ),
        (
            {"op": "all", "conditions": [{"op": "literal", "value": True}, {"op": "gt", "path": "/trust", "value": 9}]},
            False,
        ),
        (
            {
                "op": "any",
                "conditions": [{"op": "literal", "value": False}, {"op": "eq", "path": "/lit", "value": True}],
            },
            True,
        ),
        ({"op": "not", "condition": {"op": "literal", "value": True}}, False),
    ],
)
def test_semantics(condition: dict[str, Any], expected: bool) -> None:
    assert holds(condition) is expected


def test_observed_uses_the_latest_answer() -> None:
    asked = {"op": "observed", "id": "helped", "value": True}
    chosen = {"op": "observed", "id": "way", "value": "north"}
    assert holds(asked) is False  # unanswered
    assert holds(asked, {"helped": True}) is True
    assert holds(asked, {"helped": False}) is False
    assert holds(asked, {"helped": "true"}) is False
    assert holds(chosen, {"way": "north"}) is True
    assert holds(chosen, {"way": "south"}) is False


def test_sets_compare_without_order_when_the_schema_says_set() -> None:
    condition = {"op": "eq", "path": "/items", "value": ["map", "key"]}
    assert holds(condition) is False
    assert holds(condition, set_paths=frozenset({"/items"})) is True


def test_short_circuit() -> None:
    calls: list[str] = []

    class Spy(dict[str, Any]):
        def __contains__(self, key: object) -> bool:
            calls.append(str(key))
            return super().__contains__(key)

    condition = {"op": "any", "conditions": [{"op": "literal", "value": True}, {"op": "eq", "path": "/x", "value": 1}]}
    assert compile_condition(condition)(Spy(x=1), {})
    assert calls == []


def test_dependencies_are_recorded() -> None:
    compiled = compile_condition(
        {
            "op": "all",
            "conditions": [
                {"op": "gt", "path": "/trust", "value": 1},
                {"op": "not", "condition": {"op": "contains", "path": "/flags/met", "value": "x"}},
                {"op": "observed", "id": "helped", "value": True},
            ],
        }
    )
    assert compiled.state_keys == {"trust", "flags"}
    assert compiled.observations == {"helped"}


def test_pointers_and_resolution() -> None:
    assert parse_pointer("") == ()
    assert parse_pointer("/a~1b/c~0d") == ("a/b", "c~d")
    assert parse_pointer("a") is None
    assert resolve(STATE, ("flags", "met")) is True
    assert resolve(STATE, ("trust", "x")) is MISSING
    assert resolve(STATE, ("list", "5")) is MISSING


def test_sub_condition() -> None:
    when = {
        "op": "all",
        "conditions": [
            {"op": "literal", "value": True},
            {"op": "any", "conditions": [{"op": "eq", "path": "/a", "value": 1}]},
        ],
    }
    assert sub_condition(when, "") is when
    assert sub_condition(when, "/conditions/1/conditions/0") == {"op": "eq", "path": "/a", "value": 1}
    assert sub_condition(when, "/conditions/2") is None
    assert sub_condition(when, "/conditions/0/conditions/0") is None
    assert sub_condition(when, "/condition/0") is None


_json = st.recursive(
    st.none() | st.booleans() | st.integers(-5, 5) | st.floats(-5, 5, allow_nan=False) | st.text(max_size=3),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=2), inner, max_size=3),
    max_leaves=8,
)


@given(_json, _json)
def test_json_equal_is_symmetric_and_reflexive(left: Any, right: Any) -> None:
    assert json_equal(left, left)
    assert json_equal(left, right) == json_equal(right, left)


@given(_json, _json)
def test_ne_is_the_negation_of_eq_when_the_path_exists(state_value: Any, value: Any) -> None:
    state = {"v": state_value}
    eq = compile_condition({"op": "eq", "path": "/v", "value": value})(state, {})
    ne = compile_condition({"op": "ne", "path": "/v", "value": value})(state, {})
    assert eq != ne


_leaf = st.one_of(
    st.builds(
        lambda op, path, value: {"op": op, "path": path, "value": value},
        st.sampled_from(["eq", "ne", "gt", "gte", "lt", "lte", "contains"]),
        st.sampled_from(["/trust", "/lit", "/items", "/name", "/flags/met", "/flags", "/list/0", "/missing", "x", ""]),
        _json,
    ),
    st.builds(
        lambda i, v: {"op": "observed", "id": i, "value": v},
        st.sampled_from(["helped", "way"]),
        st.booleans() | st.sampled_from(["north", "south"]),
    ),
    st.builds(lambda v: {"op": "literal", "value": v}, st.booleans()),
)
_conditions = st.recursive(
    _leaf,
    lambda inner: (
        st.builds(
            lambda op, cs: {"op": op, "conditions": cs},
            st.sampled_from(["all", "any"]),
            st.lists(inner, min_size=1, max_size=3),
        )
        | st.builds(lambda c: {"op": "not", "condition": c}, inner)
    ),
    max_leaves=8,
)
_answers = st.fixed_dictionaries({}, optional={"helped": st.booleans(), "way": st.sampled_from(["north", "south", 1])})


@given(_conditions, _answers)
def test_generated_code_agrees_with_closures(condition: dict[str, Any], answers: dict[str, Any]) -> None:
    sets = frozenset({"/items"})
    fast = compile_condition(condition, set_paths=sets)
    slow = compile_condition(condition, set_paths=sets, generate=False)
    assert fast.evaluate is not slow.evaluate
    assert fast(STATE, answers) == slow(STATE, answers)


def test_deep_conditions_fall_back_to_closures() -> None:
    condition: dict[str, Any] = {"op": "literal", "value": True}
    for _ in range(300):
        condition = {"op": "not", "condition": condition}
    assert compile_condition(condition)(STATE, {}) is True


# Values that `==` alone mistakes (True == 1, False == 0.0), that no literal writes (inf, nan), and big ints.
_tricky = st.sampled_from([0, 1, 0.0, 1.0, -0.0, -1, 2, 2.5, 2**70, float("inf"), float("nan"), True, False, None, ""])
_value = st.one_of(_tricky, _json)
_member = st.one_of(
    _value,
    st.dictionaries(st.sampled_from(["met", "a/b", "0", "x"]), _value, max_size=4),
    st.lists(_value, max_size=3),
)
_states = st.dictionaries(
    st.sampled_from(["trust", "lit", "items", "name", "flags", "list", "deep", ""]),
    st.one_of(_member, st.dictionaries(st.sampled_from(["x", "0"]), _member, max_size=2)),
    max_size=8,
)
_paths = st.sampled_from(
    [
        "/trust",
        "/lit",
        "/items",
        "/name",
        "/",  # the member named ""
        "/flags/met",
        "/flags/a~1b",
        "/flags/0",
        "/list/0",
        "/list/01",
        "/deep/x/met",
        "/deep/0/0",
        "/missing",
        "/missing/x",
        "",  # the whole state
        "x",  # no JSON Pointer
    ]
)
_any_leaf = st.one_of(
    st.builds(
        lambda op, path, value: {"op": op, "path": path, "value": value},
        st.sampled_from(["eq", "ne", "gt", "gte", "lt", "lte", "contains"]),
        _paths,
        _value,
    ),
    st.builds(lambda i, v: {"op": "observed", "id": i, "value": v}, st.sampled_from(["helped", "way"]), _value),
)
_any_condition = st.recursive(
    _any_leaf,
    lambda inner: (
        st.builds(
            lambda op, cs: {"op": op, "conditions": cs}, st.sampled_from(["all", "any"]), st.lists(inner, max_size=3)
        )
        | st.builds(lambda c: {"op": "not", "condition": c}, inner)
    ),
    max_leaves=6,
)
_any_answers = st.dictionaries(st.sampled_from(["helped", "way"]), _value, max_size=2)


def _cmp(op: str, path: str, value: Any) -> dict[str, Any]:
    return {"op": op, "path": path, "value": value}


@settings(max_examples=800)
@given(_any_condition, _states, _any_answers)
@example(_cmp("eq", "/lit", 1), {"lit": True}, {})  # True == 1, but true is not 1
@example(_cmp("eq", "/lit", 0.0), {"lit": False}, {})
@example(_cmp("ne", "/lit", 1.0), {"lit": True}, {})
@example(_cmp("ne", "/lit", 0), {"lit": False}, {})
@example(_cmp("ne", "/missing", 5), {}, {})  # a missing path makes ne false too
@example(_cmp("ne", "/missing", None), {}, {})
@example(_cmp("eq", "/missing", None), {"missing": None}, {})
@example(_cmp("ne", "/flags/met", "x"), {"flags": {}}, {})
@example(_cmp("gt", "/lit", 0), {"lit": True}, {})  # order only between numbers
@example(_cmp("lt", "/name", 5), {"name": "a"}, {})
@example(_cmp("contains", "/flags", "met"), {"flags": {"met": True}}, {})  # an object contains nothing
@example(_cmp("eq", "/flags/met", True), {"flags": "met"}, {})  # through a string, a list, nothing
@example(_cmp("eq", "/list/0/met", True), {"list": [{"met": True}]}, {})
@example(_cmp("eq", "/deep/x/met", 1), {"deep": {"x": [1]}}, {})
@example(_cmp("ne", "/deep/x/met", 1), {"deep": {}}, {})
@example({"op": "observed", "id": "helped", "value": 1}, {}, {"helped": True})
@example({"op": "observed", "id": "way", "value": "north"}, {}, {"way": ["north"]})
def test_generated_code_agrees_with_closures_on_any_json_state(
    condition: dict[str, Any], state: dict[str, Any], answers: dict[str, Any]
) -> None:
    """Any JSON values where the schema expects others (a state built by hand), deep paths through lists and scalars."""
    sets = frozenset({"/items", "/flags/met"})
    expected = compile_condition(condition, set_paths=sets, generate=False)(state, answers)
    assert compile_condition(condition, set_paths=sets)(state, answers) is expected
    assert generate_all([parse(condition)], sets)(state, answers) == (expected,)
    tree = parse(condition)  # its code reading its literals from a pool's tuple (play/_pool.py):
    assert generate_function(tree, sets, None, None, pool_of(leaves(tree)))(state, answers) is expected


@pytest.mark.parametrize(
    ("condition", "code"),
    [
        ({"op": "gte", "path": "/c", "value": 5}, "('c' in s and type(v := s['c']) in _N and v >= 5)"),
        ({"op": "eq", "path": "/c", "value": 5}, "('c' in s and s['c'] == 5)"),
        ({"op": "ne", "path": "/c", "value": 5}, "('c' in s and s['c'] != 5)"),
        ({"op": "eq", "path": "/c", "value": 1}, "('c' in s and (v := s['c']) == 1 and v is not True)"),
        ({"op": "ne", "path": "/c", "value": 0.0}, "('c' in s and ((v := s['c']) != 0.0 or v is False))"),
        ({"op": "eq", "path": "/n", "value": "x"}, "('n' in s and s['n'] == 'x')"),
        ({"op": "contains", "path": "/l", "value": "x"}, "('l' in s and type(v := s['l']) in _LS and 'x' in v)"),
        (
            {"op": "eq", "path": "/f/m", "value": True},
            "((v := (w.get('m', _M) if type(w := s.get('f', _M)) is dict else _r(w, ('m',)))) is not _M and v is True)",
        ),
        ({"op": "observed", "id": "o", "value": True}, "('o' in a and a['o'] is True)"),
        ({"op": "observed", "id": "q", "value": "x"}, "('q' in a and a['q'] == 'x')"),
    ],
)
def test_common_leaves_are_short_code(condition: dict[str, Any], code: str) -> None:
    """A leaf's cost is mostly reading its code (a pack's thousands of functions do not stay in the cache).

    A top-level member is tested with ``in`` and read by subscript; ``==`` is left to tell numbers
    and strings apart where it can (not 0 and 1, which a bool equals); a nested path is read
    inline while it goes through dicts, with no constants, so equal conditions share one function.
    """
    constants: list[Any] = []
    assert expression(parse(condition), frozenset(), constants) == code
    assert not constants


# Typed code: a shape that holds /trust (integer), /lit (boolean), /items (a set), /flags (an object) and /flags/met.
_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "trust": {"type": "integer", "minimum": 0, "maximum": 9},
        "lit": {"type": "boolean"},
        "items": {"type": "array", "items": {"enum": ["key", "map"]}, "uniqueItems": True},
        "name": {"enum": ["a", "b"]},  # a type typed code does not know: read as before
        "flags": {"type": "object", "properties": {"met": {"type": "boolean"}, "x": {"type": "integer"}}},
        "deep": {"type": "object", "properties": {"x": {"type": "object", "properties": {}}}},
    },
}
_SHAPE = shape_of(_SCHEMA, [{"trust": 0, "lit": False, "items": [], "name": "a", "flags": {"met": False}, "deep": {}}])
_fitting = st.fixed_dictionaries(
    {
        "trust": st.integers(-5, 2**70) | st.sampled_from([0, 1, 0.0, 1.0, -0.0, 2.5, float("inf"), float("nan")]),
        "lit": st.booleans(),
        "items": st.lists(_value, max_size=3),
        "flags": st.fixed_dictionaries({"met": st.booleans()}, optional={"x": _value, "0": _member}),
        "deep": st.dictionaries(st.sampled_from(["x", "0"]), _member, max_size=2),
    },
    optional={"name": _value, "list": _member, "": _member},
)


def test_the_shape_holds_what_every_initial_state_has_of_the_types_it_knows() -> None:
    assert dict(_SHAPE.paths) == {
        ("trust",): "integer",
        ("lit",): "boolean",
        ("items",): "array",
        ("flags",): "object",
        ("flags", "met"): "boolean",
        ("deep",): "object",
    }
    assert shape_of(_SCHEMA, [{"trust": 1}, {"lit": True}]).paths == {}  # in one entry's state, not the other's
    assert shape_of(_SCHEMA, []).paths == {}


@pytest.mark.parametrize(
    "state",
    [
        {"trust": 1, "lit": True, "items": [], "flags": {}, "deep": {}},  # /flags/met missing
        {"lit": True, "items": [], "flags": {"met": True}, "deep": {}},  # /trust missing
        {"trust": True, "lit": True, "items": [], "flags": {"met": True}, "deep": {}},  # a bool is no integer here
        {"trust": "1", "lit": True, "items": [], "flags": {"met": True}, "deep": {}},
        {"trust": 1, "lit": 1, "items": [], "flags": {"met": True}, "deep": {}},  # 1 is no bool
        {"trust": 1, "lit": True, "items": ("key",), "flags": {"met": True}, "deep": {}},  # a tuple is no list
        {"trust": 1, "lit": True, "items": "key", "flags": {"met": True}, "deep": {}},
        {"trust": 1, "lit": True, "items": [], "flags": [True], "deep": {}},
        {"trust": 1, "lit": True, "items": [], "flags": MappingProxyType({"met": True}), "deep": {}},
        MappingProxyType({"trust": 1, "lit": True, "items": [], "flags": {"met": True}, "deep": {}}),
        [],
    ],
)
def test_a_state_fits_only_with_every_member_of_the_shape_of_its_type(state: Any) -> None:
    assert not _SHAPE.fits(state)
    assert _SHAPE.fits({"trust": 1.5, "lit": False, "items": [1], "flags": {"met": True, "y": 0}, "deep": {}, "z": 0})


@settings(max_examples=800)
@given(_any_condition, _fitting, _any_answers)
@example(_cmp("eq", "/trust", 1), {"trust": 1.0, "lit": True, "items": [], "flags": {"met": True}, "deep": {}}, {})
@example(_cmp("ne", "/trust", 0), {"trust": -0.0, "lit": True, "items": [], "flags": {"met": True}, "deep": {}}, {})
@example(_cmp("gt", "/lit", 0), {"trust": 1, "lit": True, "items": [], "flags": {"met": True}, "deep": {}}, {})
@example(_cmp("eq", "/lit", 1), {"trust": 1, "lit": True, "items": [], "flags": {"met": True}, "deep": {}}, {})
@example(_cmp("ne", "/trust", None), {"trust": 1, "lit": True, "items": [], "flags": {"met": True}, "deep": {}}, {})
@example(
    _cmp("contains", "/items", 1), {"trust": 1, "lit": True, "items": [True], "flags": {"met": False}, "deep": {}}, {}
)
@example(
    _cmp("contains", "/flags", "met"), {"trust": 1, "lit": True, "items": [], "flags": {"met": True}, "deep": {}}, {}
)
@example(
    _cmp("eq", "/items", ["map", "key"]),
    {"trust": 1, "lit": True, "items": ["key", "map"], "flags": {"met": True}, "deep": {}},
    {},
)
@example(
    _cmp("lt", "/trust", 2), {"trust": float("nan"), "lit": True, "items": [], "flags": {"met": True}, "deep": {}}, {}
)
def test_typed_code_agrees_with_closures_on_states_that_fit(
    condition: dict[str, Any], state: dict[str, Any], answers: dict[str, Any]
) -> None:
    """Typed code skips the presence and type tests the shape makes needless; where the shape holds, nothing changes."""
    assert _SHAPE.fits(state)
    sets = frozenset({"/items", "/flags/met"})
    expected = compile_condition(condition, set_paths=sets, generate=False)(state, answers)
    assert generate_function(parse(condition), sets, None, _SHAPE.paths)(state, answers) is expected
    tree = parse(condition)
    assert generate_function(tree, sets, None, _SHAPE.paths, pool_of(leaves(tree)))(state, answers) is expected


@settings(max_examples=400)
@given(_any_condition, _states, _any_answers)
def test_typed_code_is_used_only_on_states_that_fit(
    condition: dict[str, Any], state: dict[str, Any], answers: dict[str, Any]
) -> None:
    """On any JSON state: where the shape fits, typed code is exact; where not, the engine takes the generic code."""
    sets = frozenset({"/items", "/flags/met"})
    expected = compile_condition(condition, set_paths=sets, generate=False)(state, answers)
    if _SHAPE.fits(state):
        assert generate_function(parse(condition), sets, None, _SHAPE.paths)(state, answers) is expected


@pytest.mark.parametrize(
    ("condition", "code"),
    [
        ({"op": "gte", "path": "/trust", "value": 5}, "(s['trust'] >= 5)"),
        ({"op": "eq", "path": "/trust", "value": 1}, "(s['trust'] == 1)"),
        ({"op": "ne", "path": "/trust", "value": 5}, "(s['trust'] != 5)"),
        ({"op": "lt", "path": "/lit", "value": 5}, "False"),
        ({"op": "eq", "path": "/flags/met", "value": True}, "(s['flags']['met'] is True)"),
        ({"op": "contains", "path": "/items", "value": "key"}, "('key' in s['items'])"),
        ({"op": "gte", "path": "/name", "value": 5}, "('name' in s and type(v := s['name']) in _N and v >= 5)"),
    ],
)
def test_typed_leaves_read_with_no_presence_or_type_test(condition: dict[str, Any], code: str) -> None:
    constants: list[Any] = []
    assert expression(parse(condition), frozenset(), constants, _SHAPE.paths) == code
    assert not constants
