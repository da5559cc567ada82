"""The harvest reads a goal's value from the session when answers cannot change it.

Whether this turn's answers alone can make a goal hold is, for a goal whose condition reads no
answer, its value on the state: the session keeps every condition's value, so the search reads it
there instead of evaluating the condition again. Checked on random packs against the evaluation
it replaces, on every state two turns deep.
"""

from __future__ import annotations

import time

import pytest

from creatorpack.contract.conditions import Observed, leaves
from creatorpack.lint.reach import _decide as _reach
from creatorpack.lint.reach import _witness
from creatorpack.lint.reach._abstract import analyse
from creatorpack.play.conditions import compile_condition
from creatorpack.play.engine import Engine
from creatorpack.play.state import set_paths
from tests.test_reach_turns import _layers, random_pack


@pytest.mark.parametrize("seed", range(12))
def test_a_goal_that_reads_no_answer_is_read_from_the_session_as_evaluating_it_says(seed: int) -> None:
    engine = Engine(random_pack(seed))
    goals = _reach.targets(engine)
    analyses = [analyse(engine.program, e, n) for e, n in zip(engine.entries, engine.entry_ids(), strict=True)]
    search = _witness.Search(engine, goals, 100, time.monotonic() + 1e9, time.monotonic, analyses)
    indices = search._value_at
    plain = [t for t in goals if not any(isinstance(leaf, Observed) for leaf in leaves(t.condition))]
    assert {t.goal for t in plain} == set(indices)  # every goal that reads no answer, and no other
    sets = set_paths(engine.schema)
    for layer in _layers(engine, engine.entry_ids()[0], 2):
        for session in layer:
            for target in plain:
                evaluated = compile_condition(target.condition, set_paths=sets).evaluate(session.state, {})
                assert session.values[indices[target.goal]] is evaluated, (seed, target.goal)
