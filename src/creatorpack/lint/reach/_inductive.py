"""An inductive box for one entry: a box that one turn from any of its states cannot leave, found with z3.

Every reachable state is the entry's start or lies in a box ``B`` when one turn from the start
lands in ``B`` and one turn from any state of ``B`` (no ending holding) lands in ``B`` again. A
goal whose condition holds in neither is unreachable. ``B`` is found from the guided search's own
plays (:meth:`~creatorpack.lint.reach._witness.Search.played_states`; lint gives those played by the
end of its ``solve`` phase, so that the box can start beside the rest): their hull, relaxed where
one turn from the start leaves it (the candidate), then relaxed in rounds until every bound is
confirmed one turn from the box itself. Each bound is checked first by the branch and bound of
:mod:`~creatorpack.lint.reach._bnb` (cheap, an over-approximation too), and only where that fails
by z3 over the exact encoding of a turn (:mod:`~creatorpack.lint.reach._encode`); a broken bound
*jumps* to the lower (higher) of z3's example and the branch and bound's, instead of descending.

Bounds never leave the analysis's own box ``A``, which holds every reachable state: a state of
``B`` that is reachable lies in ``A``, its successor too, so a bound at ``A``'s holds for it
without being checked. z3 is bounded by counts only: :data:`QUERIES` queries an entry and
:data:`RLIMIT` of z3's resource count a query. A query z3 does not decide within it counts as
"may leave the box" (the bound goes to ``A``'s), and an entry that needs more queries gets no box:
both sound, and the same on every machine.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

import z3  # type: ignore[import-untyped]

from creatorpack._json import pointer
from creatorpack.lint.reach._abstract import Abstract, Analysis, IntRange, Members, Value, checker_for, tree_of
from creatorpack.lint.reach._beside import Stopped
from creatorpack.lint.reach._bnb import Effects, Formulas, Memo, Writer, extreme
from creatorpack.lint.reach._encode import Encoder, Slot
from creatorpack.lint.reach._turns import NODE_BUDGET
from creatorpack.play.conditions import resolve

__all__ = ["QUERIES", "RLIMIT", "Encoded", "Inductive", "inductive_box", "point"]

QUERIES: Final = 1_500
"""z3 queries one entry's box may take in all (an entry that needs more gets no box)."""

RLIMIT: Final = 5_000_000
"""z3's resource count (``rlimit``) one query may take; past it the answer is "may leave the box"."""


@dataclass(frozen=True, slots=True)
class Inductive:
    """Boxes that hold every reachable state of an entry: ``start`` (before any turn) and ``box`` (after one or more).

    ``before`` are the two without the states in which an ending holds (those a turn is taken
    from); ``queries`` counts the z3 queries it took.
    """

    start: Abstract
    box: Abstract
    before: tuple[Abstract, ...]
    queries: int

    def describe(self, analysis: Analysis, index: int) -> str:
        """Variable ``index``'s bounds: "`/x` is 10 at the start, 0..20 after any turn"."""
        first, then = self.start[index].show(), self.box[index].show()
        return f"`{pointer(analysis.variables[index])}` is {first} at the start, {then} after any turn"


def point(analysis: Analysis, state: Mapping[str, Any]) -> Abstract:
    """The box holding only ``state``."""
    made: list[Value] = []
    for tokens, domain in zip(analysis.variables, analysis.after, strict=True):
        value = resolve(state, tokens)
        if isinstance(domain, IntRange):
            made.append(IntRange(value, value))
        else:
            members = frozenset(m for m in value if isinstance(m, str))
            made.append(Members(members, members))
    return tuple(made)


def _never() -> bool:
    """A ``stop`` that never says so."""
    return False


def inductive_box(
    analysis: Analysis,
    states: Iterable[Mapping[str, Any]],
    *,
    queries: int = QUERIES,
    rlimit: int = RLIMIT,
    stop: Callable[[], bool] = _never,
) -> Inductive | None:
    """The entry's start and an inductive box of the states after a turn (see the module docstring).

    ``states`` are states some play reached (they seed the candidate; any others only loosen it).
    ``None`` when nothing is tracked, or the box takes more than ``queries`` z3 queries. ``stop``
    is asked before each query: once it says so, :class:`~creatorpack.lint.reach._beside.Stopped`
    is raised (the caller no longer wants the box: lint's worker thread, see ``_decide``).
    """
    return Encoded(analysis, queries=queries, rlimit=rlimit).box(states, stop=stop)


class Encoded:
    """An entry's turn encoded for z3, made before any play is known; :meth:`box` finds the box from it, once.

    The encoding is a few hundred thousand calls into z3 from Python, each of which lets the GIL
    go: beside a thread that runs Python, each such call may wait for the GIL again, so lint
    makes it before its worker thread starts, and only the box's queries run beside the search.
    """

    def __init__(self, analysis: Analysis, *, queries: int = QUERIES, rlimit: int = RLIMIT) -> None:
        self.analysis = analysis
        self.start = point(analysis, analysis.initial) if analysis.variables else ()
        self.checker = checker_for(analysis)
        self.endings = [tree_of(analysis.program.conditions[g.when]) for g in analysis.program.endings]
        # Nothing tracked, or an ending holds at the start (no turn is taken): nothing to encode.
        trivial = not analysis.variables or self.checker.exclude(self.start, self.endings) is None
        self.asker = None if trivial else _Asker(Encoder(analysis), queries, rlimit)
        self.used = False

    def box(self, states: Iterable[Mapping[str, Any]], stop: Callable[[], bool] = _never) -> Inductive | None:
        """The box, from ``states`` (see :func:`inductive_box`); the encoding's queries are spent, so only once."""
        if self.used:
            raise RuntimeError("an encoding gives one box")
        self.used = True
        analysis, start, checker, endings = self.analysis, self.start, self.checker, self.endings
        if not analysis.variables:
            return None
        if self.asker is None:
            return Inductive(start, start, (), 0)
        asker = self.asker
        asker.stop = stop
        bnb = _Bnb(analysis, checker, endings)
        try:
            seeds = [point(analysis, s) for s in states] or [start]  # the start only when nothing was played
            box = _candidate(asker, bnb, _hull(analysis, seeds), start)
            box = _rounds(asker, bnb, box)
        except _OutOfQueries:
            return None
        before = tuple(b for b in (checker.exclude(start, endings), checker.exclude(box, endings)) if b is not None)
        return Inductive(start, box, before, asker.queries)


class _OutOfQueries(Exception):  # noqa: N818 - a control-flow signal, not an error
    """The box took more z3 queries than it may."""


class _Asker:
    """z3 queries on one encoding of a turn (from the analysis's box): a fresh bit-blasting SAT solver each."""

    def __init__(self, encoder: Encoder, queries: int, rlimit: int, stop: Callable[[], bool] = _never) -> None:
        self.encoder = encoder
        self.ctx = encoder.ctx
        turned = encoder.turn(encoder.analysis.after)
        self.terms = turned.values
        self.unsatisfiable = any(c is False for c in turned.pre)  # an ending holds in every state: no turn
        pre = [c for c in turned.pre if not isinstance(c, bool)]
        self.pre = z3.And(*pre) if pre else z3.BoolVal(True, self.ctx)  # noqa: FBT003 - z3's own constant
        self.slots = encoder.slots
        self.reads = {slot: encoder.reads(slot) for slot in self.slots}
        self.readers: dict[int, list[Slot]] = {}
        for slot in self.slots:
            for i in self.reads[slot]:
                self.readers.setdefault(i, []).append(slot)
        self.left = queries
        self.queries = 0
        self.rlimit = rlimit
        self.stop = stop
        # Made once: each call into z3 from Python lets the GIL go, and beside the guided search (lint's
        # worker thread) each may wait for it again, so a query makes as few as it can.
        self.tactic = z3.Then(*(z3.Tactic(name, ctx=self.ctx) for name in ("simplify", "bit-blast", "sat")))
        self.params = z3.ParamsRef(ctx=self.ctx)
        self.params.set("rlimit", rlimit)

    def ask(self, slot: Slot, box: Abstract, goal: Any) -> tuple[bool, Any]:
        """Whether a turn from ``box`` may end with ``goal`` true of the slot, and a model of one when z3 found it.

        An answer z3 does not give within :attr:`rlimit` is "it may" (no model): sound.
        """
        if self.unsatisfiable:
            return False, None
        if self.left <= 0:
            raise _OutOfQueries
        if self.stop():
            raise Stopped
        self.left -= 1
        self.queries += 1
        solver = self.tactic.solver()
        z3.Z3_solver_set_params(self.ctx.ref(), solver.solver, self.params.params)
        parts = [self.pre, *self.encoder.bounds(box, self.reads[slot]), goal]
        whole = z3.Z3_mk_and(self.ctx.ref(), len(parts), (z3.Ast * len(parts))(*(p.as_ast() for p in parts)))
        solver.add(z3.BoolRef(whole, self.ctx))  # one assertion: one call into z3, not one a part
        answer = solver.check()
        if answer == z3.unsat:
            return False, None
        return True, solver.model() if answer == z3.sat else None

    def value(self, model: Any, slot: Slot) -> int:
        found = model.eval(self.terms[slot], model_completion=True)
        return int(found.as_signed_long())


class _Bnb:
    """The branch and bound's turn from one box, built once a round; which sides of a slot's bound it confirms."""

    def __init__(self, analysis: Analysis, checker: Any, endings: Sequence[Any]) -> None:
        self.analysis = analysis
        self.effects = Effects(analysis)
        self.memo = Memo()
        self.checker = checker
        self.endings = endings
        self.ready: Abstract | None = None
        self.formulas: Formulas | None = None
        self.writers: Mapping[Slot, list[Writer]] = {}

    def build(self, box: Abstract) -> None:
        self.ready = self.checker.exclude(box, self.endings)
        if self.ready is not None:
            self.formulas = Formulas(self.analysis, self.ready, memo=self.memo)
            self.writers = dict(self.effects.writers(self.formulas, rejections=True))

    def sides(self, slot: Slot, value: Value) -> tuple[bool, bool, int, int] | None:
        """(low or held member confirmed, high or lacked member confirmed, lowest, highest) one turn from the built box.

        ``None`` for a variable the branch and bound does not track.
        """
        i, member = slot
        if self.ready is None:
            return True, True, 0, 0
        if i in self.effects.untracked or self.formulas is None:
            return None
        found = self.writers.get(slot, [])
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


def _hull(analysis: Analysis, boxes: Sequence[Abstract]) -> Abstract:
    """The smallest box holding ``boxes`` (the point boxes of states)."""
    made: list[Value] = []
    for i, domain in enumerate(analysis.after):
        values = [box[i] for box in boxes]
        if isinstance(domain, IntRange):
            ints = [v for v in values if isinstance(v, IntRange)]
            made.append(IntRange(min(v.low for v in ints), max(v.high for v in ints)))
        else:
            sets = [v for v in values if isinstance(v, Members)]
            made.append(
                Members(frozenset.intersection(*(v.must for v in sets)), frozenset.union(*(v.may for v in sets)))
            )
    return tuple(made)


def _opened(encoder: Encoder, box: Abstract) -> Abstract:
    """``box`` with every variable the encoding does not follow at the analysis's own bounds."""
    after = encoder.analysis.after
    return tuple(after[i] if i in encoder.opaque else value for i, value in enumerate(box))


def _relax(
    asker: _Asker, slot: Slot, source: Abstract, value: Value, sides: tuple[bool, bool] = (False, False)
) -> Value:
    """``value`` relaxed where one turn from ``source`` leaves it: to z3's examples, descending; ``sides`` confirmed."""
    term = asker.terms[slot]
    domain = asker.encoder.analysis.after[slot[0]]
    if isinstance(value, IntRange):
        assert isinstance(domain, IntRange)
        low, high = value.low, value.high
        while not sides[0] and low > domain.low:
            broken, model = asker.ask(slot, source, term < low)
            if not broken:
                break
            low = domain.low if model is None else max(asker.value(model, slot), domain.low)
        while not sides[1] and high < domain.high:
            broken, model = asker.ask(slot, source, term > high)
            if not broken:
                break
            high = domain.high if model is None else min(asker.value(model, slot), domain.high)
        return IntRange(low, high)
    assert isinstance(value, Members)
    member = slot[1]
    assert member is not None
    must, may = set(value.must), set(value.may)
    if not sides[0] and member in must and asker.ask(slot, source, z3.Not(term))[0]:
        must.discard(member)
    if not sides[1] and member not in may and asker.ask(slot, source, term)[0]:
        may.add(member)
    return Members(frozenset(must), frozenset(may))


def _candidate(asker: _Asker, bnb: _Bnb, box: Abstract, start: Abstract) -> Abstract:
    """``box`` relaxed where one turn from ``start`` leaves it (the branch and bound first, z3 where it fails)."""
    bnb.build(start)
    made = list(_opened(asker.encoder, box))
    for slot in asker.slots:
        i = slot[0]
        sides = bnb.sides(slot, made[i])
        if sides is not None and sides[0] and sides[1]:
            continue
        made[i] = _relax(asker, slot, start, made[i], (False, False) if sides is None else (sides[0], sides[1]))
    return tuple(made)


def _rounds(asker: _Asker, bnb: _Bnb, box: Abstract) -> Abstract:
    """``box`` relaxed in rounds until one turn from it cannot leave it (see the module docstring).

    Each round builds the branch and bound's turn once; a slot it does not confirm is asked of z3,
    and a broken integer bound jumps (no descent). A moved bound puts the slots that read its
    variable into the next round; a round that moves nothing ends it.
    """
    dirty: list[Slot] = list(asker.slots)
    while dirty:
        bnb.build(box)
        marked: dict[Slot, None] = {}
        for slot in dirty:
            i = slot[0]
            value = box[i]
            sides = bnb.sides(slot, value)
            if sides is not None and sides[0] and sides[1]:
                continue
            if sides is not None and isinstance(value, IntRange):
                relaxed: Value = _jump(asker, slot, box, value, sides)
            else:
                confirmed = (False, False) if sides is None else (sides[0], sides[1])
                relaxed = _relax(asker, slot, box, value, confirmed)
                while relaxed != box[i]:  # to the slot's own fixed point
                    box = (*box[:i], relaxed, *box[i + 1 :])
                    relaxed = _relax(asker, slot, box, relaxed)
            if relaxed != value:
                box = (*box[:i], relaxed, *box[i + 1 :])
                marked.update(dict.fromkeys(asker.readers.get(i, ())))
        dirty = list(marked)
    return box


def _jump(asker: _Asker, slot: Slot, box: Abstract, value: IntRange, sides: tuple[bool, bool, int, int]) -> IntRange:
    """An integer slot's bounds, each side the branch and bound did not confirm asked of z3 once; a broken side jumps.

    It jumps to the lower (higher) of z3's example and the branch and bound's bound, never past
    the analysis's; an answer z3 does not give within its limit takes it to the analysis's bound.
    """
    bounds = asker.encoder.analysis.after[slot[0]]
    assert isinstance(bounds, IntRange)
    term, low, high = asker.terms[slot], value.low, value.high
    below: int | None = None  # a value past the low side that one turn may end with
    above: int | None = None
    if not sides[0] and low > bounds.low:
        broken, model = asker.ask(slot, box, term < low)
        if broken:
            below = bounds.low if model is None else asker.value(model, slot)
    if not sides[1] and high < bounds.high:
        broken, model = asker.ask(slot, box, term > high)
        if broken:
            above = bounds.high if model is None else asker.value(model, slot)
    if below is not None:
        low = max(min(below, sides[2]), bounds.low)
    if above is not None:
        high = min(max(above, sides[3]), bounds.high)
    return IntRange(low, high)
