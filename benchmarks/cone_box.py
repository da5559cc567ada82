"""The runtime benchmark pack's inductive box, found and checked by z3 over each slot's cone (issue 32, sixth stop).

Measures what ``docs/performance.md`` ("Sixth stop ... cones") reports: the encoding of every
slot's cone (:mod:`_cone`), built once against the analysis's box; the first turn's exact box
from the start; a worklist (chaotic) Kleene iteration that relaxes each broken bound to what one
turn reaches from the current box, re-asking only the slots whose cone reads a changed variable;
the check of the box it settles on (every low, high and member asked once), with bit-vectors
and with integers; and, as a sanity check of the encoding, that every state random plays reach
after a turn lies in that box. CPU seconds (``time.process_time``), one process.

Usage: python benchmarks/cone_box.py [--plays N]
"""

from __future__ import annotations

import random
import sys
import time
from pathlib import Path
from typing import Any

import z3  # type: ignore[import-untyped]

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _cone import Cones, Slot
from _packgen import make_runtime_pack
from creatorpack.lint.reach._abstract import Abstract, Analysis, IntRange, Members, Value, analyse
from creatorpack.play.conditions import resolve
from creatorpack.play.engine import Engine
from creatorpack.play.model import Turn


class _Asker:
    """Queries on one encoding: a fresh bit-blasting SAT solver each (the fastest measured)."""

    def __init__(self, cones: Cones) -> None:
        self.cones = cones
        self.ctx = cones.ctx
        after = cones.analysis.after
        started = time.process_time()
        self.slots: list[Slot] = [(i, None) for i, v in enumerate(after) if isinstance(v, IntRange)]
        self.slots += [(i, m) for i, v in enumerate(after) if isinstance(v, Members) for m in sorted(v.may)]
        encoding = cones.encoding(after)
        self.turned = {slot: cones.after(slot, after, encoding) for slot in self.slots}
        self.pre = [c for c in encoding.pre(cones.endings) if not isinstance(c, bool)]
        self.reads = {slot: cones.reads(slot) for slot in self.slots}
        self.built = time.process_time() - started
        self.queries = 0

    def ask(self, slot: Slot, box: Abstract, goal: Any) -> Any:
        """A model of a turn from ``box`` in which ``goal`` holds of the slot's value after it, or None."""
        self.queries += 1
        if self.cones.bits is None:
            solver = z3.SolverFor("QF_LIA", ctx=self.ctx)
        else:
            tactics = [z3.Tactic(name, ctx=self.ctx) for name in ("simplify", "bit-blast", "sat")]
            solver = z3.Then(*tactics).solver()
        solver.add(*self.pre, *self.cones.bounds(box, self.reads[slot]))
        solver.add(goal)
        return solver.model() if solver.check() == z3.sat else None

    def value(self, model: Any, slot: Slot) -> int:
        found = model.eval(self.turned[slot].value, model_completion=True)
        return int(found.as_signed_long() if self.cones.bits is not None else found.as_long())

    def relax(self, slot: Slot, box: Abstract, value: Value) -> Value:
        """``value`` (the slot's variable in ``box``) relaxed to what one turn from ``box`` reaches, exactly."""
        term = self.turned[slot].value
        if isinstance(value, IntRange):
            low, high = value.low, value.high
            while (model := self.ask(slot, box, term < low)) is not None:
                low = self.value(model, slot)
            while (model := self.ask(slot, box, term > high)) is not None:
                high = self.value(model, slot)
            return IntRange(low, high)
        member = slot[1]
        assert member is not None
        must, may = set(value.must), set(value.may)
        if member in must and self.ask(slot, box, z3.Not(term)) is not None:
            must.discard(member)
        if member not in may and self.ask(slot, box, term) is not None:
            may.add(member)
        return Members(frozenset(must), frozenset(may))

    def broken(self, box: Abstract) -> int:
        """How many of ``box``'s bounds one turn from it breaks (each asked once)."""
        after = self.cones.analysis.after
        count = 0
        for slot in self.slots:
            i, member = slot
            value, domain, term = box[i], after[i], self.turned[slot].value
            if isinstance(value, IntRange) and isinstance(domain, IntRange):
                if value.low > domain.low:
                    count += self.ask(slot, box, term < value.low) is not None
                if value.high < domain.high:
                    count += self.ask(slot, box, term > value.high) is not None
            elif isinstance(value, Members) and member in value.must:
                count += self.ask(slot, box, z3.Not(term)) is not None
            elif isinstance(value, Members) and member not in value.may:
                count += self.ask(slot, box, term) is not None
        return count


def _point(analysis: Analysis, state: Any) -> Abstract:
    made: list[Value] = []
    for tokens, domain in zip(analysis.variables, analysis.after, strict=True):
        value = resolve(state, tokens)
        made.append(
            IntRange(value, value) if isinstance(domain, IntRange) else Members(frozenset(value), frozenset(value))
        )
    return tuple(made)


def _first_turn(asker: _Asker, start: Abstract) -> Abstract:
    """The exact box of the states one turn from ``start`` reaches (lowest and highest found by descent)."""
    made = list(start)
    grown: dict[int, tuple[set[str], set[str]]] = {}
    for slot in asker.slots:
        i, member = slot
        term = asker.turned[slot].value
        if member is None:
            model = asker.ask(slot, start, z3.BoolVal(True, ctx=asker.ctx))  # noqa: FBT003 - any first value
            seen = asker.value(model, slot)
            made[i] = asker.relax(slot, start, IntRange(seen, seen))
        else:
            must, may = grown.setdefault(i, (set(), set()))
            if asker.ask(slot, start, z3.Not(term)) is None:
                must.add(member)
            if asker.ask(slot, start, term) is not None:
                may.add(member)
    for i, (must, may) in grown.items():
        made[i] = Members(frozenset(must), frozenset(may))
    return tuple(made)


def _kleene(asker: _Asker, box: Abstract, *, own: bool = True) -> tuple[Abstract, int]:
    """The worklist iteration from ``box`` to a box one turn cannot leave; and how many bounds moved.

    A slot taken from the worklist is relaxed to what one turn from the current box reaches; with
    ``own``, again and again until it stops moving (a counter that falls by one a turn falls all
    the way before its readers are asked again), else once and queued again with its readers.
    """
    work = list(asker.slots)
    queued = set(work)
    moved = 0
    while work:
        slot = work.pop(0)
        queued.discard(slot)
        i = slot[0]
        while (relaxed := asker.relax(slot, box, box[i])) != box[i]:
            moved += 1
            box = (*box[:i], relaxed, *box[i + 1 :])
            for other in asker.slots:
                if i in asker.reads[other] and other not in queued and (other != slot or not own):
                    work.append(other)
                    queued.add(other)
            if not own:
                break
    return box, moved


def _hull(analysis: Analysis, states: list[Any]) -> Abstract:
    """The smallest box holding ``states``."""
    made: list[Value] = []
    for tokens, domain in zip(analysis.variables, analysis.after, strict=True):
        found = [resolve(state, tokens) for state in states]
        if isinstance(domain, IntRange):
            made.append(IntRange(min(found), max(found)))
        else:
            sets = [frozenset(value) for value in found]
            made.append(Members(frozenset.intersection(*sets), frozenset.union(*sets)))
    return tuple(made)


def _holding_first_turn(asker: _Asker, box: Abstract, start: Abstract) -> Abstract:
    """``box`` relaxed where one turn from ``start`` leaves it (each bound asked from the start, not the box)."""
    made = list(box)
    for slot in asker.slots:
        i, member = slot
        term, value = asker.turned[slot].value, made[i]
        if isinstance(value, IntRange):
            low, high = value.low, value.high
            while (model := asker.ask(slot, start, term < low)) is not None:
                low = asker.value(model, slot)
            while (model := asker.ask(slot, start, term > high)) is not None:
                high = asker.value(model, slot)
            made[i] = IntRange(low, high)
        else:
            assert member is not None
            must, may = set(value.must), set(value.may)
            if member in must and asker.ask(slot, start, z3.Not(term)) is not None:
                must.discard(member)
            if member not in may and asker.ask(slot, start, term) is not None:
                may.add(member)
            made[i] = Members(frozenset(must), frozenset(may))
    return tuple(made)


def _plays(engine: Engine, entry: str, plays: int, seed: int = 5) -> list[Any]:
    """States after one turn or more, of ``plays`` plays of 15 turns of random answers."""
    rng = random.Random(seed)
    observations = engine.program.observations
    states = []
    for _ in range(plays):
        session, _ = engine.start(entry)
        for _ in range(15):
            if session.ending is not None:
                break
            answers: dict[str, Any] = {}
            for ident, observation in observations.items():
                if rng.random() < 0.5:
                    kind = observation.get("type")
                    answers[ident] = (
                        rng.random() < 0.5 if kind == "boolean" else rng.choice(list(observation["choices"]))
                    )
            session, _ = engine.advance(session, Turn(answers))
            states.append(session.state)
    return states


def _inside(analysis: Analysis, box: Abstract, state: Any) -> bool:
    for tokens, value in zip(analysis.variables, box, strict=True):
        found = resolve(state, tokens)
        if isinstance(value, IntRange) and not value.low <= found <= value.high:
            return False
        if isinstance(value, Members) and not (value.must <= set(found) <= value.may):
            return False
    return True


def main() -> None:
    plays = int(sys.argv[sys.argv.index("--plays") + 1]) if "--plays" in sys.argv else 60
    engine = Engine(make_runtime_pack())
    entry = engine.entry_ids()[0]
    analysis = analyse(engine.program, engine.entries[0], entry)
    asker = _Asker(Cones(analysis))
    print(f"encoding of every slot's cone (bit-vectors of {asker.cones.bits} bits): {asker.built:.2f} s")
    start = _point(analysis, analysis.initial)
    states = _plays(engine, entry, plays)
    runs: list[tuple[str, Any]] = [
        ("the first turn's exact box", lambda: _first_turn(asker, start)),
        (
            f"the box of {len(states)} states of {plays} random plays after a turn, made to hold the first turn's",
            lambda: _holding_first_turn(asker, _hull(analysis, states), start),
        ),
    ]
    boxes: list[Abstract] = []
    for name, candidate in runs:
        started, asked = time.process_time(), asker.queries
        first = candidate()
        print(f"candidate: {name}: {time.process_time() - started:.2f} s, {asker.queries - asked} queries")
        for own in (False, True) if not boxes else (True,):
            started, asked = time.process_time(), asker.queries
            box, moved = _kleene(asker, first, own=own)
            how = "each slot to its own fixed point first" if own else "each slot relaxed once a turn"
            print(
                f"  worklist iteration ({how}) to a box one turn cannot leave: "
                f"{time.process_time() - started:.2f} s, {asker.queries - asked} queries, {moved} bounds moved"
            )
            boxes.append(box)
    print("the same box every way:", all(b == boxes[0] for b in boxes))
    for bitvectors in (True, False):
        checker = asker if bitvectors else _Asker(Cones(analysis, bitvectors=False))
        started, asked = time.process_time(), checker.queries
        broken = checker.broken(box)
        kind = f"bit-vectors, {checker.cones.bits} bits" if bitvectors else "integers"
        print(
            f"check of that box ({kind}; encoding {checker.built:.2f} s): {time.process_time() - started:.2f} s, "
            f"{checker.queries - asked} queries, {broken} broken"
        )
    shown = []
    for tokens, value in zip(analysis.variables, box, strict=True):
        if isinstance(value, IntRange):
            shown.append(f"/{'/'.join(tokens)} {value.show()}")
        else:
            shown.append(f"/{'/'.join(tokens)} holds {sorted(value.must)}, may hold {sorted(value.may)}")
    print("the box:", "; ".join(shown))
    states = _plays(engine, entry, plays, seed=6)
    outside = sum(not _inside(analysis, box, state) for state in states)
    print(f"states of {plays} other random plays after a turn: {len(states)}, outside the box: {outside}")


if __name__ == "__main__":
    main()
