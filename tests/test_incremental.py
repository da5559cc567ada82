"""The incremental turn agrees with a plain full re-evaluation, turn by turn, on random packs and turns.

The incremental turn evaluates again only the conditions whose leaves changed, applies effects as
generated straight-line code and settles only what flipped conditions reach; ``step(..., full=True)``
evaluates every condition afresh, applies every effect one by one and looks at every completion,
reveal and achievement. Both must give the same session, the same rule activity and the same result.
"""

from __future__ import annotations

import dataclasses
import gc
import json
import random
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from creatorpack import validate
from creatorpack._json import copy_json
from creatorpack.contract.conditions import parse
from creatorpack.play import _effects
from creatorpack.play.conditions import compile_condition, generate_all
from creatorpack.play.engine import Engine, Turn
from creatorpack.play.program import _first_call
from creatorpack.play.state import CompiledEffect, set_paths
from creatorpack.play.step import _copied, _locked, describe, evaluate_all, locked_achievements, step
from tests.random_packs import random_condition, random_pack

_moves = st.lists(
    st.tuples(
        st.fixed_dictionaries({}, optional={"o1": st.booleans(), "o2": st.sampled_from("xyz")}),
        st.lists(st.sampled_from(["show_door", "unknown"]), max_size=1),
    ),
    min_size=1,
    max_size=12,
)


@settings(max_examples=150, deadline=None)
@given(seed=st.integers(0, 100_000), entry=st.integers(0, 1), moves=_moves)
def test_incremental_turns_agree_with_full_reevaluation(seed: int, entry: int, moves: list[Any]) -> None:
    engine = Engine(random_pack(seed))
    program = engine.program
    ids = engine.entry_ids()
    session, _ = engine.start(ids[entry % len(ids)])
    oracle = session
    known = program.illustration_rule_ids
    for answers, matches in moves:
        if session.ending is not None:
            break
        turn = Turn(answers, tuple(m for m in matches if m in known))
        after, applied, new_completed, illustration = step(program, session, turn)
        expected = step(program, oracle, turn, full=True)
        assert (after, applied, new_completed, illustration) == expected, seed
        assert after.values == expected[0].values == evaluate_all(program, after.state, after.answers), seed
        assert describe(program, session, after, applied, new_completed, illustration) == describe(
            program, oracle, *expected
        ), seed
        session, oracle = after, expected[0]


def test_the_random_packs_are_valid() -> None:
    for seed in range(30):
        assert validate(json.dumps(random_pack(seed)).encode()).valid, seed


def test_a_loaded_session_is_settled_in_full_on_its_next_turn() -> None:
    """A save holds no flips: what holds on the loaded state is found by looking at everything."""
    for seed in range(40):
        engine = Engine(random_pack(seed))
        session, _ = engine.start()
        if session.ending is not None:
            continue
        saved = session.to_json(engine.schema)
        saved["revealed"] = {kind: [] for kind in saved["revealed"]}  # as a save of an older revision might be
        saved["unlocked_achievements"] = []
        saved["completed_rules"] = []
        loaded = engine.load(saved)
        assert not loaded.settled
        after, *rest = step(engine.program, loaded, Turn({}))
        assert (after, *rest) == step(engine.program, loaded, Turn({}), full=True), seed


_SCHEMA = {
    "type": "object",
    "properties": {
        "n": {"type": "integer", "minimum": 0, "maximum": 5},
        "m": {"type": "integer", "minimum": -3, "maximum": 3},
        "f": {"type": "integer", "minimum": 0.0, "maximum": 4.0},  # bounds spelt as floats
        "s": {"type": "array", "items": {"enum": ["a", "b", "c"]}},
        "o": {"type": "object", "properties": {"k": {"type": "integer", "minimum": 0, "maximum": 2}}},
    },
}


def _increments(paths: st.SearchStrategy[str], by: st.SearchStrategy[Any]) -> st.SearchStrategy[dict[str, Any]]:
    """Increment effects at ``paths`` by ``by``, with or without a limit and an overflow."""
    return st.builds(
        lambda path, by, limit, overflow: {
            "op": "increment",
            "path": path,
            "by": by,
            **({"limit": limit} if limit is not None else {}),
            **({"overflow": overflow} if overflow else {}),
        },
        paths,
        by,
        st.none() | st.integers(-4, 6),
        st.sampled_from([None, "clamp", "reject"]),
    )


_effect = st.one_of(
    _increments(
        st.sampled_from(["/n", "/m", "/f", "/o/k", "/s", "/x", "n"]),
        st.integers(-3, 3) | st.sampled_from([1.0, -2.0, 0.5]),
    ),
    st.builds(
        lambda op, path, value: {"op": op, "path": path, "value": value},
        st.sampled_from(["add", "remove", "multiply"]),
        st.sampled_from(["/s", "/n"]),
        st.sampled_from(["a", "b", "c", "d"]),
    ),
)
_state = st.fixed_dictionaries(
    {},
    optional={
        "n": st.integers(-1, 7) | st.just("2"),
        "m": st.integers(-4, 4),
        "f": st.integers(-1, 5),
        "s": st.lists(st.sampled_from("abc"), unique=True) | st.just(7),
        "o": st.fixed_dictionaries({"k": st.integers(0, 2)}),
    },
)


@settings(max_examples=300, deadline=None)
@given(rules=st.lists(st.lists(_effect, max_size=4), min_size=1, max_size=5), state=_state, data=st.data())
def test_generated_effects_agree_with_effects_applied_one_by_one(
    rules: list[list[dict[str, Any]]], state: dict[str, Any], data: st.DataObject
) -> None:
    compiled = []
    for position, effects in enumerate(rules):
        parts = tuple(CompiledEffect(_SCHEMA, e) for e in effects)
        compiled.append((f"r{position}", position, parts, tuple(dict.fromkeys(e.key for e in parts if e.key))))
    values = data.draw(st.lists(st.booleans(), min_size=len(rules), max_size=len(rules)))
    completed = frozenset(data.draw(st.lists(st.sampled_from([r[0] for r in compiled]), max_size=2)))
    fast_state, slow_state = dict(state), dict(state)
    fast_rejected: list[dict[str, Any]] = []
    slow_rejected: list[dict[str, Any]] = []
    _effects.compile_effects(compiled)(values, fast_state, completed, fast_rejected)
    _effects.plain_runner(compiled)(values, slow_state, completed, slow_rejected)
    assert fast_state == slow_state
    assert fast_rejected == slow_rejected


@pytest.mark.parametrize("seed", range(3))
def test_a_long_session_stays_in_step_with_the_full_reevaluation(seed: int) -> None:
    engine = Engine(random_pack(seed))
    rng = random.Random(seed)
    session, _ = engine.start()
    oracle = session
    for _ in range(60):
        if session.ending is not None:
            break
        turn = Turn({"o1": rng.random() < 0.5, "o2": rng.choice("xyz")})
        session, *_ = step(engine.program, session, turn)
        oracle, *_ = step(engine.program, oracle, turn, full=True)
        assert session == oracle


@given(st.integers(0, 10**6).map(lambda seed: random_condition(random.Random(seed), 3)))
def test_generated_conditions_give_bools(condition: dict[str, Any]) -> None:
    """Generated code is not wrapped in ``bool()``: every part of it must be a bool already."""
    compiled = compile_condition(condition, set_paths=frozenset({"/s"}))
    for state in ({"i0": 2, "i1": 0, "s": ["a"], "flags": {"f0": True}}, {"i0": "2", "s": "abc"}, {}):
        for answers in ({}, {"o1": True, "o2": "x"}, {"o1": 1, "o2": ["x"]}):
            assert type(compiled(state, answers)) is bool


def test_a_session_loaded_with_completed_rules_finds_its_open_rules() -> None:
    """The open rules of a loaded session are built from its completed rules, then carried along."""
    played = 0
    for seed in range(60):
        engine = Engine(random_pack(seed))
        rng = random.Random(seed)
        session, _ = engine.start()
        for _ in range(6):
            if session.ending is not None:
                break
            session, _ = engine.step(session, Turn({"o1": rng.random() < 0.5, "o2": rng.choice("xyz")}))
        if session.ending is not None or not session.completed:
            continue
        played += 1
        loaded = engine.load(session.to_json(engine.schema))
        oracle = loaded
        for _ in range(4):
            if loaded.ending is not None:
                break
            turn = Turn({"o1": rng.random() < 0.5, "o2": rng.choice("xyz")})
            after = step(engine.program, loaded, turn)
            expected = step(engine.program, oracle, turn, full=True)
            assert after == expected, seed
            assert describe(engine.program, loaded, *after) == describe(engine.program, oracle, *expected), seed
            loaded, oracle = after[0], expected[0]
    assert played >= 5


_answers = st.fixed_dictionaries({}, optional={"o1": st.booleans() | st.just(1), "o2": st.sampled_from(["x", "y", 3])})
_states = st.fixed_dictionaries(
    {},
    optional={
        "i0": st.integers(-2, 7) | st.just(2.0) | st.just("2"),
        "i1": st.integers(-3, 7),
        "s": st.lists(st.sampled_from("abce"), unique=True) | st.just("abc"),
        "flags": st.fixed_dictionaries({}, optional={"f0": st.booleans(), "f1": st.booleans() | st.just(0)}),
    },
)


@settings(max_examples=200, deadline=None)
@given(seed=st.integers(0, 100_000), state=_states, answers=_answers)
def test_all_conditions_at_once_agree_with_each_condition(
    seed: int, state: dict[str, Any], answers: dict[str, Any]
) -> None:
    """The generated function that shares leaves gives what each condition's own function gives."""
    program = Engine(random_pack(seed)).program
    each = tuple(c(state, answers) for c in program.conditions)
    assert program.values(state, answers, make=False) == each
    assert program.values(state, answers) == each
    assert program.every


def test_conditions_too_deep_for_one_function_are_evaluated_one_by_one() -> None:
    deep: dict[str, Any] = {"op": "gte", "path": "/i0", "value": 1}
    for _ in range(300):
        deep = {"op": "not", "condition": deep}
    trees = [parse(deep), parse({"op": "observed", "id": "o1", "value": True})]
    every = generate_all(trees)
    assert every({"i0": 2}, {"o1": True}) == (True, True)
    assert every({"i0": 0}, {}) == (False, False)


@pytest.mark.parametrize(
    "effects",
    [
        [{"op": "increment", "path": "/n", "by": 1.0}, {"op": "increment", "path": "/n", "by": 1}],
        [{"op": "increment", "path": "/f", "by": 9}, {"op": "increment", "path": "/f", "by": -1}],
    ],
)
def test_an_increment_that_makes_a_float_is_applied_the_plain_way(effects: list[dict[str, Any]]) -> None:
    """JSON Schema integers include 1.0: the float it makes is refused by the member's next increment."""
    parts = tuple(CompiledEffect(_SCHEMA, e) for e in effects)
    rule = ("r", 0, parts, tuple(dict.fromkeys(e.key for e in parts)))
    fast_state, slow_state = {"n": 2, "f": 1}, {"n": 2, "f": 1}
    fast_rejected: list[dict[str, Any]] = []
    slow_rejected: list[dict[str, Any]] = []
    _effects.compile_effects([rule])([True], fast_state, frozenset(), fast_rejected)
    _effects.plain_runner([rule])([True], slow_state, frozenset(), slow_rejected)
    assert slow_rejected, "the plain path refuses the second increment"
    assert (fast_state, fast_rejected) == (slow_state, slow_rejected)


def test_condition_functions_are_generated_on_first_call() -> None:
    """Compiling a pack generates no condition code; each condition's first call makes its function, once."""
    engine = Engine(random_pack(3))
    program = engine.program
    assert all(getattr(function, "func", None) is _first_call for function in program.evaluators)
    session, _ = engine.start()  # the start evaluates every condition, with the program it plays
    played = program.fitted(session.state)
    assert not any(getattr(function, "func", None) is _first_call for function in played.evaluators)
    for condition in program.conditions:
        condition(session.state, session.answers)  # the generic function, generated on its first call too
    assert not any(getattr(function, "func", None) is _first_call for function in program.evaluators)
    for condition, function in zip(program.conditions, program.evaluators, strict=True):
        assert condition.evaluate is function
        fresh = compile_condition(condition.source, set_paths=set_paths(program.schema), generate=False)
        assert function(session.state, session.answers) is fresh(session.state, session.answers)


def test_a_program_dropped_before_its_conditions_were_called_is_freed_at_once() -> None:
    """Stand-ins hold their table weakly: no reference cycles are left for the collector (the LSP compiles often)."""
    pack = random_pack(3)
    gc.collect()
    engine = Engine(pack)
    del engine
    assert gc.collect() == 0


def test_a_stand_in_kept_past_its_program_still_answers() -> None:
    pack = random_pack(3)
    engine = Engine(pack)
    state = engine.start()[0].state
    conditions = engine.program.conditions  # called at the start: generated
    kept = Engine(pack).program.conditions  # its program is gone, its stand-ins uncalled
    assert [c(state, {}) for c in kept] == [c(state, {}) for c in conditions]


def test_a_session_changed_by_replace_makes_its_achievement_set_afresh() -> None:
    """A turn hands its unlocked set to the next session; a host's ``replace`` of the achievements is not misread."""
    for seed in range(40):
        engine = Engine(random_pack(seed))
        session, _ = engine.start()
        if not session.achievements:
            continue
        assert session.achievements_set == frozenset(session.achievements)
        emptied = dataclasses.replace(session, achievements=())
        assert emptied.achievements_set == frozenset()
        assert locked_achievements(engine.program, emptied) == tuple(
            g.id for g in engine.program.achievements if not g.hidden
        )
        return
    pytest.fail("no random pack unlocks an achievement at its start")


_json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=3),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=2), inner, max_size=3),
    max_leaves=8,
)


@given(st.dictionaries(st.text(max_size=3), _json_values, max_size=5))
def test_the_state_a_turn_hands_out_is_copied_as_copy_json_copies_it(state: dict[str, Any]) -> None:
    copied = _copied(state)
    assert copied == copy_json(state)

    def shares(left: Any, right: Any) -> bool:
        if isinstance(left, dict | list) and left is right:
            return True
        if isinstance(left, dict):
            return any(shares(left[k], right[k]) for k in left)
        if isinstance(left, list):
            return any(shares(a, b) for a, b in zip(left, right, strict=True))
        return False

    assert not shares(copied, state)


@settings(max_examples=100, deadline=None)
@given(seed=st.integers(0, 100_000), unlocked=st.sets(st.integers(0, 20)))
def test_locked_achievements_are_the_visible_ones_not_unlocked(seed: int, unlocked: set[int]) -> None:
    program = Engine(random_pack(seed)).program
    ids = [g.id for g in program.achievements]
    chosen = frozenset(ids[i] for i in unlocked if i < len(ids))
    expected = tuple(g.id for g in program.achievements if not g.hidden and g.id not in chosen)
    assert _locked(program, chosen) == expected
    assert _locked(dataclasses.replace(program, visible=None), chosen) == expected  # a program built without them


_fast_effect = st.one_of(
    _increments(st.sampled_from(["/n", "/m", "/n", "/m", "/o/k"]), st.integers(-4, 4) | st.just(1.0)),
    st.builds(
        lambda op, value: {"op": op, "path": "/s", "value": value},
        st.sampled_from(["add", "remove"]),
        st.sampled_from(["a", "b", "c"]),
    ),
)
_fast_state = st.fixed_dictionaries(
    {"n": st.integers(0, 5) | st.just("2"), "s": st.lists(st.sampled_from("abc"), unique=True)},
    optional={"m": st.integers(-3, 3), "o": st.fixed_dictionaries({"k": st.integers(0, 2)})},
)


@settings(max_examples=300, deadline=None)
@given(
    rules=st.lists(st.lists(_fast_effect, min_size=1, max_size=3), min_size=1, max_size=6),
    state=_fast_state,
    data=st.data(),
)
def test_generated_effects_on_shared_locals_agree_with_effects_applied_one_by_one(
    rules: list[list[dict[str, Any]]], state: dict[str, Any], data: st.DataObject
) -> None:
    """Mostly effects the straight-line code covers (and a few it does not, on the same members).

    The generated function keeps each member in a local from its first rule to its end, and a
    rule on the plain path in between must see (and leave) the member as the rules before it left it.
    """
    compiled = []
    for position, effects in enumerate(rules):
        parts = tuple(CompiledEffect(_SCHEMA, e) for e in effects)
        compiled.append((f"r{position}", position, parts, tuple(dict.fromkeys(e.key for e in parts if e.key))))
    values = data.draw(st.lists(st.booleans(), min_size=len(rules), max_size=len(rules)))
    completed = frozenset(data.draw(st.lists(st.sampled_from([r[0] for r in compiled]), max_size=1)))
    run = _effects._generate(compiled)
    assert run.__code__.co_filename == "<effects>"  # generated, not the plain runner it falls back to
    fast_state, slow_state = copy_json(state), copy_json(state)
    fast_rejected: list[dict[str, Any]] = []
    slow_rejected: list[dict[str, Any]] = []
    run(values, fast_state, completed, fast_rejected)
    _effects.plain_runner(compiled)(values, slow_state, completed, slow_rejected)
    assert fast_state == slow_state
    assert fast_rejected == slow_rejected


def test_a_rule_with_a_rejected_effect_changes_nothing_on_the_generated_path() -> None:
    effects: list[dict[str, Any]] = [
        {"op": "increment", "path": "/n", "by": 1},
        {"op": "add", "path": "/s", "value": "b"},
        {"op": "increment", "path": "/m", "by": 5, "overflow": "reject"},
    ]
    parts = tuple(CompiledEffect(_SCHEMA, e) for e in effects)
    rules = [("r0", 0, parts, ("n", "s", "m")), ("r1", 1, parts[:1], ("n",))]
    run = _effects._generate(rules)
    assert run.__code__.co_filename == "<effects>"
    state: dict[str, Any] = {"n": 1, "m": 0, "s": ["a"]}
    rejected: list[dict[str, Any]] = []
    run([True, True], state, frozenset(), rejected)
    assert state == {"n": 2, "m": 0, "s": ["a"]}  # r0 changed nothing, r1 applied
    assert [r["rule"] for r in rejected] == ["r0"]


def test_a_compiled_program_goes_to_the_collectors_oldest_generation_unless_the_host_froze_objects() -> None:
    """What compiling makes lives on: it is moved to the oldest generation at once, not walked by two collections."""
    pack = random_pack(3)
    engine = Engine(pack)
    oldest = {id(o) for o in gc.get_objects(generation=2)}
    assert id(engine.program.conditions[0]) in oldest
    assert id(engine.program.conditions) in oldest
    gc.freeze()  # a host that froze its objects (before forking workers) keeps them frozen
    try:
        frozen = gc.get_freeze_count()
        assert frozen > 0
        Engine(pack)
        assert gc.get_freeze_count() == frozen
    finally:
        gc.unfreeze()
