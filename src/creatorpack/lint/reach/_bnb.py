"""One turn, solved: every rule of a turn reads the same answers, so choose them by branch and bound.

A *slot* is an integer variable, or one member of a set variable. Its *writers* are the effects on
it in document order; each applies when its rule's ``when`` holds, which :class:`Formulas` makes a
three-valued function (false, open, true) of the *choices*: the turn's answer to each observation
(index 0: left as it was) and each comparison the box leaves open (0 false, 1 true; the same
comparison read by two rules is one choice). A slot's possible values are a bit mask over its
domain, and each writer maps masks to masks exactly (clamps, limits and rejections included).
Folding the writers, an open one both applied and not, gives a mask that holds every value any
completion of the choices can leave: the bound of the branch and bound. A rule's effect that
another of its increments may reject (undoing it) carries a *guard*, which folds that integer's
writers up to the rule under the same choices: the effect stands where no value left rejects, is
dropped where every one does, and is open otherwise. So a purchase that fires only on the answer
that leaves the purse short adds nothing.

- :func:`extreme`: the lowest or highest value a slot can end the turn with (for proofs);
- :func:`solve`: choices under which a goal holds after the turn (for witnesses).

Both count their work in nodes, never seconds, so they give the same answer on every machine.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final, TypeAlias

import orjson

from creatorpack.contract.conditions import AllOf, AnyOf, Compare, Condition, LiteralCond, Not, Observed, to_json
from creatorpack.lint.reach._abstract import (
    Abstract,
    Analysis,
    IntRange,
    Members,
    Value,
    checker_for,
    narrow,
    tree_of,
)
from creatorpack.play.conditions import MISSING, json_equal, resolve
from creatorpack.play.state import CompiledEffect

__all__ = [
    "FALSE",
    "GUARDED",
    "MAX_WIDTH",
    "OPEN",
    "TRUE",
    "Effects",
    "Formulas",
    "Guard",
    "Memo",
    "Slot",
    "Writer",
    "extreme",
    "solve",
]

FALSE: Final = 0
OPEN: Final = 1
TRUE: Final = 2

Slot: TypeAlias = tuple[int, str | None]
"""A variable's index, and the member for a set variable (``None`` for an integer)."""

Fire: TypeAlias = Callable[[list[int]], int]
"""A condition on one box: ``FALSE``/``OPEN``/``TRUE`` given the choices so far (-1: not chosen yet)."""

Guard: TypeAlias = tuple[tuple[list["Writer"], int, int, int], ...]
"""The sibling increments that may undo a rule's effects on a slot, one per integer slot: that
slot's writers (a list that only grows), how many of them come before the rule, its mask at the
turn's start, and the mask of its values on which the rule's increments of it reject."""

MAX_WIDTH: Final = 4096
"""Integers that may take more values than this are not followed slot by slot (masks would be too big)."""

GUARDED: Final = 8
"""On an abstract box, the most writers of a sibling slot before a rule that a guard folds again for
each choice; past it the guard is judged once, on the box. The boxes turn by turn bound every slot,
so a pack with a thousand purchases from one purse would otherwise fold the purse a million times
a turn (18.8 s against 1.6 s); on the runtime benchmark pack, whose counters have ~60 writers
each, following them per choice cost 0.5 s of its boxes and changed none of them. A concrete
session (one turn solved for a goal) always follows the guard."""

_CHOICE: Final = re.compile(r"c\[(\d+)\]")  # a choice read by generated code

_OTHER: Final = object()  # an answer to an observation whose kind lists no values


@dataclass(frozen=True, slots=True)
class Writer:
    """An effect on one slot: when it fires, the choices that decides on, and what it does to a mask."""

    fire: Fire | int
    uses: tuple[int, ...]
    step: Callable[[int], int]
    sure: bool  # False: it may not apply even when its rule fires (a completion, a sibling's rejection)
    guard: Guard | None = None  # the rejections of sibling increments, followed (``sure`` is then the rest)


class Effects:
    """The effects of an entry's analysis, per slot: the table both solvers fold."""

    def __init__(self, analysis: Analysis) -> None:
        self.analysis = analysis
        self.checker = checker_for(analysis)
        index = {tokens: i for i, tokens in enumerate(analysis.variables)}
        # Per rule, its effects on each slot (applied together: a rejection undoes them all), and
        # whether they apply whenever the rule fires (no effect on another slot can undo the rule).
        self.rules: list[tuple[Any, list[tuple[Slot, list[CompiledEffect], bool, _Siblings | None]]]] = []
        self.domains: dict[int, tuple[int, int]] = {}
        for i, value in enumerate(analysis.after):
            if isinstance(value, IntRange):
                bounds = [
                    bound
                    for rule in analysis.program.rules
                    for e in rule.effects
                    if e.op == "increment" and e.error is None and e.tokens == analysis.variables[i]
                    for bound in (e.low, e.high)
                ]
                self.domains[i] = (min([*bounds, value.low]), max([*bounds, value.high]))
        # Integers too wide for masks are not followed: every box gives them the analysis's range.
        self.untracked = [i for i, (low, high) in self.domains.items() if high - low >= MAX_WIDTH]
        for i in self.untracked:
            del self.domains[i]
        for rule in analysis.program.rules:
            if not rule.effects or rule.id in analysis.completed:
                continue
            if any(effect.error is not None for effect in rule.effects):
                continue  # it always raises, so it never changes the state
            per: dict[Slot, list[CompiledEffect]] = {}
            for effect in rule.effects:
                at = index.get(effect.tokens)
                if at is not None and at not in self.untracked:
                    per.setdefault((at, effect.value if effect.op != "increment" else None), []).append(effect)
            if per:
                tracked = [
                    (slot, effects, _alone(rule.effects, effects, index), self._siblings(rule, slot, per, index))
                    for slot, effects in per.items()
                ]
                self.rules.append((rule, tracked))
        self.slots: list[Slot] = []
        for i, value in enumerate(analysis.after):
            if i in self.domains:
                self.slots.append((i, None))
            elif isinstance(value, Members):
                members = set(value.may) | {m for _, per in self.rules for (j, m), *_ in per if j == i and m}
                self.slots.extend((i, m) for m in sorted(members))
        self.slot_set = frozenset(self.slots)
        self._steps: dict[tuple[int, Slot], Callable[[int], int]] = {}

    def writers(
        self, formulas: Formulas, completed: frozenset[str] | None = None, *, rejections: bool = True
    ) -> dict[Slot, list[Writer]]:
        """Each slot's writers on ``formulas``' box, runs that the box decides made one step.

        ``completed`` is a concrete session's completed rules (they do not fire); ``None`` for an
        abstract box, in which a rule that has a completion may have completed. With
        ``rejections``, an effect that another slot's rejecting increment in the same rule may
        undo is applied, or not, by what that slot holds when the rule fires (a :data:`Guard`);
        without, it may always be undone.
        """
        found: dict[Slot, list[Writer]] = {}
        unchosen: list[int] = []  # no choice made yet: the guards judged on the box alone
        judged: dict[int, tuple[int, int]] = {}  # what those judgements folded so far (see _stands)
        for rule, tracked in self.rules:
            if completed is not None and rule.id in completed:
                continue
            fire, uses = formulas.compile(tree_of(self.analysis.program.conditions[rule.when]))
            if fire == FALSE:
                continue
            certain = completed is not None or rule.completion is None
            made: list[tuple[Slot, Writer]] = []
            for slot, effects, alone, siblings in tracked:
                step = self._step(rule, slot, effects)
                if alone or siblings is None or not rejections:
                    made.append((slot, Writer(fire, uses, step, alone and certain)))
                    continue
                guard = tuple(
                    (raw, len(raw), self.start(at, formulas.on[at[0]]), mask)
                    for at, mask in siblings
                    for raw in [found.setdefault(at, [])]
                )
                unchosen += [-1] * (len(formulas.domains) - len(unchosen))
                static = _stands(guard, unchosen, [], judged)
                if static == FALSE:
                    continue  # a sibling increment rejects whatever the choices: the rule changes nothing
                if static == OPEN and completed is None and any(before > GUARDED for _, before, _, _ in guard):
                    made.append((slot, Writer(fire, uses, step, sure=False)))  # too dear to follow per choice
                    continue
                made.append((slot, Writer(fire, uses, step, certain, None if static == TRUE else guard)))
            for slot, writer in made:
                found.setdefault(slot, []).append(writer)
        return {slot: _compress(writers) for slot, writers in found.items()}

    def _siblings(
        self, rule: Any, slot: Slot, per: Mapping[Slot, Sequence[CompiledEffect]], index: Mapping[Any, int]
    ) -> _Siblings | None:
        """The integer slots whose increments in ``rule`` may reject, undoing its effects on ``slot``.

        Each comes with the mask of its values on which they reject; ``None`` when a rejection
        elsewhere (an untracked path) cannot be followed.
        """
        found: list[tuple[Slot, int]] = []
        for effect in rule.effects:
            if effect in per.get(slot, ()) or not (effect.op == "increment" and effect.reject):
                continue
            if effect.tokens not in index:
                return None
            at: Slot = (index[effect.tokens], None)
            if at not in per or at[0] not in self.domains:
                return None
            if any(s == at for s, _ in found):
                continue
            low, high = self.domains[at[0]]
            mask = sum(1 << (v - low) for v in range(low, high + 1) if _rejects(v, per[at]))
            found.append((at, mask))
        return tuple(found)

    def box(self, state: Mapping[str, Any]) -> Abstract:
        """A concrete state as a box (a variable it does not hold as tracked keeps the analysis's range)."""
        values: list[Value] = []
        for tokens, whole in zip(self.analysis.variables, self.analysis.after, strict=True):
            value = resolve(state, tokens)
            if isinstance(whole, IntRange) and type(value) is int:
                values.append(IntRange(value, value))
            elif isinstance(whole, Members) and isinstance(value, list):
                members = frozenset(m for m in value if isinstance(m, str))
                values.append(Members(members, members))
            else:
                values.append(whole)
        return tuple(values)

    def start(self, slot: Slot, value: Value) -> int:
        """The mask of the values ``value`` allows in ``slot``."""
        i, member = slot
        if member is None:
            assert isinstance(value, IntRange)
            low, high = self.domains[i]
            return sum(1 << (v - low) for v in range(max(value.low, low), min(value.high, high) + 1))
        assert isinstance(value, Members)
        return (1 if member not in value.must else 0) | (2 if member in value.may else 0)

    def satisfying(self, slot: Slot, node: Compare) -> int | None:
        """The mask of the slot's values on which comparison ``node`` holds; ``None`` if masks cannot tell."""
        i, member = slot
        if member is not None:
            return 2 if node.op == "contains" and node.value == member else None
        low, high = self.domains[i]
        return sum(1 << (v - low) for v in range(low, high + 1) if narrow(IntRange(v, v), node, want=True) is not None)

    def _step(self, rule: Any, slot: Slot, effects: Sequence[CompiledEffect]) -> Callable[[int], int]:
        """What ``rule``'s effects on ``slot`` do to a mask of its values, a rejection undoing them all (memoised)."""
        known = self._steps.get((id(rule), slot))
        if known is not None:
            return known
        i, member = slot
        if member is not None:
            target = 2 if effects[-1].op == "add" else 1  # adds and removes never fail: the last one stands
            made: Callable[[int], int] = lambda mask: target if mask else 0  # noqa: E731
        else:
            low, high = self.domains[i]
            made = _table_step([1 << (_increments(value, effects) - low) for value in range(low, high + 1)])
        self._steps[(id(rule), slot)] = made
        return made


def _increments(value: int, effects: Sequence[CompiledEffect]) -> int:
    """``value`` after ``effects`` (increments of one variable) in order; a rejection undoes them all."""
    result = _run(value, effects)
    return value if result is None else result


def _rejects(value: int, effects: Sequence[CompiledEffect]) -> bool:
    """Whether ``effects`` (increments of one variable) reject when they start from ``value``."""
    return _run(value, effects) is None


def _run(value: int, effects: Sequence[CompiledEffect]) -> int | None:
    """``value`` after ``effects`` (increments of one variable) in order; ``None`` if one rejects."""
    current = value
    for effect in effects:
        result = current + effect.by
        if not effect.low <= result <= effect.high:
            if effect.reject:
                return None
            result = min(max(result, effect.low), effect.high)
        current = result
    return current


_Siblings: TypeAlias = tuple[tuple[Slot, int], ...]


def _stands(guard: Guard, choices: list[int], opened: list[tuple[int, ...]], folded: dict[int, tuple[int, int]]) -> int:
    """Whether the effects a :data:`Guard` watches over stand: ``TRUE``, ``FALSE`` or ``OPEN``.

    ``folded`` keeps, per sibling slot, how many of its writers one fold of the guarded slot has
    folded so far and the mask they left: the guarded writers come in document order, so each
    sibling is folded once per fold, not once per guarded writer.
    """
    verdict = TRUE
    for raw, before, start, rejecting in guard:
        done, mask = folded.get(id(raw), (0, start))
        if done > before:
            done, mask = 0, start
        mask = _fold(raw[done:before], mask, choices, opened)
        folded[id(raw)] = (before, mask)
        if not mask & ~rejecting:
            return FALSE
        if mask & rejecting:
            verdict = OPEN
    return verdict


def _alone(rule_effects: Sequence[CompiledEffect], mine: Sequence[CompiledEffect], index: Mapping[Any, int]) -> bool:
    """Whether no other effect of the rule can fail and undo ``mine`` (a rejecting increment, an untracked path)."""
    return not any(
        other not in mine and (other.tokens not in index or (other.op == "increment" and other.reject))
        for other in rule_effects
    )


def _table_step(table: Sequence[int]) -> Callable[[int], int]:
    memo: dict[int, int] = {}

    def step(mask: int) -> int:
        done = memo.get(mask)
        if done is None:
            done, bits, offset = 0, mask, 0
            while bits:
                if bits & 1:
                    done |= table[offset]
                bits >>= 1
                offset += 1
            memo[mask] = done
        return done

    return step


def _compress(writers: Sequence[Writer]) -> list[Writer]:
    """The same writers, each run of those whose firing the box decides made one step."""
    out: list[Writer] = []
    run: list[Callable[[int], int]] = []
    for writer in writers:
        if not isinstance(writer.fire, int) or writer.guard is not None:
            if run:
                out.append(Writer(TRUE, (), _chain(run), sure=True))
                run = []
            out.append(writer)
        elif writer.fire == TRUE and writer.sure:
            run.append(writer.step)
        else:
            run.append(_maybe(writer.step))
    if run:
        out.append(Writer(TRUE, (), _chain(run), sure=True))
    return out


def _maybe(step: Callable[[int], int]) -> Callable[[int], int]:
    return lambda mask: mask | step(mask)


def _chain(steps: Sequence[Callable[[int], int]]) -> Callable[[int], int]:
    if len(steps) == 1:
        return steps[0]
    memo: dict[int, int] = {}

    def chained(mask: int) -> int:
        done = memo.get(mask)
        if done is None:
            done = mask
            for step in steps:
                done = step(done)
            memo[mask] = done
        return done

    return chained


def _fold(writers: Sequence[Writer], mask: int, choices: list[int], opened: list[tuple[int, ...]]) -> int:
    """The mask after ``writers``; the choices of each writer still open are added to ``opened``."""
    folded: dict[int, tuple[int, int]] | None = None  # for the guards: see _stands
    for writer in writers:
        fire = writer.fire
        state = fire if fire.__class__ is int else fire(choices)  # type: ignore[operator]
        if not state:
            continue
        if writer.guard is not None:
            if folded is None:
                folded = {}
            stands = _stands(writer.guard, choices, opened, folded)
            if not stands:
                continue
            state = min(state, stands)  # open where a sibling may reject (its choices are in ``opened``)
        moved = writer.step(mask)
        if state == TRUE and writer.sure:
            mask = moved
        else:
            mask |= moved
            if state == OPEN and writer.uses:
                opened.append(writer.uses)
    return mask


def _branch(opened: Sequence[tuple[int, ...]], choices: Sequence[int]) -> int | None:
    """The open choice most open writers wait on (the lowest on a tie, so the search is deterministic)."""
    counts: dict[int, int] = {}
    for uses in opened:
        for u in uses:
            if choices[u] < 0:
                counts[u] = counts.get(u, 0) + 1
    return max(counts, key=lambda u: (counts[u], -u)) if counts else None


def extreme(formulas: Formulas, writers: Sequence[Writer], start: int, *, lowest: bool, budget: int) -> tuple[int, int]:
    """The lowest (or highest) offset in the slot's domain the writers can leave over every choice; the nodes taken.

    Past ``budget`` nodes a branch keeps its bound, which holds for every choice below it: the
    answer is then sound but may be less tight.
    """
    choices = [-1] * len(formulas.domains)
    best: int | None = None
    nodes = 0

    def search() -> None:
        nonlocal best, nodes
        nodes += 1
        opened: list[tuple[int, ...]] = []
        mask = _fold(writers, start, choices, opened)
        value = (mask & -mask).bit_length() - 1 if lowest else mask.bit_length() - 1
        if best is not None and (value >= best if lowest else value <= best):
            return
        branch = _branch(opened, choices) if nodes < budget else None
        if branch is None:
            best = value  # exact here, or (out of budget) a bound for every choice below
            return
        for option in range(len(formulas.domains[branch])):
            choices[branch] = option
            search()
        choices[branch] = -1

    search()
    assert best is not None
    return best, nodes


def solve(
    effects: Effects,
    formulas: Formulas,
    writers: Mapping[Slot, Sequence[Writer]],
    node: Condition,
    on: Abstract,
    budget: int,
) -> tuple[dict[str, Any] | None, int]:
    """Answers for one turn from ``on`` after which ``node`` may hold (the caller plays them to know); the nodes taken.

    ``None`` when no answers can make it hold (within ``budget`` nodes). The answers are those a
    completed search found to make ``node`` true, or, where the masks cannot tell, its best guess.
    """
    goal = _Goal(effects, formulas, on)
    code = goal.compile(node)
    if code == FALSE:
        return None, 0
    if code == TRUE:
        return {}, 0
    check: Callable[[list[int], list[int]], int] = eval(f"lambda m, c: {code}", {"_m": _m})  # noqa: S307 - ints and names built here
    slots = goal.slots
    starts = [effects.start(slot, on[slot[0]]) for slot in slots]
    folded = [writers.get(slot, ()) for slot in slots]
    choices = [-1] * len(formulas.domains)
    nodes = 0

    def search() -> bool:
        nonlocal nodes
        nodes += 1
        opened: list[tuple[int, ...]] = [tuple(goal.uses)]
        masks = [_fold(ws, start, choices, opened) for ws, start in zip(folded, starts, strict=True)]
        state = check(masks, choices)
        if state == FALSE:
            return False
        branch = _branch(opened, choices) if state != TRUE else None
        if branch is None:
            return True
        if nodes >= budget:
            return False
        for option in range(len(formulas.domains[branch])):
            choices[branch] = option
            if search():
                return True
        choices[branch] = -1
        return False

    if not search():
        return None, nodes
    return formulas.answers_for(choices), nodes


def _m(mask: int, sat: int) -> int:
    if not mask & sat:
        return FALSE
    return TRUE if not mask & ~sat else OPEN


class _Goal:
    """A goal's condition on the state after the turn: its comparisons read slot masks, its observations the choices."""

    def __init__(self, effects: Effects, formulas: Formulas, on: Abstract) -> None:
        self.effects = effects
        self.formulas = formulas
        self.on = on
        self.slots: list[Slot] = []
        self.uses: list[int] = []
        self._index = {tokens: i for i, tokens in enumerate(effects.analysis.variables)}

    def compile(self, node: Condition) -> int | str:
        return _generate(node, self._compare, self._observed)

    def _observed(self, node: Observed) -> int | str:
        uses: list[int] = []
        code = self.formulas.observed(node, uses)
        self.uses.extend(uses)
        return code

    def _compare(self, node: Compare) -> int | str:
        place = self.effects.checker.place(node.path)
        i = getattr(place, "index", None)
        if i is None:  # a constant, or somewhere unknown: as on the state before the turn
            return self.formulas.atom(node, self.uses)
        slot: Slot = (i, None)
        if i in self.effects.untracked:
            return OPEN
        if isinstance(self.on[i], Members):
            if node.op != "contains" or not isinstance(node.value, str):
                return OPEN if node.op in ("eq", "ne") else self.formulas.atom(node, self.uses)
            slot = (i, node.value)
            if slot not in self.effects.slot_set:  # a member no effect adds or removes: as it was
                return self.formulas.atom(node, self.uses)
        sat = self.effects.satisfying(slot, node)
        if sat is None:
            return OPEN
        if slot not in self.slots:
            self.slots.append(slot)
        return f"_m(m[{self.slots.index(slot)}], {sat})"


def _generate(
    node: Condition, compare: Callable[[Compare], int | str], observed: Callable[[Observed], int | str]
) -> int | str:
    """``node`` as a three-valued constant or the code of one (the generator both formulas share).

    ``compare`` and ``observed`` give a comparison's and an observation's code; groups, ``not`` and
    literals are the same everywhere (``not`` is ``2 - x``; constants folded).
    """
    match node:
        case LiteralCond(value=value):
            return TRUE if value is True else FALSE
        case Not(condition=inner):
            code = _generate(inner, compare, observed)
            return 2 - code if isinstance(code, int) else f"(2-{code})"
        case AllOf(conditions=children):
            return _combine("all", [_generate(child, compare, observed) for child in children])
        case AnyOf(conditions=children):
            return _combine("any", [_generate(child, compare, observed) for child in children])
        case Observed():
            return observed(node)
        case Compare():
            return compare(node)


def _combine(op: str, parts: Sequence[int | str]) -> int | str:
    """``all``/``any`` of three-valued parts, constants folded."""
    codes: list[str] = []
    for code in parts:
        if isinstance(code, int):
            if code == (FALSE if op == "all" else TRUE):
                return code
            if code == OPEN:
                codes.append("1")
            continue
        codes.append(code)
    if not codes:
        return TRUE if op == "all" else FALSE
    if len(codes) == 1:
        return codes[0] if codes[0] != "1" else OPEN
    return f"{'min' if op == 'all' else 'max'}({', '.join(codes)})"


class Formulas:
    """Conditions on one box, as three-valued functions of the choices (see the module docstring).

    ``answers`` are a concrete session's answers in force; choice 0 of an observation leaves its
    answer as it is (without ``answers``: unanswered, which with every value as a choice covers
    any answer an abstract box may have kept). ``memo``, shared by the formulas of successive
    boxes of one entry (the boxes turn by turn), keeps what does not depend on the box as a whole.
    """

    def __init__(
        self,
        analysis: Analysis,
        on: Abstract,
        answers: Mapping[str, Any] | None = None,
        memo: Memo | None = None,
    ) -> None:
        self.checker = checker_for(analysis)
        self.observations = analysis.program.observations
        self.on = on
        self.answers = answers or {}
        self.domains: list[tuple[Any, ...]] = []
        self._keys: dict[Any, int] = {}
        self._compiled: dict[int, tuple[Fire | int, tuple[int, ...]]] = {}
        self._memo = memo if memo is not None else Memo()

    def compile(self, node: Condition) -> tuple[Fire | int, tuple[int, ...]]:
        """``node`` as a constant, or a function of the choices with the choices it reads."""
        known = self._compiled.get(id(node))
        if known is not None:
            return known
        uses: list[int] = []
        code = self._expr(node, uses)
        if isinstance(code, int):
            made: tuple[Fire | int, tuple[int, ...]] = (code, ())
        else:
            made = (self._memo.function(code), tuple(dict.fromkeys(uses)))
        self._compiled[id(node)] = (made[0], made[1])
        return made

    def answers_for(self, choices: Sequence[int]) -> dict[str, Any]:
        """The turn's answers that ``choices`` make (an observation left as it was is not answered)."""
        move: dict[str, Any] = {}
        for key, k in self._keys.items():
            if key[0] == "observed" and choices[k] > 0 and self.domains[k][choices[k]] is not _OTHER:
                move[key[1]] = self.domains[k][choices[k]]
        return move

    def _expr(self, node: Condition, uses: list[int]) -> int | str:
        return _generate(node, lambda atom: self.atom(atom, uses), lambda test: self.observed(test, uses))

    def atom(self, node: Compare, uses: list[int]) -> int | str:
        """A comparison on the box: decided, or an open choice."""
        decided = self._memo.decided(self.checker, self.on, node)
        if decided != OPEN:
            return decided
        k = self._choice(("atom", orjson.dumps(to_json(node), option=orjson.OPT_SORT_KEYS)), (False, True))
        uses.append(k)
        return f"(1 if c[{k}]<0 else 2*c[{k}])"

    def observed(self, node: Observed, uses: list[int]) -> int | str:
        """An ``observed`` condition on this turn's choice for its observation."""
        if not self.checker.answerable(node):
            return FALSE
        ident = node.id
        spec = self.observations.get(ident, {})
        if spec.get("type") == "boolean":
            domain: tuple[Any, ...] = (MISSING, True, False)
        elif spec.get("type") == "choice":
            domain = (MISSING, *spec.get("choices", {}))
        else:
            domain = (MISSING, _OTHER)
        k = self._choice(("observed", ident), domain)
        value = node.value
        matches = [i for i, v in enumerate(self.domains[k]) if i and v is not _OTHER and _same(v, value)]
        if not matches:
            self.domains[k] = (*self.domains[k], value)  # a value of a kind that lists none
            matches = [len(self.domains[k]) - 1]
        current = self.answers.get(ident, MISSING)
        if current is not MISSING and json_equal(current, value):
            matches.insert(0, 0)
        uses.append(k)
        test = f"c[{k}]=={matches[0]}" if len(matches) == 1 else f"c[{k}] in {tuple(matches)}"
        return f"(1 if c[{k}]<0 else (2 if {test} else 0))"

    def _choice(self, key: Any, domain: tuple[Any, ...]) -> int:
        k = self._keys.get(key)
        if k is None:
            k = self._keys[key] = len(self.domains)
            self.domains.append(domain)
        return k


class Memo:
    """What :class:`Formulas` of one entry's successive boxes share: neither depends on the box as a whole.

    Code generated once per shape: a condition's code with its choices' numbers taken out is a
    *template*, made a function of those numbers once (``eval``), and each code is that function
    called with its own numbers (a closure, no ``eval``). And whether a comparison is decided on a
    box, which depends only on the value the box gives the member it reads. On the runtime
    benchmark pack the boxes turn by turn compile 2,500 rules' ``when`` on each of 36 boxes: 90,000
    codes, 31,800 of them distinct, 1,500 templates; 80% of the comparisons were decided before.
    """

    __slots__ = ("_decided", "_templates")

    def __init__(self) -> None:
        self._templates: dict[str, Callable[..., Fire]] = {}
        self._decided: dict[tuple[int, Value | None], tuple[Compare, int]] = {}

    def function(self, code: str) -> Fire:
        """``lambda c: <code>``, made from the template of ``code`` (its ``c[<number>]`` numbered in order)."""
        numbers: dict[str, int] = {}
        template = _CHOICE.sub(lambda m: f"c[k{numbers.setdefault(m.group(1), len(numbers))}]", code)
        factory = self._templates.get(template)
        if factory is None:
            names = ", ".join(f"k{j}" for j in range(len(numbers)))
            factory = self._templates[template] = eval(f"lambda {names}: lambda c: {template}")  # noqa: S307 - ints and names built here
        return factory(*(int(number) for number in numbers))

    def decided(self, checker: Any, on: Abstract, node: Compare) -> int:
        """``FALSE`` or ``TRUE`` when the box decides comparison ``node``, ``OPEN`` when it leaves it open."""
        place = checker.place(node.path)
        index = getattr(place, "index", None)
        key = (id(node), on[index] if index is not None else None)
        known = self._decided.get(key)
        if known is None:
            if checker.refine(on, node, want=True) is None:
                verdict = FALSE
            elif checker.refine(on, node, want=False) is None:
                verdict = TRUE
            else:
                verdict = OPEN
            known = self._decided[key] = (node, verdict)  # the node kept, so that its id stays its own
        return known[1]


def _same(left: Any, right: Any) -> bool:
    return type(left) is type(right) and left == right
