"""The generated effects check a member's type once, at the top, where every rule writing it agrees on it.

``_effects._generate`` leaves the type test out of each rule for the members that every rule
writing them runs on the straight-line path with the same type (``_settled_kinds``), and checks
those members once, before any rule; a state where one of them has another type, or is missing,
runs the function generated with a test in each rule. Both must do what the plain path does
(``plain_runner``: effect by effect), on states inside and outside the schema's bounds.
"""

from __future__ import annotations

from typing import Any

from hypothesis import example, given, settings
from hypothesis import strategies as st

from creatorpack._json import copy_json
from creatorpack.play import _effects
from creatorpack.play.state import CompiledEffect

_SCHEMA = {
    "type": "object",
    "properties": {
        "n": {"type": "integer", "minimum": 0, "maximum": 5},
        "m": {"type": "integer", "minimum": -3, "maximum": 3},
        "s": {"type": "array", "items": {"enum": ["a", "b", "c"]}},
        "o": {"type": "object", "properties": {"k": {"type": "integer", "minimum": 0, "maximum": 2}}},
    },
}

_increment = st.builds(
    lambda path, by, limit, overflow: {
        "op": "increment",
        "path": path,
        "by": by,
        **({"limit": limit} if limit is not None else {}),
        **({"overflow": overflow} if overflow else {}),
    },
    st.sampled_from(["/n", "/m", "/n", "/m", "/o/k"]),
    st.integers(-4, 4) | st.just(1.0),  # 1.0: the plain path, which makes the member a float
    st.none() | st.integers(-4, 6),
    st.sampled_from([None, "clamp", "reject"]),
)
_set_effect = st.builds(
    lambda op, value: {"op": op, "path": "/s", "value": value},
    st.sampled_from(["add", "remove"]),
    st.sampled_from(["a", "b", "c"]),
)
_state = st.fixed_dictionaries(
    {},
    optional={
        "n": st.integers(-8, 12) | st.just("2"),  # beyond the bounds too: a state built by hand is not checked
        "m": st.integers(-9, 9) | st.just(None),
        "s": st.lists(st.sampled_from("abcz"), unique=True) | st.just(3),
        "o": st.fixed_dictionaries({"k": st.integers(0, 2)}),
    },
)


def _compiled(rules: list[list[dict[str, Any]]]) -> list[_effects.EffectRule]:
    compiled = []
    for position, effects in enumerate(rules):
        parts = tuple(CompiledEffect(_SCHEMA, e) for e in effects)
        compiled.append((f"r{position}", position, parts, tuple(dict.fromkeys(e.key for e in parts if e.key))))
    return compiled


def _agree(rules: list[list[dict[str, Any]]], state: dict[str, Any], values: list[bool]) -> bool:
    """Run the generated function and the plain path on ``state``; whether the generated one fell back."""
    compiled = _compiled(rules)
    run = _effects._generate(compiled)
    assert run.__code__.co_filename == "<effects>"  # generated, not the plain runner it falls back to
    fallback = run.__globals__["_typed"]
    fell_back: list[bool] = []
    if fallback is not None:

        def recorded(*args: Any) -> None:
            fell_back.append(True)
            fallback(*args)

        run.__globals__["_typed"] = recorded
    fast_state, slow_state = copy_json(state), copy_json(state)
    fast_rejected: list[dict[str, Any]] = []
    slow_rejected: list[dict[str, Any]] = []
    run(values, fast_state, frozenset(), fast_rejected)
    _effects.plain_runner(compiled)(values, slow_state, frozenset(), slow_rejected)
    assert fast_state == slow_state
    assert [type(v) for v in fast_state.values()] == [type(v) for v in slow_state.values()]  # 3 is not 3.0
    assert fast_rejected == slow_rejected
    return bool(fell_back)


@settings(max_examples=400, deadline=None)
@given(
    rules=st.lists(st.lists(_increment | _set_effect, min_size=1, max_size=3), min_size=1, max_size=6),
    state=_state,
    values=st.lists(st.booleans(), min_size=6, max_size=6),
)
@example(  # a plain-path rule between two straight-line ones makes /n a float: the third must refuse it
    rules=[[{"op": "increment", "path": "/n", "by": 1}], [{"op": "increment", "path": "/n", "by": 1.0}]] * 2,
    state={"n": 1},
    values=[True] * 6,
)
@example(  # below the minimum, going up: clamped to the minimum, not to the maximum
    rules=[[{"op": "increment", "path": "/n", "by": 1}], [{"op": "increment", "path": "/m", "by": -1}]],
    state={"n": -5, "m": 7},
    values=[True] * 6,
)
@example(  # a rejection below the minimum, and one above the maximum
    rules=[
        [{"op": "increment", "path": "/n", "by": -1, "overflow": "reject"}],
        [{"op": "increment", "path": "/m", "by": 2, "overflow": "reject"}],
    ],
    state={"n": 0, "m": 3},
    values=[True] * 6,
)
@example(  # /n is read two ways, so each rule tests it: here it is a string
    rules=[[{"op": "increment", "path": "/n", "by": 1}], [{"op": "increment", "path": "/n", "by": 1.0}]],
    state={"n": "2"},
    values=[True] * 6,
)
def test_generated_effects_with_types_checked_once_agree_with_the_plain_path(
    rules: list[list[dict[str, Any]]], state: dict[str, Any], values: list[bool]
) -> None:
    _agree(rules, state, values[: len(rules)])


def test_a_member_of_another_type_runs_the_function_that_tests_each_rule() -> None:
    rules: list[list[dict[str, Any]]] = [
        [{"op": "increment", "path": "/n", "by": 2}],
        [{"op": "add", "path": "/s", "value": "b"}],
    ]
    assert not _agree(rules, {"n": 1, "s": ["a"]}, [True, True])  # the types agree: checked once
    assert _agree(rules, {"n": "1", "s": ["a"]}, [True, True])  # a string: each rule tests its own
    assert _agree(rules, {"s": ["a"]}, [True, True])  # missing
    assert _agree(rules, {"n": 1, "s": "a"}, [True, False])


def test_members_written_on_the_plain_path_are_not_settled() -> None:
    rules = _compiled(
        [
            [{"op": "increment", "path": "/n", "by": 1}],
            [{"op": "increment", "path": "/n", "by": 1.0}],  # the plain path
            [{"op": "increment", "path": "/m", "by": 1}, {"op": "add", "path": "/m", "value": "a"}],  # two types
            [{"op": "add", "path": "/s", "value": "a"}],
            [{"op": "increment", "path": "/o/k", "by": 1}],  # a nested path: the plain path, under /o
        ]
    )
    assert _effects._settled_kinds(rules) == {"s": list}


_set_state = st.fixed_dictionaries(
    {
        "n": st.integers(-1, 6),
        "s": st.lists(st.sampled_from(["a", "b", "c", "z"]), max_size=4)  # duplicates too: a state built by hand
        | st.lists(st.sampled_from(["a", "b"]), unique=True).map(lambda members: [*members, ["c"]]),  # no key
    }
)


@settings(max_examples=300, deadline=None)
@given(
    rules=st.lists(st.lists(_set_effect | _increment, min_size=1, max_size=2), min_size=1, max_size=6),
    states=st.lists(_set_state, min_size=2, max_size=8),
)
def test_the_same_generated_effects_on_one_state_after_another_agree_with_the_plain_path(
    rules: list[list[dict[str, Any]]], states: list[dict[str, Any]]
) -> None:
    """What ``_add`` remembers from one state's sets is right for the next, and never shared between them."""
    compiled = _compiled(rules)
    run = _effects._generate(compiled)
    made: list[Any] = []
    for state in states:
        fast_state, slow_state = copy_json(state), copy_json(state)
        fast_rejected: list[dict[str, Any]] = []
        slow_rejected: list[dict[str, Any]] = []
        run([True] * len(compiled), fast_state, frozenset(), fast_rejected)
        _effects.plain_runner(compiled)([True] * len(compiled), slow_state, frozenset(), slow_rejected)
        assert fast_state == slow_state
        assert fast_rejected == slow_rejected
        made.append(fast_state["s"])
        fast_state["s"].append("a")  # whoever has the state may change it: nothing remembered may change with it
    assert len({id(members) for members in made}) == len(made)  # each state its own list
