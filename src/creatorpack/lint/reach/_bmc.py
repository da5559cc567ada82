"""Witnesses by bounded model checking: z3 proposes plays of a few turns from an entry's start, the runtime checks.

For the goals the searches and the proofs left open, the one-pass encoding of a turn
(:mod:`~creatorpack.lint.reach._encode`) is unrolled from the start: turn 1 from the start's
point, each next turn from the states the previous one left (each turn's constants named apart,
tied by equalities to the values and answers before it). A query with ``n`` turns unrolled asks
whether some play reaches any of the open goals (a disjunction): an achievement, an ending or a
rule's completion by its condition on the state and answers after turn ``n``; a rule, active on
turn ``n + 1``, by its ``when`` on the state after turn ``n`` and the answers of turn ``n + 1`` (no
ending holding, its completion after none of the turns before), so that turn is not unrolled.
Whatever the encoding leaves free (whether a rule with effects was completed before a turn, a
condition it cannot encode) stays free: an over-approximation.

So every model is only a proposal: its answers are *replayed* with the runtime
(:meth:`~creatorpack.play.engine.Engine.advance`), turn by turn, and only a goal the replay
reaches gets a witness (a :class:`~creatorpack.lint.reach._witness.Reached`, as the searches
give). Every open goal a replay reaches is harvested; the goals true in the model that the replay
missed leave the query with ``n`` turns (so each query removes at least one), and it is asked again.
Bounded by counts only (:data:`QUERIES` queries in all, :data:`RLIMIT` of z3's resource count a
query), so the witnesses are the same on every machine.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Final

import z3  # type: ignore[import-untyped]

from creatorpack.contract.conditions import Goal
from creatorpack.lint.reach._abstract import Abstract, Analysis, tree_of
from creatorpack.lint.reach._encode import Encoder, Reading, Turned
from creatorpack.lint.reach._inductive import point
from creatorpack.lint.reach._witness import Move, Reached, Target
from creatorpack.play.engine import Engine, SessionState, Turn

__all__ = ["KINDS", "QUERIES", "RLIMIT", "TURNS", "Bmc", "witnesses"]

TURNS: Final = 2
"""Turns unrolled at most: an achievement is looked for in plays of up to that many, a rule one more."""

QUERIES: Final = 100
"""z3 queries in all, over every entry and number of turns."""

RLIMIT: Final = 100_000_000
"""z3's resource count (``rlimit``) one query may take; past it that many turns are given up for that entry."""

KINDS: Final = frozenset({"achievement", "ending", "rule", "completion"})
"""The goals it looks for (reveals are left: lint says nothing of a reveal it leaves undecided)."""


@dataclass(slots=True)
class Bmc:
    """What the unrolled turns found: witnesses by goal, and what they took (queries, models replayed)."""

    found: dict[Goal, Reached] = field(default_factory=dict)
    queries: int = 0
    models: int = 0
    spurious: int = 0
    """Models whose replay reached none of the goals they proposed."""
    unknown: int = 0
    """Queries z3 did not decide within :data:`RLIMIT`."""
    unrolled: dict[int, int] = field(default_factory=dict)
    """Queries by the turns they unrolled."""


def witnesses(
    engine: Engine,
    analyses: Sequence[Analysis],
    targets: Sequence[Target],
    *,
    boxes: Sequence[Abstract | None] | None = None,
    turns: int = TURNS,
    queries: int = QUERIES,
    rlimit: int = RLIMIT,
) -> Bmc:
    """Witnesses for ``targets`` of plays of ``turns`` turns unrolled (a rule: one more), each replayed.

    ``boxes``, per analysis, a box holding every state after one or more turns (the inductive
    box), which the turns after the first are encoded from (tighter than the analysis's own box,
    so more of each turn is folded before z3 sees it); ``None``: the analysis's own box.
    """
    made = Bmc()
    wanted = [t for t in targets if t.kind in KINDS]
    for at, analysis in enumerate(analyses):
        mine = [t for t in wanted if t.entries is None or analysis.entry in t.entries]
        if not mine or analysis.before is None or not analysis.variables:
            continue
        box = boxes[at] if boxes is not None and boxes[at] is not None else analysis.after
        assert box is not None
        _Unrolled(engine, analysis, box, made, queries, rlimit).search(mine, turns)
        if made.queries >= queries:
            break
    return made


class _Unrolled:
    """The turns of one entry unrolled from its start, as many as a query needs, each made once."""

    def __init__(self, engine: Engine, analysis: Analysis, box: Abstract, made: Bmc, queries: int, rlimit: int) -> None:
        self.engine = engine
        self.analysis = analysis
        self.encoder = Encoder(analysis)
        self.ctx = self.encoder.ctx
        self.box = box
        self.made = made
        self.queries = queries
        self.rlimit = rlimit
        self.turns: list[Turned] = []
        self.readings: dict[int, list[Reading]] = {}  # by k: what reads the state before turn k (tag @k)
        self.ties: dict[int, list[Any]] = {}  # by k: the state and answers before turn k, tied to turn k - 1's
        program = analysis.program
        self.observations = [
            (ident, values) for ident in program.observations if (values := _values(program.observations[ident]))
        ]
        self.completions = {ident: tree_of(program.conditions[c]) for ident, c in program.completable}

    # --- the encoding -------------------------------------------------------------------------

    def reading(self, k: int) -> Reading:
        """The state before turn ``k`` (after turn ``k - 1``) and its answers; the turns before it are made."""
        while len(self.turns) < k - 1:
            self._turn(len(self.turns) + 1)
        if k <= len(self.turns):
            reading = self.turns[k - 1].reading
            assert reading is not None
            return reading
        known = self.readings.get(k)
        if not known:
            self._read(self.encoder.reading(self._box(k), f"@{k}"), k)
            known = self.readings[k]
        return known[0]

    def _box(self, k: int) -> Abstract:
        return point(self.analysis, self.analysis.initial) if k == 1 else self.box

    def _turn(self, k: int) -> None:
        turned = self.encoder.turn(self._box(k), f"@{k}")
        assert turned.reading is not None
        self.turns.append(turned)
        self._read(turned.reading, k)

    def _read(self, reading: Reading, k: int) -> None:
        """Keep ``reading``; the state and answers before turn ``k`` are those turn ``k - 1`` left (the start's)."""
        self.readings.setdefault(k, []).append(reading)
        if k in self.ties:
            return  # the constants are the same, whichever reading made them
        ties = self.ties[k] = []
        for ident, _ in self.observations:
            before = reading.answer(ident, after=False)
            assert before is not None
            if k == 1:
                ties.append(before[0] == 0)  # a session starts with no answer given
                continue
            earlier = self.turns[k - 2].reading
            assert earlier is not None
            after = earlier.answer(ident, after=True)
            assert after is not None
            ties.append(before[0] == after[0])
        if k > 1:
            values = self.turns[k - 2].values
            ties += [reading.constant(slot) == values[slot] for slot in self.encoder.slots]

    def _base(self, k: int) -> list[Any]:
        """Every constraint of a play of ``k`` turns: the turns' (no ending before each), the ties, the readings'."""
        parts: list[Any] = []
        for turned in self.turns[:k]:
            parts += [c for c in turned.pre if not isinstance(c, bool)]
        for j in range(1, k + 2):
            parts += self.ties.get(j, [])
            for reading in self.readings.get(j, []):
                parts += reading.constraints
        return parts

    def goal(self, target: Target, n: int) -> Any:
        """``target`` reached with ``n`` turns unrolled, as a z3 Boolean (``False``: not, by the encoding).

        An achievement, an ending, a completion: by its condition after turn ``n`` (``n >= 1``). A
        rule: active on turn ``n + 1``, its ``when`` on the state after turn ``n`` and the answers of
        turn ``n + 1``, no ending holding there, its completion after none of the turns before.
        """
        reading = self.reading(n + 1)
        if target.kind != "rule":
            return False if n == 0 else reading.condition(target.condition, after=False)
        if target.ident in self.analysis.completed:
            return False
        ends = reading.pre(self.encoder.endings)[: len(self.encoder.endings)]  # no ending holds: a turn is taken
        if any(end is False for end in ends):
            return False
        made = reading.condition(target.condition, after=True)
        completion = self.completions.get(target.ident)
        parts = [made, *ends]
        if completion is not None and made is not False:  # completed after a turn before: never active again
            done = [self.reading(j).condition(completion, after=False) for j in range(2, n + 2)]
            parts += [z3.Not(_term(d, self.ctx)) for d in done]
        parts = [p for p in parts if p is not True]
        if any(p is False for p in parts):
            return False
        return z3.And(*parts) if len(parts) > 1 else parts[0] if parts else True

    # --- asking and replaying -----------------------------------------------------------------

    def search(self, targets: Sequence[Target], turns: int) -> None:
        """Plays of 0, 1, ... turns unrolled, each open goal asked (in one disjunction) until none is left.

        With ``n`` turns unrolled, a play of ``n`` turns reaches an achievement and one of ``n + 1``
        a rule (the turn it is active on is not unrolled), for ``n`` up to ``turns``.
        """
        open_ = {t.goal: t for t in targets if t.goal not in self.made.found}
        for n in range(turns + 1):
            now = [t for g, t in open_.items() if g not in self.made.found and (t.kind == "rule" or n > 0)]
            terms = {t.goal: self.goal(t, n) for t in now}
            asked = {goal: term for goal, term in terms.items() if term is not False}
            if not asked:
                continue
            # One incremental solver for the plays of n turns: each query's disjunction behind a fresh switch,
            # so that the turns are bit-blasted once and what the solver learnt is kept (a third of the time).
            solver = z3.SolverFor("QF_BV", ctx=self.ctx)
            solver.add(*self._base(n))
            while asked:
                if self.made.queries >= self.queries:
                    return
                self.made.queries += 1
                self.made.unrolled[n] = self.made.unrolled.get(n, 0) + 1
                switch = z3.Bool(f"query{self.made.queries}", self.ctx)
                solver.add(z3.Implies(switch, z3.Or(*(_term(t, self.ctx) for t in asked.values()))))
                solver.set("rlimit", self.rlimit)
                answer = solver.check(switch)
                if answer != z3.sat:
                    self.made.unknown += answer == z3.unknown
                    break
                model = solver.model()
                proposed = [g for g, t in asked.items() if _true(model, _term(t, self.ctx))]
                reached = self._replay(self._moves(model, n + 1), open_)
                self.made.models += 1
                self.made.spurious += not any(g in reached for g in proposed)
                for goal in [*proposed, *reached]:
                    asked.pop(goal, None)
                if not proposed:  # z3's model satisfies the disjunction, so some goal is true in it
                    break

    def _moves(self, model: Any, k: int) -> list[Move]:
        """The answers of each of the ``k`` turns, as the model gives them (an answer left at 0 is not given)."""
        moves: list[Move] = []
        for j in range(1, k + 1):
            reading = self.reading(j)
            move: Move = {}
            for ident, values in self.observations:
                found = reading.answer(ident, after=True)
                assert found is not None
                given = model.eval(found[0], model_completion=True).as_long()
                if 0 < given <= len(values):
                    move[ident] = values[given - 1]
            moves.append(move)
        return moves

    def _replay(self, moves: Sequence[Move], open_: Mapping[Goal, Target]) -> set[Goal]:
        """The open goals the runtime reaches playing ``moves`` from the start, each given its witness."""
        session, _ = self.engine.start(self.analysis.entry)
        reached: set[Goal] = set()
        for turn, move in enumerate(moves, 1):
            if session.ending is not None:
                break
            before = session
            try:
                session, active = self.engine.advance(session, Turn(move))
            except Exception:  # noqa: BLE001 - answers the runtime refuses reach nothing
                break
            for goal in _reached(before, session, active):
                if goal in open_ and goal not in self.made.found:
                    self.made.found[goal] = Reached(self.analysis.entry, list(moves[:turn]))
                    reached.add(goal)
        return reached


def _reached(before: SessionState, after: SessionState, active: Sequence[str]) -> list[Goal]:
    """The goals a turn reaches: its active rules, and what it newly unlocked, ended or completed."""
    found = [Goal("rule", ident) for ident in active]
    found += [Goal("achievement", ident) for ident in after.achievements[len(before.achievements) :]]
    found += [Goal("ending", after.ending)] if after.ending is not None else []
    found += [Goal("completion", ident) for ident in sorted(after.completed - before.completed)]
    return found


def _values(observation: Mapping[str, Any]) -> list[Any]:
    """An observation's answers, in the encoding's order (``[]``: open answers, which the encoding leaves free)."""
    if observation.get("type") == "boolean":
        return [True, False]
    choices = observation.get("choices")
    if observation.get("type") == "choice" and isinstance(choices, Mapping):
        return list(choices)
    return []


def _true(model: Any, term: Any) -> bool:
    return bool(z3.is_true(model.eval(term, model_completion=True)))


def _term(value: Any, ctx: Any) -> Any:
    return z3.BoolVal(value, ctx) if isinstance(value, bool) else value
