"""The finer index of what a condition reads: a turn re-evaluates only what a change can flip.

Soundness: every condition whose value differs between two states (or two answers) is among
those :class:`~creatorpack.play._watch.Watch` (or ``Heard``) names as stale. Gain: a move that
crosses none of a condition's thresholds, or a set change that leaves its member alone, skips it.
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from creatorpack import validate
from creatorpack.play import Engine, Turn
from creatorpack.play._watch import UNANSWERED, heard, watches
from creatorpack.play.conditions import compile_condition
from tests.test_reach_turns import random_pack

_numbers = st.one_of(st.integers(-4, 24), st.floats(-4, 24, allow_nan=False).map(lambda f: round(f * 2) / 2))
_int_atoms = st.builds(
    lambda op, value: {"op": op, "path": "/k", "value": value},
    st.sampled_from(["gt", "gte", "lt", "lte", "eq", "ne"]),
    _numbers,
)
_member_atoms = st.builds(lambda m: {"op": "contains", "path": "/k", "value": m}, st.sampled_from("abcd"))
_other_atoms = st.one_of(
    st.just({"op": "eq", "path": "/k", "value": ["a"]}),
    st.just({"op": "eq", "path": "/k", "value": "a"}),
    st.just({"op": "gte", "path": "/n/deep", "value": 2}),
    st.just({"op": "contains", "path": "/k", "value": 3}),
    st.just({"op": "gt", "path": "/other", "value": 5}),
)
_atoms = st.one_of(_int_atoms, _int_atoms, _member_atoms, _member_atoms, _other_atoms)
_conditions = st.recursive(
    _atoms,
    lambda inner: st.one_of(
        st.builds(lambda c: {"op": "not", "condition": c}, inner),
        st.builds(
            lambda op, cs: {"op": op, "conditions": cs},
            st.sampled_from(["all", "any"]),
            st.lists(inner, min_size=1, max_size=3),
        ),
    ),
    max_leaves=4,
)
_values = st.one_of(
    st.integers(-6, 26),
    st.integers(-6, 26),
    st.lists(st.sampled_from("abcd"), unique=True),
    st.lists(st.sampled_from("abcd"), unique=True),
    st.just("a"),
    st.just(True),
    st.just([1, "a"]),
)


@settings(max_examples=400, deadline=None)
@given(st.lists(_conditions, min_size=1, max_size=6), _values, _values)
def test_every_condition_a_member_change_flips_is_stale(conditions: list[Any], old: Any, new: Any) -> None:
    compiled = [compile_condition(c, set_paths=frozenset({"/k"})) for c in conditions]
    watch = watches(conditions).get("k")
    stale = set(watch.stale(old, new)) if watch is not None else set()
    rest = {"n": {"deep": 3}, "other": 6}
    for index, condition in enumerate(compiled):
        if condition({**rest, "k": old}, {}) != condition({**rest, "k": new}, {}):
            assert index in stale, (conditions[index], old, new)


_observed = st.builds(
    lambda ident, value: {"op": "observed", "id": ident, "value": value},
    st.sampled_from(["o", "p"]),
    st.one_of(st.booleans(), st.sampled_from(["x", "y", "z"]), st.sampled_from([0, 1, 1.0]), st.just(["x"])),
)
_answers = st.one_of(
    st.just(UNANSWERED), st.booleans(), st.sampled_from(["x", "y", "z"]), st.sampled_from([0, 1, 1.0]), st.just(["x"])
)


@settings(max_examples=400, deadline=None)
@given(st.lists(st.lists(_observed, min_size=1, max_size=3), min_size=1, max_size=5), _answers, _answers)
def test_every_condition_an_answer_change_flips_is_stale(groups: list[Any], old: Any, new: Any) -> None:
    conditions = [{"op": "any", "conditions": group} for group in groups]
    compiled = [compile_condition(c) for c in conditions]
    told = heard(conditions).get("o")
    stale = set(told.stale(old, new)) if told is not None else set()

    def answers(value: Any) -> dict[str, Any]:
        return {"p": "y"} if value is UNANSWERED else {"o": value, "p": "y"}

    for index, condition in enumerate(compiled):
        if condition({}, answers(old)) != condition({}, answers(new)):
            assert index in stale, (conditions[index], old, new)


@settings(max_examples=400, deadline=None)
@given(st.lists(_conditions, min_size=1, max_size=6), _values, _values)
def test_a_condition_left_out_for_its_value_keeps_it(conditions: list[Any], old: Any, new: Any) -> None:
    """With the values before, a condition whose crossed thresholds all push it towards its value is left out."""
    compiled = [compile_condition(c, set_paths=frozenset({"/k"})) for c in conditions]
    watch = watches([c.leaves for c in compiled], [c.signs for c in compiled]).get("k")
    rest = {"n": {"deep": 3}, "other": 6}
    before = [condition({**rest, "k": old}, {}) for condition in compiled]
    stale = set(watch.stale(old, new, before)) if watch is not None else set()
    for index, condition in enumerate(compiled):
        if condition({**rest, "k": new}, {}) != before[index]:
            assert index in stale, (conditions[index], old, new)


@settings(max_examples=400, deadline=None)
@given(
    st.lists(st.tuples(st.lists(_observed, min_size=1, max_size=3), st.booleans()), min_size=1, max_size=5),
    _answers,
    _answers,
)
def test_a_condition_left_out_for_its_answer_keeps_it(groups: list[Any], old: Any, new: Any) -> None:
    """The same for answers, with tests inside and outside a ``not``."""
    conditions = []
    for group, negated in groups:
        both = [{"op": "not", "condition": group[0]}, *group[1:]] if negated else group
        conditions.append({"op": "all" if negated else "any", "conditions": both})
    compiled = [compile_condition(c) for c in conditions]
    told = heard([c.leaves for c in compiled], [c.signs for c in compiled]).get("o")

    def answers(value: Any) -> dict[str, Any]:
        return {"p": "y"} if value is UNANSWERED else {"o": value, "p": "y"}

    before = [condition({}, answers(old)) for condition in compiled]
    stale = set(told.stale(old, new, before)) if told is not None else set()
    for index, condition in enumerate(compiled):
        if condition({}, answers(new)) != before[index]:
            assert index in stale, (conditions[index], old, new)


def test_a_change_towards_a_condition_s_value_skips_it() -> None:
    """The gain: a member going up past ``gt`` thresholds leaves out a condition that holds already."""
    compiled = [
        compile_condition({"op": "gt", "path": "/k", "value": 3}),
        compile_condition({"op": "not", "condition": {"op": "gt", "path": "/k", "value": 3}}),
    ]
    watch = watches([c.leaves for c in compiled], [c.signs for c in compiled])["k"]
    assert set(watch.stale(2, 5)) == {0, 1}
    assert set(watch.stale(2, 5, [True, True])) == {1}  # 0 holds already and can only come to hold
    assert set(watch.stale(2, 5, [False, False])) == {0}


def test_a_move_that_crosses_no_threshold_or_member_is_skipped() -> None:
    conditions: list[dict[str, Any]] = [
        {"op": "gte", "path": "/k", "value": 15},
        {"op": "all", "conditions": [{"op": "lt", "path": "/k", "value": 4}, {"op": "gt", "path": "/j", "value": 1}]},
        {"op": "eq", "path": "/k", "value": 7},
        {"op": "contains", "path": "/s", "value": "a"},
        {"op": "contains", "path": "/s", "value": "b"},
        {"op": "eq", "path": "/s", "value": ["a"]},
    ]
    watch, sets = watches(conditions)["k"], watches(conditions)["s"]
    assert set(watch.stale(3, 4)) == {1}
    assert set(watch.stale(5, 6)) == set()
    assert set(watch.stale(6, 8)) == {2}
    assert set(watch.stale(20, 0)) == {0, 1, 2}
    assert set(watch.stale(3, "3")) == {0, 1, 2}  # a change of kind: everything that reads it
    assert set(sets.stale(["a"], ["a", "c"])) == {5}
    assert set(sets.stale(["a"], ["b"])) == {3, 4, 5}
    told = heard([{"op": "observed", "id": "o", "value": v} for v in ("x", "y", "z")])["o"]
    assert set(told.stale(UNANSWERED, "x")) == {0}
    assert set(told.stale("x", "y")) == {0, 1}


def test_played_turns_keep_every_condition_value_true() -> None:
    """Over random packs and turns, the values a turn keeps equal those evaluated from scratch."""
    for seed in range(40):
        engine = Engine(random_pack(seed))
        program = engine.program
        rng = random.Random(seed)
        for entry in engine.entry_ids():
            session, _ = engine.start(entry)
            for _ in range(12):
                if session.ending is not None:
                    break
                move: dict[str, Any] = {}
                if rng.random() < 0.7:
                    move["o1"] = rng.random() < 0.5
                if rng.random() < 0.7:
                    move["o2"] = rng.choice("xyz")
                session, _ = engine.step(session, Turn(move))
                fresh = tuple(c(session.state, session.answers) for c in program.conditions)
                assert session.values == fresh, (seed, entry)


def test_a_comparison_on_the_whole_state_is_evaluated_again_after_any_change() -> None:
    """``path: ""`` points at the whole state (RFC 6901); the contract allows any string as a path."""
    pack = json.loads(Path("examples/0.5/rich.json").read_text())
    initial = pack["runtime"]["entries"][0]["initial_state"]
    achievement = {**pack["progression"]["achievements"][0], "id": "anything_changed"}
    achievement["when"] = {"op": "ne", "path": "", "value": initial}
    pack["progression"]["achievements"].append(achievement)
    assert validate(json.dumps(pack).encode()).valid
    engine = Engine(pack)
    session, _ = engine.start()
    assert "anything_changed" not in session.achievements
    move = {o["id"]: True if o["type"] == "boolean" else next(iter(o["choices"])) for o in engine.observations.values()}
    session, result = engine.step(session, Turn(move))
    assert session.state != initial
    assert "anything_changed" in result.new_achievements
