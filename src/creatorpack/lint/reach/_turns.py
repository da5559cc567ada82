"""Turn by turn: one over-approximation per turn count, in which the rules of a turn share its answers.

:mod:`~creatorpack.lint.reach._abstract` joins every turn into one box and lets each rule fire or not on
its own, so a counter that twenty rules raise on any answer and one rule lowers on some answer is
allowed to fall. Here the states after turn 0, 1, 2, ... are each over-approximated by a box of
their own (a trace partition by turn count): ``B0`` is the entry's initial state and ``B(t+1)`` is
one turn from ``B(t)``. In that turn every rule reads the same answers, so the lowest and highest
value each variable can end the turn with are found by a branch and bound over the answers (and
over the parts of conditions the box leaves open, each read once), replaying the rules that write
it in document order with their clamps, limits and rejections. Once a turn's box lies within an
earlier one, the boxes so far hold every reachable state: a goal that holds on none of them is
unreachable. A branch and bound that runs out of its node budget keeps the bound it has, which is
sound; the budget is counted in nodes, so the result is the same on every machine.

If the boxes do not settle within :data:`TURNS`, the last one is joined with the turns after it
until it is a fixed point (still with shared answers; widened after :data:`PLAIN_JOINED`
passes), and the proofs stand on that. Boxes that do not become a fixed point within
:data:`JOINED_PASSES`, or that take more than :data:`WORK` nodes, prove nothing.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from creatorpack._json import pointer
from creatorpack.lint.reach._abstract import Abstract, Analysis, IntRange, Members, Value, checker_for, tree_of, widen
from creatorpack.lint.reach._bnb import Effects, Formulas, Memo, Writer, extreme
from creatorpack.play.conditions import resolve

__all__ = ["JOINED_PASSES", "NODE_BUDGET", "PLAIN_JOINED", "TURNS", "WORK", "Trace", "by_turn"]

TURNS: Final = 8
"""Turns given a box of their own; then the last box is joined with the turns after it."""

JOINED_PASSES: Final = 32
"""Joined turns after :data:`TURNS` within which the last box must become a fixed point."""

PLAIN_JOINED: Final = 8
"""Joined turns before an interval still growing is widened to the next threshold the pack names."""

WORK: Final = 400_000
"""Branch-and-bound nodes one entry's boxes may take in all (a pack that needs more gets no proof here)."""

NODE_BUDGET: Final = 16
"""Branch-and-bound nodes per variable, per bound and turn; past it the bound found so far is kept."""


@dataclass(frozen=True, slots=True)
class Trace:
    """Boxes that hold every reachable state: ``after[t]`` those after turn ``t`` (``after[0]``: the start).

    When ``tail`` is true the last box holds every state after that turn *or any later one*;
    otherwise the boxes settled (a turn led back inside an earlier box) and need no tail.
    ``before`` are the same boxes without the states in which an ending holds.
    """

    after: tuple[Abstract, ...]
    before: tuple[Abstract, ...]
    tail: bool

    def describe(self, analysis: Analysis, index: int) -> str:
        """How variable ``index`` moves: "`/x` is 10 at the start, 15..20 after turn 1, 17..20 from turn 2 on"."""
        shown = [box[index].show() for box in self.after]
        parts = [f"{shown[0]} at the start"]
        first = 1
        for turn in range(1, len(shown)):
            if turn + 1 < len(shown) and shown[turn + 1] == shown[turn]:
                continue
            if turn == len(shown) - 1 and self.tail:
                parts.append(f"{shown[turn]} from turn {first} on")
            else:
                parts.append(
                    f"{shown[turn]} after turn {first}"
                    if first == turn
                    else f"{shown[turn]} after turns {first}-{turn}"
                )
            first = turn + 1
        return f"`{pointer(analysis.variables[index])}` is " + ", ".join(parts)


def by_turn(analysis: Analysis, work: int = WORK) -> Trace | None:
    """Boxes turn by turn for ``analysis``'s entry (see the module docstring).

    ``None`` when nothing is tracked, or when the boxes do not become a fixed point within
    :data:`JOINED_PASSES` joined turns or ``work`` branch-and-bound nodes (no proof then).
    """
    if not analysis.variables:
        return None
    checker = checker_for(analysis)
    endings = [tree_of(analysis.program.conditions[goal.when]) for goal in analysis.program.endings]
    turn = _Turn(analysis, work)
    after: list[Abstract] = [_start(analysis)]
    before: list[Abstract] = []
    try:
        for _ in range(TURNS):
            ready = checker.exclude(after[-1], endings)
            if ready is None:
                return Trace(tuple(after), tuple(before), tail=False)
            before.append(ready)
            grown = _meet(turn.after(ready), analysis.after)
            if any(_within(grown, seen) for seen in after):
                return Trace(tuple(after), tuple(before), tail=False)
            after.append(grown)
        joined = after[-1]
        for passes in range(JOINED_PASSES):
            ready = checker.exclude(joined, endings)
            if ready is None:
                break
            # Rejections are followed only turn by turn: followed here too, a joined box creeps a
            # value or two a pass and does not settle within JOINED_PASSES on a big pack.
            grown = _join(joined, _meet(turn.after(ready, rejections=False), analysis.after))
            if grown == joined:
                break
            joined = widen(analysis, joined, grown) if passes >= PLAIN_JOINED else grown
        else:
            return None
    except _OutOfWork:
        return None
    after[-1] = joined
    last = checker.exclude(joined, endings)
    return Trace(tuple(after), tuple(before) + ((last,) if last is not None else ()), tail=True)


def _start(analysis: Analysis) -> Abstract:
    start: list[Value] = []
    for tokens in analysis.variables:
        value = resolve(analysis.initial, tokens)
        if isinstance(value, list):
            members = frozenset(m for m in value if isinstance(m, str))
            start.append(Members(members, members))
        else:
            start.append(IntRange(value, value))
    return tuple(start)


def _within(inner: Abstract, outer: Abstract) -> bool:
    for a, b in zip(inner, outer, strict=True):
        if isinstance(a, IntRange) and isinstance(b, IntRange) and (a.low < b.low or a.high > b.high):
            return False
        if isinstance(a, Members) and isinstance(b, Members) and not (a.must >= b.must and a.may <= b.may):
            return False
    return True


def _join(left: Abstract, right: Abstract) -> Abstract:
    return tuple(a.join(b) for a, b in zip(left, right, strict=True))  # type: ignore[arg-type]


def _meet(left: Abstract, right: Abstract) -> Abstract:
    met: list[Value] = []
    for a, b in zip(left, right, strict=True):
        if isinstance(a, IntRange) and isinstance(b, IntRange):
            met.append(
                IntRange(max(a.low, b.low), min(a.high, b.high)) if max(a.low, b.low) <= min(a.high, b.high) else a
            )
        elif isinstance(a, Members) and isinstance(b, Members):
            must, may = a.must | b.must, a.may & b.may
            met.append(Members(must, may) if must <= may else a)
        else:  # pragma: no cover - both come from the same variables
            met.append(a)
    return tuple(met)


# --- one turn --------------------------------------------------------------------------------


class _OutOfWork(Exception):  # noqa: N818 - a control-flow signal, not an error
    """The boxes took more branch-and-bound nodes than they may."""


class _Turn:
    """One turn from a box: per slot, the lowest and highest value (or a member's presence) after it."""

    def __init__(self, analysis: Analysis, work: int) -> None:
        self.analysis = analysis
        self.effects = Effects(analysis)
        self.left = work
        self.memo = Memo()

    def _extreme(self, formulas: Formulas, writers: list[Writer], start: int, *, lowest: bool) -> int:
        value, nodes = extreme(formulas, writers, start, lowest=lowest, budget=NODE_BUDGET)
        self.left -= nodes
        if self.left < 0:
            raise _OutOfWork
        return value

    def after(self, before: Abstract, *, rejections: bool = True) -> Abstract:
        """Every state one turn can lead to from ``before``, as a box (``rejections``: see :meth:`Effects.writers`)."""
        formulas = Formulas(self.analysis, before, memo=self.memo)
        writers = self.effects.writers(formulas, rejections=rejections)
        result = list(before)
        for i in self.effects.untracked:
            result[i] = self.analysis.after[i]
        members: dict[int, tuple[set[str], set[str]]] = {}
        for slot in self.effects.slots:
            i, member = slot
            found = writers.get(slot, [])
            start = self.effects.start(slot, before[i])
            if member is None:
                if found:
                    low = self.effects.domains[i][0]
                    least = self._extreme(formulas, found, start, lowest=True)
                    most = self._extreme(formulas, found, start, lowest=False)
                    result[i] = IntRange(least + low, most + low)
                continue
            must, may = members.setdefault(i, (set(), set()))
            if found:
                present = self._extreme(formulas, found, start, lowest=True) == 1
                can = self._extreme(formulas, found, start, lowest=False) == 1
            else:
                present, can = start == 2, bool(start & 2)
            if present:
                must.add(member)
            if can:
                may.add(member)
        for i, (must, may) in members.items():
            result[i] = Members(frozenset(must), frozenset(may))
        return tuple(result)
