"""Typed condition code is played only on states that hold the members it reads, typed; any other state plays exactly.

``Engine.start``, ``Engine.step`` and ``Engine.advance`` (lint's searches) play a state that fits
the pack's shape (the members every entry's initial state has, of their schema types) with the
program's typed twin, whose condition functions read those members with no presence or type
test; a state that does not fit (built by hand, a member missing or of another type, changed in
place) with the generic functions.
"""

from __future__ import annotations

import copy
import dataclasses
import functools
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from creatorpack.play.conditions import compile_condition
from creatorpack.play.engine import Engine, SessionState, Turn
from creatorpack.play.state import set_paths
from creatorpack.play.step import step
from tests.random_packs import random_pack

_moves = st.lists(
    st.fixed_dictionaries({}, optional={"o1": st.booleans(), "o2": st.sampled_from("xyz")}), min_size=1, max_size=12
)


@settings(max_examples=100, deadline=None)
@given(seed=st.integers(0, 100_000), moves=_moves)
def test_a_turn_from_a_state_that_fits_makes_one_that_fits_and_plays_as_the_generic_code(
    seed: int, moves: list[dict[str, Any]]
) -> None:
    """Effects neither remove a member nor change its type: typed code stays exact from turn to turn."""
    engine = Engine(random_pack(seed))
    program = engine.program
    assert program.shape is not None
    session, _ = engine.start()
    assert program.fitted(session.state) is not program, "the typed twin plays a session the engine started"
    plain = session
    for answers in moves:
        if session.ending is not None:
            break
        assert program.shape.fits(session.state)
        after, _ = engine.step(session, Turn(answers))
        expected, *_ = step(program, plain, Turn(answers), full=True)  # the generic code, every condition again
        assert after == expected
        assert after.values == expected.values
        session, plain = after, expected


def _goal(ident: str, *leaves: dict[str, Any]) -> dict[str, Any]:
    when = {"op": "all", "conditions": list(leaves)}
    return {
        "id": ident,
        "visibility": "visible",
        "title": "T",
        "description": "d",
        "when": when,
        "artwork_asset_id": "ending_art",
    }


def _pack() -> dict[str, Any]:
    """A random pack with achievements that read a member beside an answer (a turn's answer evaluates them again)."""
    pack = random_pack(1)  # a pack whose first turns reach no ending
    pack["progression"]["achievements"] += [
        _goal("one", {"op": "observed", "id": "o1", "value": True}, {"op": "eq", "path": "/i0", "value": 1}),
        _goal("two", {"op": "observed", "id": "o2", "value": "x"}, {"op": "gte", "path": "/i1", "value": 0}),
        _goal(
            "three", {"op": "observed", "id": "o1", "value": True}, {"op": "eq", "path": "/flags/f1", "value": False}
        ),
    ]
    return pack


def _replaced(engine: Engine, session: SessionState, **members: Any) -> SessionState:
    """``session`` with members changed, as a host builds one: its values those of its state."""
    state = {k: v for k, v in {**session.state, **members}.items() if v is not _GONE}
    values = engine.program.values(state, session.answers)
    return dataclasses.replace(session, state=state, values=values, settled=False, held=None)


_GONE = object()


@pytest.mark.parametrize(
    "members",
    [
        {"i0": True},  # a bool where the schema has an integer: the typed `s['i0'] == 1` would hold
        {"i1": _GONE},  # a member missing: the typed code would raise KeyError
        {"s": ("a",)},  # a tuple, not a list
        {"flags": _GONE},
        {"flags": [False, False, 0]},  # a list where the schema has an object
        {"i0": "1"},
    ],
)
def test_a_hand_built_state_that_does_not_fit_plays_as_the_generic_code(members: dict[str, Any]) -> None:
    """A host's own SessionState is checked at the door; one that does not fit gets the code exact on any state."""
    engine = Engine(_pack())
    session, _ = engine.start()
    hand = _replaced(engine, session, **members)
    assert not engine.program.shape.fits(hand.state)  # type: ignore[union-attr]
    for answers in ({"o1": True}, {"o2": "x"}, {}):
        if hand.ending is not None:
            break
        after, _ = engine.step(hand, Turn(answers))
        expected, *_ = step(engine.program, hand, Turn(answers))  # the generic code, as before the typed twin
        assert after == expected
        assert after.values == expected.values
        hand = after
    assert "one" not in hand.achievements  # true is not 1
    assert ("two" in hand.achievements) is ("i1" in hand.state)


def test_the_typed_code_would_be_wrong_on_those_states() -> None:
    """What the door guards against: the twin's functions on a state that does not fit."""
    engine = Engine(_pack())
    session, _ = engine.start()
    program = engine.program
    twin = program.fitted(session.state)
    index = next(g.when for g in program.achievements if g.id == "one")
    bad = {**session.state, "i0": True}
    assert twin.evaluators[index](bad, {"o1": True}) is True
    assert program.evaluators[index](bad, {"o1": True}) is False
    with pytest.raises(KeyError):
        twin.evaluators[index]({k: v for k, v in session.state.items() if k != "i0"}, {"o1": True})


def test_a_state_changed_in_place_is_checked_again_on_the_next_turn() -> None:
    engine = Engine(_pack())
    session, _ = engine.start()
    session, _ = engine.step(session, Turn({"o1": True}))
    session.state["i0"] = True  # type: ignore[index]  # a host changing the state it was handed
    before = copy.deepcopy(session)
    after, _ = engine.step(session, Turn({"o2": "y"}))
    expected, *_ = step(engine.program, before, Turn({"o2": "y"}))
    assert after.state == expected.state
    assert after.achievements == expected.achievements
    assert "one" not in after.achievements


def test_the_programs_own_functions_stay_exact_on_any_state() -> None:
    """Lint's reachability evaluates states as written (an entry's initial state) with these: the generic code."""
    engine = Engine(_pack())
    program = engine.program
    state = {"i0": True, "s": "ab", "flags": [1]}
    for condition, function in zip(program.conditions, program.evaluators, strict=True):
        closures = compile_condition(condition.source, set_paths=set_paths(program.schema), generate=False)
        assert function(state, {"o1": 1}) is closures(state, {"o1": 1})


def _made(functions: Any) -> int:
    """How many of a table's condition functions were generated (the rest are stand-ins, ``partial`` objects)."""
    return sum(type(f) is not functools.partial for f in functions)


@pytest.mark.parametrize("members", [{}, {"i0": True}, {"i1": _GONE}])
def test_advance_plays_as_step_with_the_same_program(members: dict[str, Any]) -> None:
    """Lint's turns (``advance``) take the typed twin where ``step`` does, and the generic code where it does not."""
    engine = Engine(_pack())
    session, _ = engine.start()
    session = _replaced(engine, session, **members) if members else session
    fits = engine.program.shape.fits(session.state)  # type: ignore[union-attr]
    assert fits is not bool(members)
    generic = engine.program
    before = _made(generic.evaluators)  # the session's start called the typed ones
    turns = 0
    moves: list[dict[str, Any]] = [{"o1": True}, {"o2": "x"}, {"o1": False, "o2": "y"}]
    for answers in moves:
        if session.ending is not None:
            break
        after, active = engine.advance(session, Turn(answers))
        expected, result = engine.step(copy.deepcopy(session), Turn(answers))
        assert after == expected
        assert after.values == expected.values
        assert tuple(active) == result.active_rules
        session, turns = after, turns + 1
    assert turns
    assert (_made(generic.evaluators) > before) is not fits
