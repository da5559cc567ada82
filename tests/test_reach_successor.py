"""The search's specialised turn agrees with the runtime's ``step``, and the search built on it with the reference one.

Random valid packs (seeded, so a failure names its seed): every turn from every state reachable
within a few turns, with every combination of answers, is played both by
:class:`~creatorpack.lint.reach._successor.Successor` and by the runtime; and the fast
exhaustive search counts the same states and reaches the same goals as the one that plays the
runtime itself.
"""

from __future__ import annotations

import itertools
import json
import random
import time
from typing import Any

import pytest

from creatorpack.lint.reach import _decide as _reach
from creatorpack.lint.reach import _exhaust
from creatorpack.lint.reach._successor import Successor
from creatorpack.play.engine import Engine, SessionState, Turn
from tests.random_packs import random_condition, random_pack

SEEDS = range(40)
DEPTH = 4
"""Turns from each entry's start within which every turn is compared."""


def _moves(engine: Engine) -> list[dict[str, Any]]:
    per = [
        [None, *((ident, v) for v in ([True, False] if o["type"] == "boolean" else list(o["choices"])))]
        for ident, o in engine.observations.items()
    ]
    return [{k: v for pair in combo if pair for k, v in [pair]} for combo in itertools.product(*per)]


def _pack(seed: int) -> dict[str, Any]:
    """A random pack, with a second ending of another priority when it has one (so that priorities matter)."""
    doc = random_pack(seed)
    endings = doc["progression"]["endings"]
    if endings:
        rng = random.Random(seed)
        rival = {**endings[0], "id": "rival", "priority": rng.choice([-1, 1]), "when": random_condition(rng, 2)}
        endings.append(rival)
    return doc


def _key(session: SessionState) -> str:
    return json.dumps([session.state, session.answers, sorted(session.completed)], sort_keys=True)


@pytest.mark.parametrize("seed", SEEDS)
def test_the_specialised_turn_agrees_with_step(seed: int) -> None:
    """Turn by turn, and all the moves of a state at once (:meth:`Successor.expand`), as the runtime plays them."""
    engine = Engine(_pack(seed))
    program = engine.program
    successor = Successor(program, {g.id for g in program.achievements})
    bare = Successor(program, ())  # no achievement searched for: fewer answers read after a turn
    moves = _moves(engine)
    for entry in engine.entry_ids():
        start, _ = engine.start(entry)
        layer, seen = [start], {_key(start)}
        for _ in range(DEPTH):
            following: list[SessionState] = []
            for session in layer:
                if session.ending is not None:
                    continue
                given = [{**session.answers, **move} for move in moves]
                expanded = successor.expand(session.state, session.completed, given)
                for answers, alone in zip(given, bare.expand(session.state, session.completed, given), strict=True):
                    one = bare(session.state, session.completed, answers)
                    assert (alone.state, alone.completed, alone.ending, alone.active) == (
                        one.state,
                        one.completed,
                        one.ending,
                        one.active,
                    ), (seed, session.state, answers)
                    assert set(alone.new_completed) == set(one.new_completed), (seed, session.state, answers)
                for move, answers, grouped in zip(moves, given, expanded, strict=True):
                    after, result = engine.step(session, Turn(move))
                    mine = successor(session.state, session.completed, answers)
                    same = (grouped.state, grouped.completed, grouped.ending, grouped.active)
                    assert same == (mine.state, mine.completed, mine.ending, mine.active), (seed, session.state, move)
                    assert set(grouped.new_completed) == set(mine.new_completed), (seed, session.state, move)
                    assert set(grouped.holding) == set(mine.holding), (seed, session.state, move)
                    where = (seed, entry, session.state, sorted(session.completed), move)
                    assert mine.state == after.state, where
                    assert mine.completed == after.completed, where
                    assert mine.ending == after.ending, where
                    assert mine.active == result.active_rules, where
                    assert set(mine.new_completed) == set(result.new_completed_rules), where
                    assert set(mine.holding) <= set(after.achievements), where
                    assert set(result.new_achievements) <= set(mine.holding), where
                    if _key(after) not in seen:
                        seen.add(_key(after))
                        following.append(after)
            layer = following


@pytest.mark.parametrize("seed", SEEDS)
def test_the_fast_search_counts_and_reaches_what_the_reference_search_does(seed: int) -> None:
    engine = Engine(_pack(seed))
    goals = [t for t in _reach.targets(engine) if t.kind in _exhaust.FAST]
    keys = {t.key for t in goals}
    for bound in (50, 200_000):
        fast = _exhaust._Fast(engine, goals, bound, 1e18, time.monotonic, pending=set(keys)).run()
        slow = _exhaust._Explorer(engine, goals, bound, 1e18, time.monotonic, pending=set(keys)).run()
        assert (fast.states, fast.complete) == (slow.states, slow.complete), (seed, bound)
        if fast.complete:
            assert set(fast.found) == set(slow.found), seed
        for key, reached in fast.found.items():  # a shortest witness, as long as the reference one
            assert len(reached.turns) == len(slow.found[key].turns), (seed, key)


def test_a_default_lint_takes_the_fast_search_when_only_goals_it_decides_are_left() -> None:
    engine = Engine(_pack(3))
    goals = [t for t in _reach.targets(engine) if t.kind in _exhaust.FAST]
    exhaustion = _exhaust.explore(engine, goals, 200_000, 1e18, time.monotonic, pending={g.key for g in goals})
    slow = _exhaust._Explorer(engine, goals, 200_000, 1e18, time.monotonic).run()
    assert exhaustion.complete
    assert exhaustion.turns > slow.turns  # the fast search plays every move; the reference one skips repeats
