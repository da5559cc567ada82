"""The cone encoding of ``benchmarks/_cone.py`` over-approximates the runtime's turn, and the box it finds holds.

The encoder and ``benchmarks/cone_box.py`` are a measurement (docs/performance.md, sixth stop),
not part of lint; these tests keep their figures honest. On random packs of both profiles of
:mod:`tests.random_packs` (effects the schema refuses, nested paths, floats, completions, endings,
entries), every turn the runtime plays from a state must be one the encoding allows: for each
slot, z3 finds a turn from that state (as a one-state box) that ends with the slot's value the
runtime gave. On the reachability profile, the box found by the worklist iteration from the first
turn's box must hold every state reached after a turn, exploring every answer from every state.
"""

from __future__ import annotations

import random
import sys
from pathlib import Path
from typing import Any

import pytest

from creatorpack.lint.reach._abstract import Abstract, Analysis, IntRange, analyse
from creatorpack.play.conditions import resolve
from creatorpack.play.engine import Engine, Turn
from tests import random_packs
from tests.test_reach_turns import _layers, _moves
from tests.test_reach_turns import random_pack as reach_pack

z3 = pytest.importorskip("z3", reason="z3-solver (the dev extra) is not installed")
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))

from _cone import Cones  # noqa: E402 - after the benchmarks' folder is on the path
from cone_box import _Asker, _first_turn, _inside, _kleene, _point  # noqa: E402

SEEDS = range(24)
DEPTH = 6
"""Turns explored from each entry (every answer from every state) for the box's check."""


def _values(analysis: Analysis, state: Any) -> dict[tuple[int, str | None], Any]:
    """Each slot's value in ``state``: an integer, or whether the member is held."""
    found: dict[tuple[int, str | None], Any] = {}
    for i, (tokens, domain) in enumerate(zip(analysis.variables, analysis.after, strict=True)):
        value = resolve(state, tokens)
        if isinstance(domain, IntRange):
            found[(i, None)] = value
        else:
            for member in domain.may:
                found[(i, member)] = member in value
    return found


def _allowed(cones: Cones, box: Abstract, slot: tuple[int, str | None], value: Any) -> bool:
    """Whether z3 finds a turn from ``box`` after which ``slot`` holds ``value``."""
    turned = cones.after(slot, box)
    solver = z3.Solver(ctx=cones.ctx)
    solver.add(*[z3.BoolVal(c, ctx=cones.ctx) if isinstance(c, bool) else c for c in turned.pre])
    term = turned.value
    if isinstance(value, bool):
        solver.add(term if value else z3.Not(term))
    else:
        solver.add(term == value)
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
        cones = Cones(analysis, bitvectors=rng.random() < 0.5)
        session, _ = engine.start(name)
        for _ in range(5):
            if session.ending is not None:
                break
            after, _ = engine.step(session, Turn(rng.choice(moves)))
            box = _point(analysis, session.state)
            for slot, value in _values(analysis, after.state).items():
                assert _allowed(cones, box, slot, value), (seed, name, slot, value, session.state, after.state)
                checked += 1
            session = after
    return checked


@pytest.mark.parametrize("profile", ["differential", "reach"])
def test_every_turn_the_runtime_plays_is_one_the_encoding_allows(profile: str) -> None:
    """Some random packs track no member or end at once (nothing to check there); the others are checked."""
    counts = [_checked_turns(seed, profile) for seed in SEEDS]
    assert sum(1 for count in counts if count) >= len(SEEDS) // 3, counts


@pytest.mark.parametrize("seed", range(16))
def test_the_box_found_holds_every_state_after_a_turn(seed: int) -> None:
    engine = Engine(reach_pack(seed))
    for entry, name in zip(engine.entries, engine.entry_ids(), strict=False):
        analysis = analyse(engine.program, entry, name)
        if not analysis.variables or any(
            engine.program.evaluators[g.when](analysis.initial, {}) for g in engine.program.endings
        ):
            continue
        asker = _Asker(Cones(analysis))
        box, _ = _kleene(asker, _first_turn(asker, _point(analysis, analysis.initial)))
        assert asker.broken(box) == 0
        for layer in _layers(engine, name, DEPTH)[1:]:
            for session in layer:
                assert _inside(analysis, box, session.state), (seed, name, session.state, box)
