"""What a z3 box phase would cost inside lint, on the runtime pack (issue 32, sixth stop, 23:00-23:45 UTC).

Measures what ``docs/performance.md`` ("what a z3 box phase would cost inside lint") reports,
building on :mod:`_cone` and :mod:`cone_box`:

- the encoding in **one pass** over the whole turn (every slot through every rule), against one
  cone a slot, and that both give the same z3 terms;
- the candidate box from the guided search's own plays (``Search._played``), made to hold the
  first turn's states, by z3 alone and with the branch and bound first;
- the worklist iteration with the branch and bound (``_bnb.extreme``, as ``_turns`` runs it) as a
  first check of each bound, built once a **round**; z3 asked only where it fails, and either
  relaxing exactly (descent on z3's models) or **jumping** to the lower of z3's model and the
  branch and bound's bound;
- how many goals each box proves beyond the analysis's own box, and ``by_turn`` alone.

CPU seconds (``time.process_time``), one process. Usage: python benchmarks/cone_phase.py
"""

from __future__ import annotations

import sys
import time
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import z3  # type: ignore[import-untyped]

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _cone import Cones, Slot
from _packgen import make_runtime_pack
from cone_box import _Asker, _holding_first_turn, _hull, _point
from creatorpack.lint.reach import _decide
from creatorpack.lint.reach._abstract import Abstract, Analysis, IntRange, Members, analyse, checker_for, holds, tree_of
from creatorpack.lint.reach._bnb import Effects, Formulas, Memo, extreme
from creatorpack.lint.reach._turns import NODE_BUDGET, by_turn
from creatorpack.lint.reach._witness import Search
from creatorpack.play.engine import Engine


def _one_pass(cones: Cones, slots: Sequence[Slot], encoding: Any) -> dict[Slot, Any]:
    """Every slot's value after one turn, all rules replayed once (the loop of ``Cones.after`` for all slots)."""
    ctx = cones.ctx
    current = {s: z3.BoolVal(v, ctx) if isinstance(v, bool) else v for s in slots for v in [encoding.slot(s)]}
    for at, rule in enumerate(cones.rules):
        fire = encoding.when(at, rule.when)
        if fire is False:
            continue
        fire = z3.BoolVal(fire, ctx) if fire is True else fire
        if rule.completable:
            fire = z3.And(fire, z3.Not(z3.Bool(f"done{at}", ctx)))
        if rule.loose:
            fire = z3.And(fire, z3.Bool(f"ok{at}", ctx))
        working = dict(current)
        passes: list[Any] = []
        for effect in rule.effects:
            if effect.slot not in working:
                continue
            if effect.slot[1] is not None:
                working[effect.slot] = z3.BoolVal(effect.present, ctx)
                continue
            moved = working[effect.slot] + effect.by
            if effect.reject:
                passes.append(z3.And(moved >= effect.low, moved <= effect.high))
                working[effect.slot] = moved
            elif effect.low <= effect.high:
                working[effect.slot] = z3.If(
                    moved > effect.high, effect.high, z3.If(moved < effect.low, effect.low, moved)
                )
            else:
                clamped = z3.If(moved < effect.low, effect.low, moved)
                working[effect.slot] = z3.If(clamped > effect.high, effect.high, clamped)
        applies = z3.And(fire, *passes) if passes else fire
        for s, value in working.items():
            if value is not current[s]:
                current[s] = z3.If(applies, value, current[s])
    return current


class _Bnb:
    """The branch and bound's turn from one box, built once a round; which sides of a slot's bound it confirms."""

    def __init__(self, analysis: Analysis) -> None:
        self.analysis = analysis
        self.effects = Effects(analysis)
        self.memo = Memo()
        self.checker = checker_for(analysis)
        self.endings = [tree_of(analysis.program.conditions[g.when]) for g in analysis.program.endings]
        self.ready: Abstract | None = None
        self.formulas: Formulas | None = None
        self.writers: dict[Slot, Any] = {}
        self.seconds = 0.0

    def build(self, box: Abstract) -> None:
        started = time.process_time()
        self.ready = self.checker.exclude(box, self.endings)
        if self.ready is not None:
            self.formulas = Formulas(self.analysis, self.ready, memo=self.memo)
            self.writers = dict(self.effects.writers(self.formulas, rejections=True))
        self.seconds += time.process_time() - started

    def sides(self, slot: Slot, box: Abstract) -> tuple[bool, bool, int, int] | None:
        """(low or held member confirmed, high or lacked member confirmed, lowest, highest) one turn from the built box.

        ``None`` for a variable the branch and bound does not track.
        """
        started = time.process_time()
        try:
            i, member = slot
            if self.ready is None:
                return True, True, 0, 0
            if i in self.effects.untracked or self.formulas is None:
                return None
            value, found = box[i], self.writers.get(slot, [])
            if member is not None:
                assert isinstance(value, Members)
                start = self.effects.start(slot, self.ready[i])
                if found:
                    present = extreme(self.formulas, found, start, lowest=True, budget=NODE_BUDGET)[0] == 1
                    can = extreme(self.formulas, found, start, lowest=False, budget=NODE_BUDGET)[0] == 1
                else:
                    present, can = start == 2, bool(start & 2)
                return member not in value.must or present, member in value.may or not can, 0, 0
            assert isinstance(value, IntRange)
            if not found:
                held = self.ready[i]
                assert isinstance(held, IntRange)
                return held.low >= value.low, held.high <= value.high, held.low, held.high
            start, base = self.effects.start(slot, self.ready[i]), self.effects.domains[i][0]
            low, _ = extreme(self.formulas, found, start, lowest=True, budget=NODE_BUDGET)
            high, _ = extreme(self.formulas, found, start, lowest=False, budget=NODE_BUDGET)
            return low + base >= value.low, high + base <= value.high, low + base, high + base
        finally:
            self.seconds += time.process_time() - started


def _rounds(asker: _Asker, bnb: _Bnb, box: Abstract, *, jump: bool) -> tuple[Abstract, int]:
    """The iteration in rounds: the branch and bound first (built once a round), z3 where it fails."""
    dirty, rounds = list(asker.slots), 0
    domain = asker.cones.analysis.after
    while dirty:
        rounds += 1
        bnb.build(box)
        nxt: list[Slot] = []
        for slot in dirty:
            i = slot[0]
            sides = bnb.sides(slot, box)
            if sides is not None and sides[0] and sides[1]:
                continue
            value = box[i]
            if jump and sides is not None and isinstance(value, IntRange):
                term, (low, high), bounds = asker.turned[slot].value, (value.low, value.high), domain[i]
                assert isinstance(bounds, IntRange)
                if not sides[0] and (model := asker.ask(slot, box, term < low)) is not None:
                    low = max(min(asker.value(model, slot), sides[2]), bounds.low)
                if not sides[1] and (model := asker.ask(slot, box, term > high)) is not None:
                    high = min(max(asker.value(model, slot), sides[3]), bounds.high)
                relaxed: Any = IntRange(low, high)
                if relaxed != value:
                    box = (*box[:i], relaxed, *box[i + 1 :])
                    nxt += [o for o in asker.slots if i in asker.reads[o] and o not in nxt]
                continue
            while (relaxed := asker.relax(slot, box, box[i])) != box[i]:  # to the slot's own fixed point
                box = (*box[:i], relaxed, *box[i + 1 :])
                nxt += [o for o in asker.slots if i in asker.reads[o] and o not in nxt and o != slot]
        dirty = nxt
    return box, rounds


def _candidate(asker: _Asker, bnb: _Bnb, box: Abstract, start: Abstract) -> Abstract:
    """``box`` relaxed where one turn from ``start`` leaves it, as ``cone_box._holding_first_turn``, ``bnb`` first."""
    bnb.build(start)
    made = list(box)
    for slot in asker.slots:
        i, member = slot
        sides = bnb.sides(slot, tuple(made))
        if sides is not None and sides[0] and sides[1]:
            continue
        term, value = asker.turned[slot].value, made[i]
        if isinstance(value, IntRange):
            low, high = value.low, value.high
            if sides is None or not sides[0]:
                while (model := asker.ask(slot, start, term < low)) is not None:
                    low = asker.value(model, slot)
            if sides is None or not sides[1]:
                while (model := asker.ask(slot, start, term > high)) is not None:
                    high = asker.value(model, slot)
            made[i] = IntRange(low, high)
        else:
            assert isinstance(value, Members)
            assert member is not None
            must, may = set(value.must), set(value.may)
            if member in must and asker.ask(slot, start, z3.Not(term)) is not None:
                must.discard(member)
            if member not in may and asker.ask(slot, start, term) is not None:
                may.add(member)
            made[i] = Members(frozenset(must), frozenset(may))
    return tuple(made)


def _played(engine: Engine, analysis: Analysis) -> list[Any]:
    """The states after every turn the guided search plays in a default lint (its own budget, as ``decide``)."""
    goals = _decide.targets(engine)
    proofs = {t.goal: r for t in goals if (r := _decide._proof(t, [analysis])) is not None}
    unproved = [t for t in goals if t.goal not in proofs]
    search = Search(engine, unproved, _decide.WALK_TURNS, time.monotonic() + 1e9, time.monotonic, [analysis])
    _decide._search(search, proofs, goals, {})
    return [session.state for session in search._played.values()]


def _proved(engine: Engine, analysis: Analysis, boxes: Sequence[Abstract]) -> Counter[str]:
    """Goals the analysis's own box leaves open and ``boxes`` (the start and the inductive box) exclude, by kind."""
    endings = [tree_of(analysis.program.conditions[g.when]) for g in analysis.program.endings]
    checker = checker_for(analysis)
    before = [b for b in (checker.exclude(box, endings) for box in boxes) if b is not None]
    found: Counter[str] = Counter()
    for target in _decide.targets(engine):
        if _decide._proof(target, [analysis]) is None and all(
            holds(analysis, target.condition, box) is None for box in (before if target.kind == "rule" else boxes)
        ):
            found[target.kind] += 1
    return found


def main() -> None:
    engine = Engine(make_runtime_pack())
    analysis = analyse(engine.program, engine.entries[0], engine.entry_ids()[0])
    started = time.process_time()
    trace = by_turn(analysis)
    print(f"by_turn alone: {time.process_time() - started:.2f} s, {len(trace.after) if trace else 0} boxes")
    asker = _Asker(Cones(analysis))
    encoding = asker.cones.encoding(analysis.after)
    started = time.process_time()
    for at, rule in enumerate(asker.cones.rules):
        encoding.when(at, rule.when)
    whens = time.process_time() - started
    started = time.process_time()
    turned = _one_pass(asker.cones, asker.slots, encoding)
    same = sum(asker.turned[s].value.eq(turned[s]) for s in asker.slots)
    print(
        f"encoding: one cone a slot {asker.built:.2f} s; every when {whens:.2f} s, then one pass "
        f"{time.process_time() - started:.2f} s, the same terms for {same} of {len(asker.slots)} slots"
    )
    started = time.process_time()
    states = _played(engine, analysis)
    print(f"guided search: {time.process_time() - started:.2f} s, {len(states)} turns")
    start = _point(analysis, analysis.initial)
    for jump in (True, False):
        started, asked = time.process_time(), asker.queries
        candidate = _holding_first_turn(asker, _hull(analysis, states), start)
        print(f"candidate from its plays: {time.process_time() - started:.2f} s, {asker.queries - asked} queries")
        started, asked = time.process_time(), asker.queries
        same = _candidate(asker, _Bnb(analysis), _hull(analysis, states), start) == candidate
        print(
            f"  the same, branch and bound first: {time.process_time() - started:.2f} s, "
            f"{asker.queries - asked} queries; the same candidate: {same}"
        )
        started, asked, bnb = time.process_time(), asker.queries, _Bnb(analysis)
        box, rounds = _rounds(asker, bnb, candidate, jump=jump)
        print(
            f"  iteration, branch and bound first, {'jumps' if jump else 'exact'}: "
            f"{time.process_time() - started:.2f} s ({bnb.seconds:.2f} s of it the branch and bound), "
            f"{asker.queries - asked} queries, {rounds} rounds; bounds broken: {asker.broken(box)}; "
            f"goals proved beyond the analysis: {dict(_proved(engine, analysis, [start, box]))}"
        )


if __name__ == "__main__":
    main()
