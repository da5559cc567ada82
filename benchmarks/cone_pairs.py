"""Clauses over two counters on top of the runtime pack's inductive box, by z3 on the one-pass turn (issue 32).

Measures what ``docs/performance.md`` ("clauses over two counters") reports. The box B of
:mod:`cone_phase` (candidate from the guided search's plays, rounds with jumps) leaves about 470
of the runtime pack's undecided rules and achievements open; the invariant plays keep there is
relational ("at most one counter at a time at the bottom of its range"). On the one-pass
encoding of the whole turn (:func:`cone_phase._one_pass`), with B on the state before the turn:

- **upper bounds**: how many open goals the plays' own lows (unit clauses) and pair staircases
  would exclude, were they inductive (they are not checked);
- **Houdini** over those clauses (:class:`_Hull`): a pair's clauses asked together, and each
  counterexample's state after the turn added to the samples, which weakens what it breaks; rounds
  until one adds nothing, or the budget of queries runs out;
- **blocking by goal** (IC3-lite, one frame, in the manner of Bradley's FSIS): for an open goal, a
  state of B and the clauses so far where its condition holds; the clause over its counters
  (``x >= v + 1 or ...``) made inductive by blocking its counterexamples first (cut to the
  counters below the plays' lows, to a depth), generalised by unsat cores and by dropping literals;
- the lemmas' soundness on the states of random plays.

A clause is a set of literals ``(i, k)``: counter ``i`` is at least ``k``; it holds of a state
when one literal does. Every clause kept holds one turn from the start (base) and one turn from a
state of B, no ending holding, where it and every earlier clause hold (step), so that B and the
clauses together hold after every turn. CPU seconds (``time.process_time``), one process.

Usage: python benchmarks/cone_pairs.py [--cache FILE] [--houdini N] [--sample N] [--budget N] [--depth N]

(``--cache``: B, the open goals and the plays' values, kept between runs in a pickle of our own.)
"""

from __future__ import annotations

import pickle
import statistics
import sys
import time
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeAlias

import z3  # type: ignore[import-untyped]

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _cone import Cones, Slot
from _packgen import make_runtime_pack
from cone_box import _Asker, _hull, _plays, _point
from cone_phase import _Bnb, _candidate, _one_pass, _played, _rounds
from creatorpack.lint.reach import _decide
from creatorpack.lint.reach._abstract import Abstract, Analysis, IntRange, analyse, holds
from creatorpack.lint.reach._witness import Target
from creatorpack.play.conditions import resolve
from creatorpack.play.engine import Engine

__all__ = ["main"]

Literal: TypeAlias = tuple[int, int]
"""Counter ``i`` is at least ``k``."""
Clause: TypeAlias = frozenset[Literal]


@dataclass
class _Stats:
    """Queries asked and their CPU seconds."""

    seconds: list[float] = field(default_factory=list)

    def line(self) -> str:
        if not self.seconds:
            return "0 queries"
        return (
            f"{len(self.seconds)} queries, {sum(self.seconds):.1f} s, "
            f"median {1000 * statistics.median(self.seconds):.0f} ms, max {1000 * max(self.seconds):.0f} ms"
        )


class _Turn:
    """The whole turn encoded once (one pass), B on the state before it, and the clauses found so far."""

    def __init__(self, analysis: Analysis, box: Abstract, start: Abstract) -> None:
        started = time.process_time()
        self.analysis = analysis
        self.cones = cones = Cones(analysis)
        self.ctx = cones.ctx
        self.encoding = encoding = cones.encoding(analysis.after)
        after = analysis.after
        self.counters = [i for i, v in enumerate(after) if isinstance(v, IntRange)]
        slots: list[Slot] = [(i, None) for i in self.counters]
        for at, rule in enumerate(cones.rules):
            encoding.when(at, rule.when)
        self.turned = _one_pass(cones, slots, encoding)
        pre = encoding.pre(cones.endings)
        self.ends = list(pre[: len(pre) - len(encoding.constraints)])
        assert not encoding._free, "a free Boolean would be shared between the turn's and the goals' encodings"
        every = frozenset(range(len(after)))
        self.box = box
        self.start = start
        self.inside = cones.bounds(box, every)
        self.at_start = cones.bounds(start, every)
        self.clauses: list[Clause] = []
        self.stats = _Stats()
        self.fails: Counter[str] = Counter()  # why a clause was not made inductive
        self.built = time.process_time() - started

    # --- terms -----------------------------------------------------------------------------------

    def before(self, clause: Clause) -> Any:
        return z3.Or(*[self.cones.integer(i) >= k for i, k in sorted(clause)])

    def after(self, clause: Clause) -> Any:
        return z3.Or(*[self.turned[(i, None)] >= k for i, k in sorted(clause)])

    def goal(self, target: Target) -> Any:
        """The goal's condition on a state (and the answers of its turn), folded against the analysis's box."""
        made = self.encoding.condition(target.condition, after=True)
        return z3.BoolVal(made, self.ctx) if isinstance(made, bool) else made

    # --- queries ---------------------------------------------------------------------------------

    def ask(self, *constraints: Any) -> Any:
        """A model of ``constraints`` and the encoding's own (answers' ranges), or None; timed and counted."""
        started = time.process_time()
        tactics = [z3.Tactic(name, ctx=self.ctx) for name in ("simplify", "bit-blast", "sat")]
        solver = z3.Then(*tactics).solver()
        solver.add(*self.encoding.constraints, *constraints)
        found = solver.model() if solver.check() == z3.sat else None
        self.stats.seconds.append(time.process_time() - started)
        return found

    def frame(self, clauses: Iterable[Clause] | None = None) -> list[Any]:
        """B and the clauses on the state before a turn."""
        return [*self.inside, *[self.before(c) for c in (self.clauses if clauses is None else clauses)]]

    def value(self, model: Any, i: int, *, turned: bool = False) -> int:
        term = self.turned[(i, None)] if turned else self.cones.integer(i)
        return int(model.eval(term, model_completion=True).as_signed_long())

    def base(self, clause: Clause) -> bool:
        """Whether the clause holds after the first turn (from the start, any answers)."""
        return self.ask(*self.at_start, *self.ends, z3.Not(self.after(clause))) is None

    def step(self, clause: Clause, clauses: Sequence[Clause] | None = None) -> Any:
        """A turn from B, the clauses and ``clause`` that breaks ``clause`` (a model), or None: inductive."""
        return self.ask(*self.frame(clauses), self.before(clause), *self.ends, z3.Not(self.after(clause)))

    def core(self, clause: Clause, *, start: bool) -> Any:
        """The literals a turn needs to keep ``clause`` (an unsat core; a frozenset), or a model of one that breaks it.

        From the start (``start``) or from B, the clauses and ``clause``.
        """
        started = time.process_time()
        solver = z3.SolverFor("QF_BV", ctx=self.ctx)
        pre = [*self.at_start] if start else [*self.frame(), self.before(clause)]
        solver.add(*self.encoding.constraints, *pre, *self.ends)
        flags = {}
        for n, (i, k) in enumerate(sorted(clause)):
            flag = z3.Bool(f"lit{n}", self.ctx)
            flags[flag.get_id()] = (i, k)
            solver.add(z3.Implies(flag, self.turned[(i, None)] < k))
        found: Any
        if solver.check(*[z3.Bool(f"lit{n}", self.ctx) for n in range(len(clause))]) == z3.sat:
            found = solver.model()
        else:
            found = frozenset(flags[f.get_id()] for f in solver.unsat_core())
        self.stats.seconds.append(time.process_time() - started)
        return found

    def inductive(self, clause: Clause) -> bool:
        return self.base(clause) and self.step(clause) is None

    def reaches(self, target: Target, clauses: Sequence[Clause] | None = None) -> Any:
        """A state of B and the clauses (no ending holding, for a rule) where the goal holds, or None."""
        ends = self.ends if target.kind == "rule" else []
        return self.ask(*self.frame(clauses), *ends, self.goal(target))


# --- the box and the open goals -------------------------------------------------------------------


@dataclass(frozen=True)
class _Setup:
    """What the experiments start from: the box, the start, the open goals, the plays' states."""

    box: Abstract
    start: Abstract
    open: tuple[tuple[str, str], ...]
    values: tuple[tuple[Any, ...], ...]  # each played state's value of each variable
    seconds: float


def _setup(engine: Engine, analysis: Analysis, cache: Path | None) -> _Setup:
    """B as ``cone_phase`` finds it (candidate from the guided search's plays, rounds with jumps); the open goals.

    A goal is open when a default lint leaves it undecided (``decide``, 200,000 states) and B
    with the start do not exclude it (as ``cone_phase._proved`` counts).
    """
    if cache is not None and cache.exists():
        with cache.open("rb") as file:
            return _Setup(*pickle.load(file))
    started = time.process_time()
    outcome = _decide.decide(engine.pack, 200_000, 1e9, time.monotonic, engine=engine)
    undecided = {t.goal for t in outcome.targets if t.goal not in outcome.proofs and t.goal not in outcome.witnesses}
    states = _played(engine, analysis)
    start = _point(analysis, analysis.initial)
    asker = _Asker(Cones(analysis))
    candidate = _candidate(asker, _Bnb(analysis), _hull(analysis, states), start)
    box, _ = _rounds(asker, _Bnb(analysis), candidate, jump=True)
    endings = asker.cones.endings
    checker = analysis.checker
    before = [b for b in (checker.exclude(x, endings) for x in (start, box)) if b is not None]
    open_goals = tuple(
        (t.kind, t.ident)
        for t in _decide.targets(engine)
        if t.goal in undecided
        and t.kind in ("rule", "achievement")
        and any(holds(analysis, t.condition, x) is not None for x in (before if t.kind == "rule" else (start, box)))
    )
    values = tuple(tuple(resolve(s, tokens) for tokens in analysis.variables) for s in states)
    made = _Setup(box, start, open_goals, values, time.process_time() - started)
    if cache is not None:
        with cache.open("wb") as file:
            pickle.dump((made.box, made.start, made.open, made.values, made.seconds), file)
    return made


# --- blocking by goal ---------------------------------------------------------------------------


@dataclass
class _Blocked:
    """What blocking one goal did: whether it is excluded, the clauses it added, the queries it asked."""

    excluded: bool
    clauses: list[Clause]
    queries: int
    why: str


def _lower(turn: _Turn, values: dict[int, int]) -> Clause:
    """The clause that excludes every state whose counters ``values`` names are at most those values."""
    return frozenset((i, v + 1) for i, v in values.items() if v < turn.box[i].high)  # type: ignore[union-attr]


def _generalise(turn: _Turn, clause: Clause) -> Clause:
    """``clause`` with every literal dropped that it stays inductive (relative to B and the clauses) without."""
    for literal in sorted(clause):
        if len(clause) > 1 and literal in clause:
            smaller = clause - {literal}
            if turn.inductive(smaller):
                clause = smaller
    return clause


def _strengthen(
    turn: _Turn, clause: Clause, depth: int, stop: int, rare: dict[int, int] | None = None
) -> Clause | None:
    """``clause``, or a part of it, made inductive by blocking its counterexamples first (to ``depth``), or None.

    The step's unsat core (over the literals of the clause after the turn) and the base's give the
    literals that are needed; the rest are dropped one by one while the clause stays inductive.
    """
    while clause and len(turn.stats.seconds) < stop:
        base = turn.core(clause, start=True)
        if isinstance(base, frozenset):
            step = turn.core(clause, start=False)
            if isinstance(step, frozenset):
                made = _generalise(turn, base | step)
                turn.clauses.append(made)
                return made
            if depth == 0:
                turn.fails["depth"] += 1
                return None
            values = {i: turn.value(step, i) for i in turn.counters}
            if rare is None:
                cti = _lower(turn, values)
            else:  # only the counters below what plays show, each raised to that
                cti = frozenset((i, rare[i]) for i, v in values.items() if v < rare[i])
            if not cti:
                turn.fails["a counterexample with no counter below the plays' lows"] += 1
                return None
            if _strengthen(turn, cti, depth - 1, stop, rare) is None:
                return None
        else:
            turn.fails["broken by the first turn"] += 1
            return None
    turn.fails["budget" if clause else "empty"] += 1
    return None


def _block(turn: _Turn, target: Target, budget: int, depth: int, rare: dict[int, int] | None = None) -> _Blocked:
    """Clauses added until no state of B and the clauses meets ``target``'s condition, within ``budget`` queries."""
    first, count = len(turn.stats.seconds), len(turn.clauses)
    stop = first + budget
    reads = sorted({i for i in turn.analysis.reads(target.condition) if i is not None and i in turn.counters})
    why = "budget"
    while len(turn.stats.seconds) < stop:
        model = turn.reaches(target)
        if model is None:
            why = "blocked"
            break
        clause = _lower(turn, {i: turn.value(model, i) for i in reads})
        if not clause:
            why = "no counter to raise"
            break
        if _strengthen(turn, clause, depth, stop, rare) is None:
            why = f"not made inductive: {sorted(clause)}"
            break
    return _Blocked(why == "blocked", turn.clauses[count:], len(turn.stats.seconds) - first, why)


# --- the pairwise hull of samples, made inductive ------------------------------------------------


class _Hull:
    """The strongest clauses over one or two counters that a set of states keeps, weakened by counterexamples.

    For a pair of counters ``(i, j)`` and each ``a``, the clause ``x_i >= a or x_j >= b(a)`` with
    ``b(a)`` the lowest ``x_j`` of a sample with ``x_i < a``; for one counter, its lowest value.
    Only the corners of that staircase are kept, and only what B does not already state. A
    counterexample to induction (a turn from a state of B and the clauses to one outside them)
    adds its state after the turn to the samples, which weakens exactly the clauses it breaks.
    """

    def __init__(self, turn: _Turn, pairs: Sequence[tuple[int, int]], samples: Iterable[Sequence[int]]) -> None:
        self.turn = turn
        self.pairs = list(pairs)
        self.lows = {i: turn.box[i].low for i in turn.counters}  # type: ignore[union-attr]
        self.highs = {i: turn.box[i].high for i in turn.counters}  # type: ignore[union-attr]
        self.units = {i: self.highs[i] + 1 for i in turn.counters}
        self.lowest: dict[tuple[int, int], dict[int, int]] = {pair: {} for pair in self.pairs}
        self.added = 0
        for sample in samples:
            self.add(sample)
        self.added = 0

    def add(self, sample: Sequence[int]) -> None:
        """One more state the invariant must hold."""
        self.added += 1
        for i in self.units:
            self.units[i] = min(self.units[i], sample[i])
        for (i, j), lowest in self.lowest.items():
            if sample[j] < lowest.get(sample[i], self.highs[j] + 1):
                lowest[sample[i]] = sample[j]

    def pair(self, i: int, j: int) -> list[Clause]:
        """The corners of the staircase of ``(i, j)`` beyond what the units and B state."""
        lowest, units = self.lowest[(i, j)], self.units
        least, below = self.highs[j] + 1, {}
        for a in range(self.lows[i] + 1, self.highs[i] + 2):  # below[a]: the lowest x_j of a sample with x_i < a
            least = min(least, lowest.get(a - 1, least))
            below[a] = least
        floor = max(units[j], self.lows[j])
        return [
            frozenset({(i, a), (j, below[a])})
            for a in range(units[i] + 1, self.highs[i] + 1)
            if below[a] > floor and below[a + 1] < below[a]
        ]

    def clauses(self) -> dict[tuple[int, int], list[Clause]]:
        """The clauses, by pair (a counter's own bound under ``(i, i)``)."""
        made = {(i, i): [frozenset({(i, k)})] for i, k in self.units.items() if k > self.lows[i]}
        for i, j in self.pairs:
            made[(i, j)] = self.pair(i, j)
        return {key: value for key, value in made.items() if value}


@dataclass
class _Houdini:
    """What making the hull inductive took."""

    clauses: list[Clause]
    rounds: int
    counterexamples: int
    queries: int
    history: list[tuple[int, int]]  # (clauses, counterexamples so far) after each round


def _houdini(
    turn: _Turn, hull: _Hull, budget: int, *, log: bool = False, on_round: Callable[[list[Clause]], None] | None = None
) -> _Houdini | None:
    """The hull weakened until every clause holds one turn from the start and from B and the clauses.

    A pair's clauses are asked together (one query: a turn that breaks one of them), again after
    each counterexample, until none breaks; rounds until one adds no sample. None if ``budget``
    queries run out first.
    """
    first, rounds, history = len(turn.stats.seconds), 0, []
    terms: dict[Clause, Any] = {}

    def before(clause: Clause) -> Any:
        made = terms.get(clause)
        if made is None:
            made = terms[clause] = turn.before(clause)
        return made

    while len(turn.stats.seconds) - first < budget:
        rounds += 1
        added = hull.added
        clauses = hull.clauses()
        for key in list(clauses):
            for start in (True, False):
                while len(turn.stats.seconds) - first < budget:
                    own = clauses.get(key)
                    if not own:
                        break
                    broken = z3.Or(*[z3.Not(turn.after(c)) for c in own])
                    if start:
                        model = turn.ask(*turn.at_start, *turn.ends, broken)
                    else:
                        frame = [before(c) for cs in clauses.values() for c in cs]
                        model = turn.ask(*turn.inside, *frame, *turn.ends, broken)
                    if model is None:
                        break
                    hull.add(
                        [turn.value(model, i, turned=True) if i in hull.units else 0 for i in range(len(turn.box))]
                    )
                    clauses = hull.clauses()
        history.append((sum(len(c) for c in clauses.values()), hull.added))
        if log:
            print(
                f"    round {rounds}: {history[-1][0]} clauses, {hull.added} counterexamples, {turn.stats.line()}",
                flush=True,
            )
        if on_round is not None:
            on_round([c for cs in clauses.values() for c in cs])
        if hull.added == added:
            return _Houdini(
                [c for cs in clauses.values() for c in cs], rounds, hull.added, len(turn.stats.seconds) - first, history
            )
    return None


# --- soundness and goals -------------------------------------------------------------------------


def _broken(analysis: Analysis, clauses: Sequence[Clause], states: Iterable[Any]) -> int:
    """How many of ``states`` break a clause (0 for a sound invariant: every state after a turn keeps them)."""
    counters = {i for c in clauses for i, _ in c}
    count = 0
    for state in states:
        values = {i: resolve(state, analysis.variables[i]) for i in counters}
        count += any(all(values[i] < k for i, k in clause) for clause in clauses)
    return count


def _excluded(turn: _Turn, targets: Sequence[Target]) -> Counter[str]:
    """The goals no state of B and the clauses meets (for a rule, no ending holding), by kind."""
    found: Counter[str] = Counter()
    for target in targets:
        if turn.reaches(target) is None:
            found[target.kind] += 1
    return found


def _option(name: str, default: int) -> int:
    return int(sys.argv[sys.argv.index(name) + 1]) if name in sys.argv else default


def main() -> None:
    cache = Path(sys.argv[sys.argv.index("--cache") + 1]) if "--cache" in sys.argv else None
    sample, budget, depth = _option("--sample", 20), _option("--budget", 100), _option("--depth", 4)
    houdini = _option("--houdini", 3000)
    engine = Engine(make_runtime_pack())
    entry = engine.entry_ids()[0]
    analysis = analyse(engine.program, engine.entries[0], entry)
    setup = _setup(engine, analysis, cache)
    by_key: dict[tuple[str, str], Target] = {(t.kind, t.ident): t for t in _decide.targets(engine)}
    goals = [by_key[k] for k in setup.open]
    print(f"B and the open goals: {setup.seconds:.1f} s (when first found; --cache keeps them); open: {len(goals)}")
    turn = _Turn(analysis, setup.box, setup.start)
    print(f"encoding (one pass, every counter): {turn.built:.2f} s")
    samples = [[v if type(v) is int else 0 for v in s] for s in setup.values]
    pairs = [(i, j) for n, i in enumerate(turn.counters) for j in turn.counters[n + 1 :]]
    hull = _Hull(turn, pairs, samples)
    clauses = hull.clauses()
    for label, chosen in (
        ("each counter's lowest in plays", [c for (i, j), cs in clauses.items() if i == j for c in cs]),
        ("and the pairs' staircases", [c for cs in clauses.values() for c in cs]),
    ):
        turn.clauses, turn.stats = chosen, _Stats()
        excluded = _excluded(turn, goals)
        print(
            f"upper bound, {len(chosen)} clauses the guided search's plays keep ({label}; not inductive): "
            f"{sum(excluded.values())} goals excluded {dict(excluded)}; {turn.stats.line()}"
        )
    states = _plays(engine, entry, 60, seed=6)
    turn.clauses, turn.stats = [], _Stats()
    started = time.process_time()
    found = _houdini(turn, hull, houdini, log=True)
    print(f"Houdini over the plays' units and pairs: {time.process_time() - started:.1f} s, {turn.stats.line()}")
    if found is None:
        print(f"  not inductive within {houdini} queries ({hull.added} counterexamples)")
    else:
        turn.clauses = found.clauses
        excluded = _excluded(turn, goals)
        print(
            f"  {len(found.clauses)} clauses inductive after {found.rounds} rounds, {found.counterexamples} "
            f"counterexamples; goals excluded beyond B: {dict(excluded)}; broken by random plays' "
            f"{len(states)} states: {_broken(analysis, found.clauses, states)}"
        )
    turn.clauses, turn.stats = [], _Stats()
    rare = {i: min(s[i] for s in samples) for i in turn.counters}
    picked = [goals[k] for k in range(0, len(goals), max(1, len(goals) // sample))][:sample]
    started, blocked = time.process_time(), 0
    for target in picked:
        result = _block(turn, target, budget, depth, rare)
        blocked += result.excluded
    lemmas = turn.clauses
    sizes = Counter(len(c) for c in lemmas)
    print(
        f"blocking by goal ({len(picked)} goals, {budget} queries each, depth {depth}): {blocked} blocked, "
        f"{len(lemmas)} lemmas (by size {dict(sorted(sizes.items()))}), {time.process_time() - started:.1f} s, "
        f"{turn.stats.line()}; broken by random plays' states: {_broken(analysis, lemmas, states)}"
    )


if __name__ == "__main__":
    main()
