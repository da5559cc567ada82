"""The turns from one state, every move at once: moves as bits of an int, states interned, transitions memoised.

:class:`~creatorpack.lint.reach._successor.Successor` plays the moves of a state one by one (with
shortcuts); the exhaustive search needs only the distinct outcomes and, for each, which moves
lead to it. So here a set of moves is an ``int`` whose bit ``i`` stands for the move of global
index ``i`` (:class:`MoveTable`), and a turn from a state is computed as masks:

1. Each rule ``when`` gives the mask of the moves on which it holds: a condition that reads
   answers is, for each class of answers it tells apart (the values of the observations it
   reads), a condition of the state alone, and all of them are one generated function of the
   state per table of moves (:meth:`Turns._reader`), each distinct leaf evaluated once.
2. The rules with effects, in document order, split the moves by the state they lead to: a rule
   moves the moves on which it is active from their state to the state after its effects, and
   moves that come to the same state merge. A state is interned (an ``int`` per distinct state,
   found by its frozen form: a tuple of its members' values, sets as tuples), and one rule's
   effects on one state are computed once per search (``(state, rule) -> state``); they read and
   write only the rule's members, so they run once per (rule, those members' values), and the
   next state's frozen form is the last one's with those members replaced (no serialising).
3. On each state after the turn, the open rules' ``completion``, the endings' and the searched
   achievements' ``when`` split the moves again (so evaluated, memoised per state), and so does which
   observations stay unanswered.

The same semantics as a turn (``docs/runtime.md``; :mod:`~creatorpack.lint.reach._successor`),
and ``tests/test_reach_successor.py`` checks :meth:`Turns.expand` against it move by move.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Container, Hashable, Mapping, Sequence
from operator import itemgetter
from types import MappingProxyType
from typing import Any, Final

import orjson

from creatorpack.contract.conditions import AllOf, AnyOf, Condition, Goal, LiteralCond, Not, Observed, parse
from creatorpack.play._effects import EffectRunner, compile_effects
from creatorpack.play.conditions import generate_all, make_evaluator
from creatorpack.play.program import Program
from creatorpack.play.state import set_paths

__all__ = ["MoveTable", "Outcome", "Turns"]

Move = dict[str, Any]  # as in the search (:data:`~creatorpack.lint.reach._witness.Move`)


class MoveTable:
    """The moves of the states whose all-named observations ``fresh`` are still unanswered, as bits.

    ``moves``: the moves in the search's order, each with its answer classes (one byte an
    observation, ``0`` for the class no condition names or "unanswered", else ``1 +`` the
    position of the named value); ``radices``: each observation's count of classes. A move's bit
    is its global index: its classes read as a number whose digits are the observations (the
    first the most significant) and whose digit is the class with "unanswered" last, so the
    moves' order is the order of their bits, and the same answers have the same bit in every table.
    """

    def __init__(self, serial: int, moves: Sequence[tuple[Move, bytes]], radices: Sequence[int], fresh: frozenset[str]):
        self.serial = serial
        self.moves = [move for move, _ in moves]
        self.bits = [_index(classes, radices) for _, classes in moves]
        self.position = {bit: i for i, bit in enumerate(self.bits)}
        self.all = 0
        parts: dict[frozenset[str], int] = {}
        for move, bit in zip(self.moves, self.bits, strict=True):
            self.all |= 1 << bit
            after = fresh.difference(move) if fresh else fresh
            parts[after] = parts.get(after, 0) | 1 << bit
        self.fresh_parts = tuple(parts.items())
        """Each set of all-named observations still unanswered after a move, with the moves that leave it."""
        self._classes: dict[tuple[str, ...], tuple[tuple[Move, int], ...]] = {}

    def classes(self, reads: tuple[str, ...]) -> tuple[tuple[Move, int], ...]:
        """The moves grouped by their answers to ``reads``: each group's answers to them, and its moves."""
        known = self._classes.get(reads)
        if known is None:
            groups: dict[tuple[Any, ...], tuple[dict[str, Any], int]] = {}
            for move, bit in zip(self.moves, self.bits, strict=True):
                seen = tuple((ident, move[ident]) if ident in move else (ident,) for ident in reads)
                answers, mask = groups.get(seen) or ({ident: move[ident] for ident in reads if ident in move}, 0)
                groups[seen] = (answers, mask | 1 << bit)
            known = self._classes[reads] = tuple(groups.values())
        return known

    def move(self, bit: int) -> Move:
        """The move whose bit is ``bit``."""
        return self.moves[self.position[bit]]


def _index(classes: bytes, radices: Sequence[int]) -> int:
    index = 0
    for byte, radix in zip(classes, radices, strict=True):
        index = index * radix + (byte - 1 if byte else radix - 1)
    return index


Outcome = tuple[int, int, "str | None"]
"""Moves of a state that lead to one tuple: their bits, the tuple's ``int`` (:attr:`Turns.tuples`), the ending."""


class Turns:
    """A pack's turns by classes of moves (see the module docstring); ``heard``: the observations moves answer."""

    def __init__(self, program: Program, achievements: Collection[str], heard: Sequence[str]) -> None:
        searched = set(heard)
        order = {ident: i for i, ident in enumerate(heard)}
        # Each condition used: the observations moves answer that it reads (None: it reads no answer).
        self._conditions: dict[int, tuple[str, ...] | None] = {}

        def slot(index: int) -> int:
            if index not in self._conditions:
                compiled = program.conditions[index]
                reads = tuple(sorted(compiled.observations & searched, key=order.__getitem__))
                self._conditions[index] = reads if compiled.observations else None
            return index

        self._steps: list[tuple[EffectRunner, dict[int, bool]]] = []
        rules: list[tuple[str, Goal, int, int]] = []
        for rule in program.rules:
            step = -1
            if rule.effects:
                step = len(self._steps)
                self._steps.append(
                    (compile_effects([(rule.id, rule.when, rule.effects, rule.keys)]), {rule.when: True})
                )
            rules.append((rule.id, Goal("rule", rule.id), slot(rule.when), step))
        self._rules = tuple(rules)
        self._whens = tuple(dict.fromkeys(when for _, _, when, _ in rules))
        self._completions = tuple((rid, Goal("completion", rid), slot(index)) for rid, index in program.completable)
        ranked = sorted(enumerate(program.endings), key=lambda pair: (-pair[1].priority, pair[0]))
        self._endings = tuple((goal.id, Goal("ending", goal.id), slot(goal.when)) for _, goal in ranked)
        self._achievements = tuple(
            (Goal("achievement", goal.id), slot(goal.when)) for goal in program.achievements if goal.id in achievements
        )
        later = [index for _, _, index in self._completions]
        later += [index for _, _, index in self._endings] + [index for _, index in self._achievements]
        self._sets = set_paths(program.schema)
        self._trees = {
            index: program.conditions[index].tree or parse(program.conditions[index].source)
            for index in self._conditions
        }
        self._lists = (self._whens, tuple(later))
        self._readers: dict[tuple[int, int], _Reader] = {}  # (table, list) -> its reader
        self.states: list[Mapping[str, Any]] = []
        """The distinct states met, by their ``int``."""
        self.tuples: list[tuple[int, frozenset[str], frozenset[str]]] = []
        """The distinct (state, completed rules, observations still unanswered) met, by their ``int``."""
        self._ids: dict[Hashable, int] = {}  # a state's frozen form (:func:`_frozen`) -> its ``int``
        self._frozen: list[Hashable] = []  # by state: its frozen form
        self._members: tuple[str, ...] | None = None  # the top-level members of the first state, sorted
        self._slots: list[_Slots | None] = []  # by step: how to read and replace the members its rule writes
        self._projected: list[dict[Any, tuple[dict[str, Any], tuple[Hashable, ...]]]] = []  # by step
        self._keys = [keys for rule in program.rules if rule.effects for keys in (rule.keys,)]
        self._tuple_ids: dict[tuple[int, frozenset[str], frozenset[str]], int] = {}
        self._moved: list[dict[int, int]] = []  # by state: step -> the state after that rule's effects
        self._before: dict[tuple[int, int], tuple[int, ...]] = {}  # (state, table) -> the rule whens' moves
        self._plans: dict[tuple[tuple[int, ...], frozenset[str]], _Plan] = {}
        self._later: dict[tuple[int, frozenset[str]], dict[int, _Later]] = {}  # (table, completed) -> by state

    def intern(self, state: Mapping[str, Any]) -> int:
        """The ``int`` of ``state`` (equal states, equal ``int``s)."""
        if self._members is None:
            self._members = tuple(sorted(state))
            self._slots = [_slots(self._members, keys) for keys in self._keys]
            self._projected = [{} for _ in self._keys]
        return self._add(_frozen(state, self._members), state)

    def _add(self, frozen: Hashable, state: Mapping[str, Any]) -> int:
        """The ``int`` of the state whose frozen form is ``frozen``, ``state`` kept when it is new."""
        known = self._ids.get(frozen)
        if known is None:
            known = self._ids[frozen] = len(self.states)
            self.states.append(state)
            self._frozen.append(frozen)
            self._moved.append({})
        return known

    def tuple_of(self, state: int, completed: frozenset[str], fresh: frozenset[str]) -> int:
        """The ``int`` of a (state, completed rules, observations still unanswered) tuple."""
        key = (state, completed, fresh)
        known = self._tuple_ids.get(key)
        if known is None:
            known = self._tuple_ids[key] = len(self.tuples)
            self.tuples.append(key)
        return known

    def _masks(self, at: int, table: MoveTable, which: int) -> tuple[int, ...]:
        """The moves of ``table`` on which each condition of list ``which`` (0: the whens, 1: after) holds on ``at``."""
        reader = self._readers.get((table.serial, which))
        if reader is None:
            reader = self._readers[table.serial, which] = self._reader(table, self._lists[which])
        return reader(self.states[at])

    def _reader(self, table: MoveTable, indices: Sequence[int]) -> _Reader:
        """One generated function giving the moves of ``table`` on which each condition of ``indices`` holds on a state.

        A condition that reads answers becomes one condition of the state per class of answers it
        tells apart, its ``observed`` tests replaced by their values on that class; all are then
        evaluated at once (:func:`~creatorpack.play.conditions.generate_all`, each distinct leaf
        once), and each condition's moves are the classes' moves where it holds.
        """
        trees: list[Condition] = []
        masks: list[int] = []
        terms: list[str] = []
        for index in indices:
            reads = self._conditions[index]
            classes = ((_NONE, table.all),) if reads is None else table.classes(reads)
            first = len(trees)  # trees and masks go in side by side: a class's tree and moves have one position
            for answers, moves in classes:
                trees.append(self._trees[index] if reads is None else _answered(self._trees[index], answers))
                masks.append(moves)
            if len(classes) > _INLINE:  # a long chain of `|` would nest too deep for Python's compiler
                terms.append(f"_join(v, _k, {first}, {len(classes)})")
            else:
                terms.append(" | ".join(f"(_k[{p}] if v[{p}] else 0)" for p in range(first, len(trees))) or "0")
        if not indices:
            return _nothing
        code = f"def read(s):\n    v = _every(s, _none)\n    return ({', '.join(terms)},)\n"
        namespace: dict[str, Any] = {
            "_every": generate_all(trees, self._sets),
            "_none": _NONE,
            "_k": masks,
            "_join": _join,
        }
        exec(compile(code, "<moves>", "exec"), namespace)  # noqa: S102 - code built from indices only
        reader: _Reader = namespace["read"]
        return reader

    def _plan(self, whens: tuple[int, ...], completed: frozenset[str], every: int) -> _Plan:
        """The open rules active on some move, and the moves split by the rules with effects active on them.

        The splits are a tree: ``steps`` are (parent, step) pairs, each the state after one rule's
        effects on its parent's (``-1``: the state before the turn), so that a prefix of rules
        that several splits share is played once; each block of moves names the step it ends at.
        """
        holds = dict(zip(self._whens, whens, strict=True))
        goals: dict[Goal, int] = {}
        steps: list[tuple[int, int]] = []
        blocks: list[tuple[int, int]] = [(every, -1)]
        for rid, key, when, step in self._rules:
            mask = holds[when]
            if not mask or rid in completed:
                continue
            goals[key] = goals.get(key, 0) | mask
            if step < 0:
                continue
            split: list[tuple[int, int]] = []
            for moves, last in blocks:
                if moves & mask:
                    steps.append((last, step))
                    split.append((moves & mask, len(steps) - 1))
                if moves & ~mask:
                    split.append((moves & ~mask, last))
            blocks = split
        return tuple(steps), tuple(blocks), tuple(goals.items())

    def _move(self, at: int, step: int) -> int:
        """The state after the effects of the rule ``step`` on state ``at`` (computed once a search).

        A rule's effects read and write only the members it writes (``Rule.keys``), so they are
        run once per (rule, values of those members) and the new state is the old one with those
        members replaced: its frozen form a tuple built from the old one, no serialising.
        """
        slots = self._slots[step]
        frozen = self._frozen[at]
        if slots is None or type(frozen) is not tuple:  # a member the first state lacks: the whole state
            run, values = self._steps[step]
            working = dict(self.states[at])
            run(values, working, frozenset(), [])  # type: ignore[arg-type]  # indexed by condition, as a tuple is
            to = self._moved[at][step] = self.intern(working)
            return to
        project, rebuild = slots
        key = project(frozen)
        memo = self._projected[step]
        known = memo.get(key)
        if known is None:
            run, values = self._steps[step]
            working = dict(self.states[at])
            run(values, working, frozenset(), [])  # type: ignore[arg-type]  # indexed by condition, as a tuple is
            keys = self._keys[step]
            known = memo[key] = (
                {k: working[k] for k in keys if k in working},  # effects add no member (nor remove one)
                tuple([_freeze(working[k]) if k in working else _ABSENT for k in keys]),
            )
        changes, replaced = known
        now = rebuild(frozen, replaced)
        known_to = self._ids.get(now)
        if known_to is None:
            state = dict(self.states[at])
            state.update(changes)
            known_to = self._add(now, state)
        self._moved[at][step] = known_to
        return known_to

    def _after(self, at: int, table: MoveTable, completed: frozenset[str]) -> _Later:
        """On state ``at`` after a turn: the moves split by the tuple and ending they reach, and each goal's moves."""
        later = self._masks(at, table, 1)
        goals: list[tuple[Goal, int]] = []
        parts = [(table.all, completed)]
        position = 0
        for rid, key, _ in self._completions:
            done = later[position]
            position += 1
            if not done or rid in completed:
                continue
            goals.append((key, done))
            split: list[tuple[int, frozenset[str]]] = []
            for part, now in parts:
                if part & done:
                    split.append((part & done, now | {rid}))
                if part & ~done:
                    split.append((part & ~done, now))
            parts = split
        ends: list[tuple[str | None, int]] = []
        left = table.all
        for ident, key, _ in self._endings:
            holding = later[position] & left
            position += 1
            if holding:
                goals.append((key, holding))
                ends.append((ident, holding))
                left ^= holding
        if left:
            ends.append((None, left))
        for key, _ in self._achievements:
            holding = later[position]
            position += 1
            if holding:
                goals.append((key, holding))
        outcomes: list[tuple[int, int, str | None]] = []
        for part, now in parts:
            for ending, ended in ends:
                both = part & ended
                if not both:
                    continue
                for fresh, leaving in table.fresh_parts:
                    these = both & leaving
                    if these:
                        outcomes.append((these, self.tuple_of(at, now, fresh), ending))
        found = self._later[table.serial, completed][at] = (tuple(outcomes), tuple(goals))
        return found

    def expand(
        self, at: int, completed: frozenset[str], table: MoveTable, pending: Container[Goal]
    ) -> tuple[list[Outcome], dict[Goal, int]]:
        """The turns with each move of ``table`` from state ``at``: their outcomes, and the ``pending`` goals' moves.

        The goals are ``rule`` (active), ``completion`` (completed by the turn), ``ending`` and
        ``achievement`` (the searched ones whose ``when`` holds after the turn) goals, each with
        the moves that reach it; the outcomes partition the table's moves.
        """
        serial = table.serial
        whens = self._before.get((at, serial))
        if whens is None:
            whens = self._before[at, serial] = self._masks(at, table, 0)
        plan = self._plans.get((whens, completed))
        if plan is None:
            plan = self._plans[whens, completed] = self._plan(whens, completed, table.all)
        steps, blocks, rules = plan
        goals = {key: moves for key, moves in rules if key in pending}
        # The state after each step of the plan, from this one: each rule's effects on a state played once a search.
        states: list[int] = []
        moved = self._moved
        for parent, step in steps:
            state = at if parent < 0 else states[parent]
            to = moved[state].get(step)
            if to is None:
                to = self._move(state, step)
            states.append(to)
        afters: dict[int, int] = {}
        for moves, last in blocks:
            to = at if last < 0 else states[last]
            afters[to] = afters.get(to, 0) | moves
        outcomes: list[Outcome] = []
        later = self._later.get((serial, completed))
        if later is None:
            later = self._later[serial, completed] = {}
        for to, moves in afters.items():
            found = later.get(to)
            if found is None:
                found = self._after(to, table, completed)
            parts, reached = found
            for part, ident, ending in parts:
                these = part & moves
                if these:
                    outcomes.append((these, ident, ending))
            for key, holding in reached:
                if key in pending and holding & moves:
                    goals[key] = goals.get(key, 0) | (holding & moves)
        return outcomes, goals


_Plan = tuple[tuple[tuple[int, int], ...], tuple[tuple[int, int], ...], tuple[tuple[Goal, int], ...]]
"""The steps (parent, rule), the moves split by the step they end at, and each open rule's moves where active."""
_Later = tuple[tuple[Outcome, ...], tuple[tuple[Goal, int], ...]]
"""On a state after a turn: the moves split by tuple and ending, and each goal's moves (over all moves)."""


_Reader = Callable[[Mapping[str, Any]], tuple[int, ...]]
"""A state -> the moves of a table on which each condition of a list holds (see :meth:`Turns._reader`)."""

_INLINE: Final = 32
"""Classes of answers of one condition up to which its moves are an inline chain of ``|`` in a reader."""

_NONE: Final[Mapping[str, Any]] = MappingProxyType({})  # the answers (or state) a condition that reads none is given


def _join(values: Sequence[bool], masks: Sequence[int], first: int, count: int) -> int:
    """The OR of ``masks[p]`` for the positions ``p`` from ``first`` (``count`` of them) where ``values[p]`` holds."""
    found = 0
    for position in range(first, first + count):
        if values[position]:
            found |= masks[position]
    return found


def _nothing(state: Mapping[str, Any]) -> tuple[int, ...]:  # noqa: ARG001 - a reader of no condition
    return ()


def _answered(node: Condition, answers: Mapping[str, Any]) -> Condition:
    """``node`` with each ``observed`` test replaced by its value on ``answers`` (the runtime's own test decides it)."""
    match node:
        case Observed():
            return LiteralCond(make_evaluator(node)(_NONE, answers))
        case AllOf(conditions=children):
            return AllOf(tuple(_answered(child, answers) for child in children))
        case AnyOf(conditions=children):
            return AnyOf(tuple(_answered(child, answers) for child in children))
        case Not(condition=inner):
            return Not(_answered(inner, answers))
        case _:
            return node


_ABSENT: Final = object()  # the frozen form of a member a state lacks

_Slots = tuple[Callable[[Any], Any], Callable[[Any, tuple[Hashable, ...]], tuple[Hashable, ...]]]
"""A rule's members in a frozen state: their values (the memo's key), and the state with them replaced."""


def _slots(members: tuple[str, ...], keys: Sequence[str]) -> _Slots | None:
    """How to read and replace ``keys`` in a frozen state of ``members`` (``None``: one is not a member).

    Both are generated once per rule: reading is an ``itemgetter`` of the members' positions, and
    replacing one tuple display of the old state's values and the new ones, in the members' order.
    """
    if not set(keys) <= set(members):
        return None
    where = {members.index(key): i for i, key in enumerate(keys)}
    project = itemgetter(*where) if where else _empty
    items = ", ".join(f"r[{where[p]}]" if p in where else f"f[{p}]" for p in range(len(members)))
    rebuild = eval(f"lambda f, r: ({items}{',' if items else ''})")  # noqa: S307 - code built from ints only
    return project, rebuild


def _empty(frozen: Any) -> tuple[()]:  # noqa: ARG001 - a rule that writes no member reads none
    return ()


def _freeze(value: Any) -> Hashable:
    """``value`` in a hashable form equal for two values exactly when their JSON is.

    An ``int`` and a ``str`` stand for themselves, a list of strings (a set) is a tuple of them
    in its order; anything else is its JSON (``bytes``, never equal to those), so ``True`` and
    ``1``, or ``1`` and ``1.0``, stay apart as their JSON does.
    """
    kind = type(value)
    if kind is int or kind is str:
        return value  # type: ignore[no-any-return]
    if kind is list and all(type(member) is str for member in value):
        return tuple(value)
    return orjson.dumps(value, option=orjson.OPT_SORT_KEYS)


def _frozen(state: Mapping[str, Any], members: tuple[str, ...]) -> Hashable:
    """``state`` in a hashable form, equal for two states exactly when their JSON is.

    A tuple of its members' values in :func:`_freeze`'s form in the order of ``members``; a state with a
    member not among ``members`` is its whole JSON instead (``bytes``, never equal to a tuple).
    """
    if any(key not in members for key in state):
        return orjson.dumps(state, option=orjson.OPT_SORT_KEYS)
    return tuple([_freeze(state[key]) if key in state else _ABSENT for key in members])
