"""The exact turn of ``lint/reach/_encode.py`` over-approximates the runtime's, and the inductive box holds.

On random packs of both profiles of :mod:`tests.random_packs` (effects the schema refuses, nested
paths, floats, completions, endings, entries), every turn the runtime plays from a state must be
one the encoding allows: for each slot, z3 finds a turn from that state (as a one-state box) that
ends with the slot's value the runtime gave. On the reachability profile, the inductive box of
``lint/reach/_inductive.py`` (seeded with no plays, or with the states of a few random plays) must
hold every state reached after a turn, exploring every answer from every state.
"""

from __future__ import annotations

import random
from typing import Any

import pytest
import z3  # type: ignore[import-untyped]

from creatorpack.lint.reach._abstract import Analysis, IntRange, analyse
from creatorpack.lint.reach._encode import Encoder, Slot
from creatorpack.lint.reach._inductive import RLIMIT, inductive_box, point
from creatorpack.play.conditions import resolve
from creatorpack.play.engine import Engine, Turn
from tests import random_packs
from tests.test_reach_turns import _explore, _inside, _moves
from tests.test_reach_turns import random_pack as reach_pack

SEEDS = range(24)


def _values(analysis: Analysis, state: Any) -> dict[Slot, Any]:
    """Each slot's value in ``state``: an integer, or whether the member is held."""
    found: dict[Slot, Any] = {}
    for i, (tokens, domain) in enumerate(zip(analysis.variables, analysis.after, strict=True)):
        value = resolve(state, tokens)
        if isinstance(domain, IntRange):
            found[(i, None)] = value
        else:
            for member in domain.may:
                found[(i, member)] = member in value
    return found


def _allowed(encoder: Encoder, turned: Any, slot: Slot, value: Any) -> bool:
    """Whether z3 finds a turn (of ``turned``, from a one-state box) after which ``slot`` holds ``value``."""
    solver = z3.Solver(ctx=encoder.ctx)
    solver.add(*[z3.BoolVal(c, ctx=encoder.ctx) if isinstance(c, bool) else c for c in turned.pre])
    term = turned.values[slot]
    solver.add((term if value else z3.Not(term)) if isinstance(value, bool) else term == value)
    return bool(solver.check() == z3.sat)


def _checked_turns(seed: int, profile: str) -> int:
    """Every slot after up to 5 turns of random answers on one random pack, each checked allowed; how many were."""
    chosen = random_packs.DIFFERENTIAL if profile == "differential" else random_packs.REACH
    engine = Engine(random_packs.random_pack(seed, chosen))
    rng = random.Random(seed)
    moves = _moves(engine)
    checked = 0
    for entry, name in zip(engine.entries, engine.entry_ids(), strict=False):
        analysis = analyse(engine.program, entry, name)
        if not analysis.variables:
            continue
        encoder = Encoder(analysis, bitvectors=rng.random() < 0.5)
        session, _ = engine.start(name)
        for _ in range(5):
            if session.ending is not None:
                break
            after, _ = engine.step(session, Turn(rng.choice(moves)))
            turned = encoder.turn(point(analysis, session.state))
            values = _values(analysis, after.state)
            for slot in encoder.slots:
                assert _allowed(encoder, turned, slot, values[slot]), (seed, name, slot, session.state, after.state)
                checked += 1
            session = after
    return checked


@pytest.mark.parametrize("profile", ["differential", "reach"])
def test_every_turn_the_runtime_plays_is_one_the_encoding_allows(profile: str) -> None:
    """Some random packs track no member or end at once (nothing to check there); the others are checked."""
    counts = [_checked_turns(seed, profile) for seed in SEEDS]
    assert sum(1 for count in counts if count) >= len(SEEDS) // 3, counts


def _random_states(engine: Engine, entry: str, seed: int) -> list[Any]:
    """States after the turns of a few random plays from ``entry`` (what the guided search would give)."""
    rng = random.Random(seed)
    moves = _moves(engine)
    found = []
    for _ in range(3):
        session, _ = engine.start(entry)
        for _ in range(4):
            if session.ending is not None:
                break
            session, _ = engine.step(session, Turn(rng.choice(moves)))
            found.append(session.state)
    return found


@pytest.mark.parametrize("seed", SEEDS)
def test_the_inductive_box_holds_every_reachable_state(seed: int) -> None:
    engine = Engine(reach_pack(seed))
    for entry, name in zip(engine.entries, engine.entry_ids(), strict=False):
        analysis = analyse(engine.program, entry, name)
        every = _explore(engine, name)[0]
        # No plays, a few plays, and z3 stopped by its resource limit at once (every answer unknown).
        for states, rlimit in (([], RLIMIT), (_random_states(engine, name, seed), RLIMIT), ([], 1)):
            found = inductive_box(analysis, states, rlimit=rlimit)
            if found is None:
                assert not analysis.variables, (seed, name)
                continue
            for session in every:
                inside = [_inside(analysis, session.state, box) for box in (found.start, found.box)]
                assert any(inside), (seed, name, rlimit, session.state, found)
                if session.ending is None:  # a turn is taken from it
                    assert any(_inside(analysis, session.state, box) for box in found.before), (seed, name, rlimit)
