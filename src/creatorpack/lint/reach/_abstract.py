"""Every value a state member can take, over-approximated without enumerating states.

Only effects change the state, and effects only ``increment`` integers and ``add``/``remove`` set
members, so every other member keeps its entry's initial value for good: a *constant*. The
members that some effect writes are *variables*: an integer is tracked as an interval, a set as
the members it must hold and the members it may hold. Observations are free inputs.

A turn, abstracted (:func:`analyse`): from the states in which the session goes on (no ending
holds), every effect rule whose ``when`` may hold may fire; its effects apply to the values its
``when`` allows, in document order, each rule seeing the rules before it. The reachable states are
the least fixed point of "the initial state, plus one more turn", widened to the bounds and
thresholds the pack names when an interval keeps growing. A goal whose condition cannot hold on
that over-approximation holds in no reachable state: a proof, with a reason (:func:`why_not`).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Final, TypeAlias

from creatorpack._json import parse_pointer, pointer, show
from creatorpack.contract.conditions import (
    AllOf,
    AnyOf,
    Compare,
    Condition,
    LiteralCond,
    Not,
    Observed,
    leaves,
    parse,
)
from creatorpack.play.conditions import MISSING, CompiledCondition, compile_condition, resolve
from creatorpack.play.program import Program
from creatorpack.play.state import CompiledEffect, set_paths

__all__ = [
    "Abstract",
    "Analysis",
    "IntRange",
    "Members",
    "Refusal",
    "Value",
    "analyse",
    "answerable",
    "boxed",
    "checker_for",
    "completed_at_start",
    "failing_part",
    "holds",
    "narrow",
    "tree_of",
    "why_not",
    "widen",
]

PLAIN_PASSES: Final = 24
"""Turns abstracted exactly before a growing interval is widened to the next threshold."""


@dataclass(frozen=True, slots=True)
class IntRange:
    """An integer variable: every value it may take lies in ``low..high``."""

    low: int
    high: int

    def join(self, other: IntRange) -> IntRange:
        """The smallest range holding both."""
        if other.low >= self.low and other.high <= self.high:
            return self
        return IntRange(min(self.low, other.low), max(self.high, other.high))

    def show(self) -> str:
        """``3`` or ``0..8``."""
        return str(self.low) if self.low == self.high else f"{self.low}..{self.high}"


@dataclass(frozen=True, slots=True)
class Members:
    """A set variable: it always holds ``must`` and may hold ``may`` (``must`` within ``may``)."""

    must: frozenset[str]
    may: frozenset[str]

    def join(self, other: Members) -> Members:
        """The weakest facts true of both."""
        if other.must >= self.must and other.may <= self.may:
            return self
        return Members(self.must & other.must, self.may | other.may)

    def show(self) -> str:
        """For a finding: ``{a, b}`` when held exactly, else ``{a | may hold b, c}``."""
        must, may = sorted(self.must), sorted(self.may)
        if must == may:
            return "{" + ", ".join(must) + "}"
        held = ", ".join(must) + (" | " if must else "")
        return "{" + held + "may hold " + ", ".join(m for m in may if m not in must) + "}"


Value: TypeAlias = IntRange | Members
Abstract: TypeAlias = tuple[Value, ...]
"""One value per variable, in :attr:`Analysis.variables` order."""


@dataclass(frozen=True, slots=True)
class _Var:
    tokens: tuple[str, ...]
    index: int


@dataclass(frozen=True, slots=True)
class _Const:
    value: Any  # MISSING for a path that does not resolve


@dataclass(frozen=True, slots=True)
class _Unknown:
    pass


_Place: TypeAlias = _Var | _Const | _Unknown
_UNKNOWN: Final = _Unknown()


@dataclass(frozen=True, slots=True)
class Refusal:
    """Why a rule never changes the state: its effect at ``effect`` (an increment) is always rejected."""

    effect: int
    reason: str


@dataclass(frozen=True, slots=True)
class Analysis:
    """The over-approximation for one entry: the variables, and the values before and after turns.

    ``after`` over-approximates every state the session can be in after any turn (the start
    included); ``before`` those from which it takes another turn (no ending holds); ``None``
    when there is none.
    """

    entry: str
    program: Program
    initial: Mapping[str, Any]
    variables: tuple[tuple[str, ...], ...]
    writers: Mapping[int, tuple[str, ...]]  # variable -> the rules whose effects write it
    after: Abstract
    before: Abstract | None
    endings_bound: bool  # whether excluding ending states narrowed some variable
    completed: frozenset[str]  # rules completed at the start, never active
    checker: _Checker = field(repr=False, compare=False)  # narrows boxes by conditions; built once
    thresholds: Mapping[int, list[int]] = field(repr=False, compare=False)  # where widening may stop
    refused: Mapping[str, Refusal] = field(default_factory=dict)  # the rules that never change the state

    def place(self, path: Any) -> _Place:
        """Where a condition's ``path`` reads: a variable, a constant, or somewhere unknown."""
        return _place(self.initial, self.variables, path)

    def reads(self, condition: Condition) -> list[int | None]:
        """The variable each comparison of ``condition`` reads, in order (``None``: not a variable)."""
        return [
            getattr(self.place(leaf.path), "index", None) for leaf in leaves(condition) if isinstance(leaf, Compare)
        ]


def analyse(program: Program, entry: Mapping[str, Any], entry_name: str, *, endings: bool = True) -> Analysis:
    """The over-approximation of the states reachable from ``entry`` (see the module docstring)."""
    initial = entry.get("initial_state")
    initial = initial if isinstance(initial, Mapping) else {}
    sets = set_paths(program.schema)
    writes = _written(program, initial, sets)
    variables = tuple(sorted(writes))
    index = {tokens: i for i, tokens in enumerate(variables)}
    start: list[Value] = []
    for tokens in variables:
        value = resolve(initial, tokens)
        if isinstance(value, list):
            members = frozenset(m for m in value if isinstance(m, str))
            start.append(Members(members, members))
        else:
            start.append(IntRange(value, value))
    done = completed_at_start(program, initial)
    rules = [
        (rule, [(index[e.tokens], e) for e in rule.effects if e.tokens in index])
        for rule in program.rules
        if rule.effects and rule.id not in done
    ]
    writers = {
        i: tuple(dict.fromkeys(rule.id for rule, effects in rules for j, _ in effects if j == i))
        for i in range(len(variables))
    }
    thresholds = _thresholds(program, variables, rules)
    checker = _Checker(initial, variables, sets, program.observations)
    endings_when = [tree_of(program.conditions[goal.when]) for goal in program.endings] if endings else []
    after: Abstract = tuple(start)
    passes = 0
    refused: dict[str, Refusal] = {}  # those of the last turn, which is the fixed point's
    while True:
        before = checker.exclude(after, endings_when)
        if before is None:
            break
        refused = {}
        grown = _join(after, _turn(checker, program, rules, before, after, refused))
        passes += 1
        if passes > PLAIN_PASSES:
            grown = _widen(after, grown, thresholds)
        if grown == after:
            break
        after = grown
    before = checker.exclude(after, endings_when)
    bound = False
    if endings and program.endings:
        free = analyse(program, entry, entry_name, endings=False)
        bound = free.after != after
    return Analysis(
        entry_name, program, initial, variables, writers, after, before, bound, done, checker, thresholds, refused
    )


def completed_at_start(program: Program, initial: Mapping[str, Any]) -> frozenset[str]:
    """The rules whose ``completion`` holds on the initial state: completed at turn 0, never active."""
    return frozenset(
        rule.id
        for rule in program.rules
        if rule.completion is not None and program.evaluators[rule.completion](initial, {})
    )


def tree_of(compiled: CompiledCondition) -> Condition:
    """A compiled condition's tree (parsed from its JSON when it was compiled without one)."""
    return compiled.tree if compiled.tree is not None else parse(compiled.source)


def holds(analysis: Analysis, condition: Condition, on: Abstract | None) -> Abstract | None:
    """``on`` narrowed to where ``condition`` may hold; ``None`` if it holds nowhere."""
    if on is None:
        return None
    return checker_for(analysis).refine(on, condition, want=True)


def widen(analysis: Analysis, old: Abstract, new: Abstract) -> Abstract:
    """``new`` (which holds ``old``) with each interval still growing pushed out to the next threshold."""
    return _widen(old, new, analysis.thresholds)


def narrow(value: Value, node: Condition, *, want: bool) -> Value | None:
    """``value`` narrowed to where comparison ``node`` may be ``want``; ``None`` if it cannot be."""
    if not isinstance(node, Compare):
        return value
    if isinstance(value, IntRange):
        return _int_atom(value, node, want=want)
    return _set_atom(value, node, want=want)


def why_not(analysis: Analysis, condition: Condition, on: Abstract, *, want: bool = True) -> str:
    """Why ``condition`` cannot hold (``want``) on ``on``: the first part of it that cannot, explained."""
    checker = checker_for(analysis)
    return _Explainer(analysis, checker).why(condition, on, want=want)


def failing_part(analysis: Analysis, condition: Condition, on: Abstract, *, want: bool = True) -> tuple[str | int, ...]:
    """Where in ``condition`` the part that :func:`why_not` explains is: a path relative to the condition.

    ``("conditions", 1)`` for the second part of an ``all`` that cannot hold, ``()`` when the
    whole condition is the smallest part to blame (an atom, or parts that only fail together).
    """
    checker = checker_for(analysis)
    return _Explainer(analysis, checker).where(condition, on, want=want)


def boxed(analyses: Sequence[Analysis], members: frozenset[str] | None = None) -> int:
    """How many states the analyses' boxes hold, over all entries: the product of each variable's values.

    With ``members``, only the variables under those top-level state members count.
    """
    total = 0
    for analysis in analyses:
        count = 1
        for tokens, value in zip(analysis.variables, analysis.after, strict=True):
            if members is None or (tokens and tokens[0] in members):
                count *= value.high - value.low + 1 if isinstance(value, IntRange) else 2 ** len(value.may - value.must)
        total += count
    return total


def checker_for(analysis: Analysis) -> _Checker:
    """The analysis's checker: it narrows boxes by conditions (and keeps what it learns of constants)."""
    return analysis.checker


# --- building the analysis ---------------------------------------------------------------------


def _written(program: Program, initial: Mapping[str, Any], sets: frozenset[str]) -> set[tuple[str, ...]]:
    """The state members some effect may change, with an initial value of the kind it writes."""
    found: set[tuple[str, ...]] = set()
    for rule in program.rules:
        for effect in rule.effects:
            if effect.error is not None or not effect.tokens:
                continue
            value = resolve(initial, effect.tokens)
            if (effect.op == "increment" and type(value) is int) or (
                effect.op in ("add", "remove") and isinstance(value, list) and pointer(effect.tokens) in sets
            ):
                found.add(effect.tokens)
    return found


def _thresholds(
    program: Program, variables: Sequence[tuple[str, ...]], rules: Sequence[tuple[Any, list[tuple[int, Any]]]]
) -> dict[int, list[int]]:
    """Per integer variable, the values widening may stop at: bounds, compared values and their neighbours."""
    steps: dict[int, set[int]] = {}
    found: dict[int, set[int]] = {}
    for _, effects in rules:
        for i, effect in effects:
            if effect.op == "increment":
                found.setdefault(i, set()).update((effect.low, effect.high))
                steps.setdefault(i, set()).add(effect.by)
    where = {tokens: i for i, tokens in enumerate(variables)}
    for condition in program.conditions:
        for atom in leaves(tree_of(condition)):
            if not isinstance(atom, Compare):
                continue
            value: Any = atom.value
            slot = where.get(atom.tokens) if atom.tokens is not None else None
            if slot is None or not _is_number(value):
                continue
            for near in (math.floor(value), math.ceil(value)):
                found.setdefault(slot, set()).update(near + d for d in (-1, 0, 1))
    for i, values in found.items():
        values.update(v + by for v in list(values) for by in steps.get(i, ()))
    return {i: sorted(values) for i, values in found.items()}


def _join(left: Abstract, right: Abstract) -> Abstract:
    return tuple(a.join(b) for a, b in zip(left, right, strict=True))  # type: ignore[arg-type]


def _widen(old: Abstract, new: Abstract, thresholds: Mapping[int, list[int]]) -> Abstract:
    widened: list[Value] = []
    for i, (was, grown) in enumerate(zip(old, new, strict=True)):
        value = grown
        if isinstance(was, IntRange) and isinstance(grown, IntRange) and grown != was:
            marks = thresholds.get(i, [])
            low, high = grown.low, grown.high
            if low < was.low:
                low = max((m for m in marks if m <= low), default=low)
            if high > was.high:
                high = min((m for m in marks if m >= high), default=high)
            value = IntRange(min(low, grown.low), max(high, grown.high))
        widened.append(value)
    return tuple(widened)


def _turn(
    checker: _Checker,
    program: Program,
    rules: Sequence[tuple[Any, list[tuple[int, Any]]]],
    before: Abstract,
    after: Abstract,
    refused: dict[str, Refusal],
) -> Abstract:
    """One abstract turn from ``before``, in document order.

    A rule that may fire is fired or not (the two joined); a rule that must fire (its ``when``
    holds whatever the state and the answers, it can never complete, and none of its effects
    can be rejected) is fired, so that, say, a counter that such rules always raise never falls.
    A rule one of whose increments is rejected on every value its variable can hold when the rule
    applies changes nothing (a rejection undoes the whole rule): a purchase that the purse can
    never pay for adds nothing to the pack. Such rules are put in ``refused``, with the reason.
    """
    working = list(before)
    touched: set[int] = set()
    shift: dict[int, IntRange | None] = {}  # per integer, the net change the rules before this one may have made
    for rule, effects in rules:
        if not effects:
            continue
        when = tree_of(program.conditions[rule.when])
        allowed = checker.refine(before, when, want=True)
        if allowed is None:
            continue

        def seen(i: int, allowed: Abstract = allowed) -> Value:
            """What variable ``i`` may hold when this rule applies.

            Its values where the rule's ``when`` holds (read before the turn), moved by what the rules
            before it may have done this turn, within what the turn so far allows.
            """
            if i not in touched:
                return allowed[i]
            held, moved, so_far = allowed[i], shift.get(i), working[i]
            if isinstance(held, IntRange) and isinstance(moved, IntRange) and isinstance(so_far, IntRange):
                low, high = max(held.low + moved.low, so_far.low), min(held.high + moved.high, so_far.high)
                return IntRange(low, high) if low <= high else so_far
            return so_far

        refusal = _always_rejected(checker, rule.effects, effects, seen)
        if refusal is not None:
            refused[rule.id] = refusal
            continue
        must = (
            len(effects) == len(rule.effects)  # an untracked effect may be rejected, undoing the rule
            and all(_certain(effect) for _, effect in effects)
            and checker.refine(before, when, want=False) is None
            and (
                rule.completion is None
                or checker.refine(after, tree_of(program.conditions[rule.completion]), want=True) is None
            )
        )
        applied = {i: seen(i) for i, _ in effects}  # before any of this rule's effects
        for i, effect in effects:
            if effect.op == "increment" and effect.by:
                shift[i] = _moved(shift.get(i, IntRange(0, 0)), effect, working[i])
            if must:
                working[i] = _apply(effect, working[i])
            else:
                applied[i] = _apply(effect, applied[i])
                working[i] = working[i].join(applied[i])  # type: ignore[arg-type]
            touched.add(i)
    return tuple(working)


def _moved(moved: IntRange | None, effect: CompiledEffect, held: Value) -> IntRange | None:
    """The net change so far of an integer, with ``effect`` applied to any of the values it ``held``.

    A rejecting increment moves it by ``by`` or not at all; a clamping one too, but only while every
    value lies within its limits: past a limit it is pulled back to it, the other way (a `+1` with
    `limit: 3` takes 6 down to 3). Then nothing is known of the change (``None``).
    """
    if moved is None:
        return None
    within = isinstance(held, IntRange) and effect.low <= held.low and held.high <= effect.high
    if not effect.reject and not within:
        return None
    return IntRange(moved.low + min(0, effect.by), moved.high + max(0, effect.by))


def _always_rejected(
    checker: _Checker,
    every: Sequence[CompiledEffect],
    effects: Sequence[tuple[int, CompiledEffect]],
    value: Callable[[int], Value],
) -> Refusal | None:
    """Why the first increment of some variable among ``effects`` is rejected on every value it can hold, or ``None``.

    ``every`` is all of the rule's effects (for the position), ``value`` a variable's values where
    the rule applies. Only a variable's first increment in the rule is judged (a later one starts
    from what the earlier ones leave).
    """
    judged: set[int] = set()
    for i, effect in effects:
        if effect.op != "increment" or i in judged:
            continue
        judged.add(i)
        held = value(i)
        if not effect.reject or effect.error is not None or not isinstance(held, IntRange):
            continue  # an effect in error is rejected whatever the value, and reported as such elsewhere
        if held.high + effect.by < effect.low or held.low + effect.by > effect.high:
            path = pointer(checker.variables[i])
            position = next(k for k, e in enumerate(every) if e is effect)
            return Refusal(
                position,
                f"its increment of `{path}` by {effect.by} is always rejected (`{path}` is {held.show()} "
                f"when it applies, and must stay within {effect.low}..{effect.high})",
            )
    return None


def _certain(effect: CompiledEffect) -> bool:
    """Whether ``effect`` always applies when its rule fires (a clamping increment, an add, a remove)."""
    return effect.error is None and (effect.op in ("add", "remove") or not effect.reject)


def _apply(effect: CompiledEffect, value: Value) -> Value:
    """Every value ``effect`` can leave, applied to any value in ``value`` (a rejected effect changes nothing)."""
    if isinstance(value, IntRange):
        if effect.op != "increment":
            return value
        low, high = value.low + effect.by, value.high + effect.by
        if not effect.reject:
            return IntRange(min(max(low, effect.low), effect.high), min(max(high, effect.low), effect.high))
        low, high = max(low, effect.low), min(high, effect.high)
        return IntRange(low, high) if low <= high else value
    member = effect.value
    if effect.op == "add":
        return Members(value.must | {member}, value.may | {member})
    if effect.op == "remove":
        return Members(value.must - {member}, value.may - {member})
    return value


def _place(initial: Mapping[str, Any], variables: Sequence[tuple[str, ...]], path: Any) -> _Place:
    tokens = parse_pointer(path) if isinstance(path, str) else None
    if tokens is None:
        return _Const(MISSING)
    tokens = tuple(tokens)
    for i, var in enumerate(variables):
        if tokens == var:
            return _Var(var, i)
        if tokens[: len(var)] == var or var[: len(tokens)] == tokens:
            return _UNKNOWN  # inside a variable, or an object that holds one
    return _Const(resolve(initial, tokens))


# --- conditions on the abstraction -------------------------------------------------------------


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)


def _range_for(op: str, value: float) -> tuple[float, float]:
    """The integers ``x`` for which ``x op value`` holds, as a closed interval (inf: unbounded)."""
    if op == "gt":
        return math.floor(value) + 1, math.inf
    if op == "gte":
        return math.ceil(value), math.inf
    if op == "lt":
        return -math.inf, math.ceil(value) - 1
    return -math.inf, math.floor(value)  # lte


_SYMBOLS: Final = {
    "eq": "=",
    "ne": "≠",
    "gt": ">",
    "gte": "≥",
    "lt": "<",
    "lte": "≤",
    "contains": "contains",
    "not-contains": "does not contain",
}
_NEGATE: Final = {"gt": "lte", "gte": "lt", "lt": "gte", "lte": "gt", "eq": "ne", "ne": "eq"}


class _Checker:
    """Narrows abstract states by conditions: ``refine(on, c, want)`` keeps what may make ``c`` be ``want``."""

    def __init__(
        self,
        initial: Mapping[str, Any],
        variables: Sequence[tuple[str, ...]],
        sets: frozenset[str],
        observations: Mapping[str, Mapping[str, Any]],
    ) -> None:
        self.initial = initial
        self.variables = variables
        self.sets = sets
        self.observations = observations
        self._places: dict[str, _Place] = {}
        self._constants: dict[int, tuple[Condition, bool]] = {}

    def place(self, path: Any) -> _Place:
        key = path if isinstance(path, str) else repr(path)
        found = self._places.get(key)
        if found is None:
            found = self._places[key] = _place(self.initial, self.variables, path)
        return found

    def constant(self, atom: Compare) -> bool:
        """The value of comparison ``atom`` of a path no effect writes: it is the same on every state."""
        known = self._constants.get(id(atom))
        if known is None:  # the atom is kept with its value, so its id stays its own
            known = self._constants[id(atom)] = (atom, compile_condition(atom, set_paths=self.sets)(self.initial, {}))
        return known[1]

    def exclude(self, on: Abstract, conditions: Iterable[Condition]) -> Abstract | None:
        """``on`` where none of ``conditions`` holds."""
        current: Abstract | None = on
        for condition in conditions:
            if current is None:
                return None
            current = self.refine(current, condition, want=False)
        return current

    def refine(self, on: Abstract, node: Condition, *, want: bool) -> Abstract | None:
        """``on`` narrowed to where ``node`` may be ``want``; ``None`` where it cannot be."""
        return self._refine(on, node, want=want)

    def _refine(self, on: Abstract, node: Condition, *, want: bool) -> Abstract | None:
        match node:
            case LiteralCond(value=value):
                return on if (value is True) == want else None
            case Not(condition=inner):
                return self._refine(on, inner, want=not want)
            case AllOf(conditions=children) | AnyOf(conditions=children):
                if isinstance(node, AllOf) == want:  # every child must be `want`
                    current: Abstract | None = on
                    for child in children:
                        current = self._refine(current, child, want=want) if current is not None else None
                    return current
                joined: Abstract | None = None
                for child in children:
                    narrowed = self._refine(on, child, want=want)
                    if narrowed is not None:
                        joined = narrowed if joined is None else _join(joined, narrowed)
                        if joined == on:
                            break
                return joined
            case Observed():
                return on if not want or answerable(self.observations, node) else None
            case Compare():
                return self._comparison(on, node, want=want)

    def answerable(self, node: Condition) -> bool:
        """Whether some answer to the observation makes this ``observed`` hold."""
        return answerable(self.observations, node)

    def _comparison(self, on: Abstract, node: Compare, *, want: bool) -> Abstract | None:
        place = self.place(node.path)
        if isinstance(place, _Unknown):
            return on
        if isinstance(place, _Const):
            return on if self.constant(node) == want else None
        current = on[place.index]
        if isinstance(current, IntRange):
            narrowed: Value | None = _int_atom(current, node, want=want)
        else:
            narrowed = _set_atom(current, node, want=want)
        if narrowed is None:
            return None
        if narrowed == current:
            return on
        changed = list(on)
        changed[place.index] = narrowed
        return tuple(changed)


def _int_atom(current: IntRange, node: Compare, *, want: bool) -> IntRange | None:
    op, value = node.op, node.value
    number = float(value) if _is_number(value) else 0.0
    if op in ("eq", "ne"):
        if not _is_number(value):
            return current if (op == "ne") == want else None
        if (op == "eq") != want:  # x != value
            if current.low == current.high == value:
                return None
            if current.low == value:
                return IntRange(current.low + 1, current.high)
            if current.high == value:
                return IntRange(current.low, current.high - 1)
            return current
        if number != int(number) or not current.low <= number <= current.high:
            return None
        return IntRange(int(number), int(number))
    if op in ("gt", "gte", "lt", "lte"):
        if not _is_number(value):
            return current if not want else None
        low, high = _range_for(op if want else _NEGATE[op], number)
        new_low, new_high = max(current.low, low), min(current.high, high)
        if new_low > new_high:
            return None
        return IntRange(int(new_low), int(new_high))
    if op == "contains":
        return current if not want else None
    return current  # an op the runtime does not know: any


def _set_atom(current: Members, node: Compare, *, want: bool) -> Members | None:
    op, value = node.op, node.value
    items: list[Any] = value if isinstance(value, list) else []
    if op == "contains":
        if not isinstance(value, str):
            return current if not want else None
        if want:
            return Members(current.must | {value}, current.may) if value in current.may else None
        return Members(current.must, current.may - {value}) if value not in current.must else None
    if op in ("eq", "ne"):
        wanted = frozenset(v for v in value if isinstance(v, str)) if isinstance(value, list) else None
        if wanted is None or len(wanted) != len({orjson_key(v) for v in items}):
            return current if (op == "ne") == want else None
        if (op == "eq") == want:
            return Members(wanted, wanted) if current.must <= wanted <= current.may else None
        return None if current.must == current.may == wanted else current
    if op in ("gt", "gte", "lt", "lte"):
        return current if not want else None
    return current


def orjson_key(value: Any) -> str:
    """A hashable stand-in for a JSON value (strings stay themselves)."""
    return value if isinstance(value, str) else f"\0{show(value)}"


# --- reasons ---------------------------------------------------------------------------------


class _Explainer:
    """Says why a condition cannot be ``want``: the smallest part of it that cannot, in words."""

    def __init__(self, analysis: Analysis, checker: _Checker) -> None:
        self.analysis = analysis
        self.checker = checker

    def why(self, node: Condition, on: Abstract, *, want: bool) -> str:
        match node:
            case LiteralCond(value=value):
                return f"it is `literal {str(value is True).lower()}`"
            case Not(condition=inner):
                return self.why(inner, on, want=not want)
            case AllOf(conditions=children) | AnyOf(conditions=children):
                if isinstance(node, AllOf) == want:
                    for child in children:
                        if self.checker.refine(on, child, want=want) is None:
                            return self.why(child, on, want=want)
                    atoms = "; ".join(self._describe(a) for a in leaves(node) if isinstance(a, Compare))
                    return f"its parts cannot hold together ({atoms})" if atoms else "its parts cannot hold together"
                reasons = [self.why(child, on, want=want) for child in children]
                op = "all" if isinstance(node, AllOf) else "any"
                return " and ".join(dict.fromkeys(reasons)) if reasons else f"`{op}` has no conditions"
            case Observed(id=ident, value=value):
                return f"observation `{ident}` cannot be answered {show(value)}"
            case Compare():
                return self._atom(node, on, want=want)

    def where(self, node: Condition, on: Abstract, *, want: bool) -> tuple[str | int, ...]:
        """The path to the part :meth:`why` explains (it follows the same steps)."""
        match node:
            case Not(condition=inner):
                return ("condition", *self.where(inner, on, want=not want))
            case AllOf(conditions=children) | AnyOf(conditions=children):
                if isinstance(node, AllOf) == want:
                    for i, child in enumerate(children):
                        if self.checker.refine(on, child, want=want) is None:
                            return ("conditions", i, *self.where(child, on, want=want))
                    return ()
                if len(children) == 1:  # every part fails: only one part is to blame when there is one
                    return ("conditions", 0, *self.where(children[0], on, want=want))
        return ()

    def _atom(self, node: Compare, on: Abstract, *, want: bool) -> str:
        path = node.path
        place = self.checker.place(path)
        needs = self._describe(node, negate=not want)
        if isinstance(place, _Const):
            if place.value is MISSING:
                return f"`{path}` is not in the state, so {needs} never holds"
            return f"`{path}` is always {show(place.value)}: no effect changes it, so {needs} never holds"
        assert isinstance(place, _Var)
        value = on[place.index]
        writers = self.analysis.writers.get(place.index, ())
        refused = self.analysis.refused
        live = [w for w in writers if w not in refused]
        how = f"effects of {_names(live)}" if live else "no effect"
        how += "".join(f"; rule `{w}` never changes the state: {refused[w].reason}" for w in writers if w in refused)
        ended = "; an ending stops the session first" if self.analysis.endings_bound else ""
        if isinstance(value, IntRange):
            within = f"is {value.low}" if value.low == value.high else f"stays within {value.show()}"
            return f"`{path}` {within} in every reachable state ({how}{ended}), so {needs} never holds"
        return f"`{path}` {_held(value)} ({how}{ended}), so {needs} never holds"

    def _describe(self, atom: Compare, *, negate: bool = False) -> str:
        op: str = atom.op
        if negate:
            op = _NEGATE.get(op, "not-contains" if op == "contains" else op)
        return f"`{atom.path}` {_SYMBOLS.get(op, op)} {show(atom.value)}"


def _held(value: Members) -> str:
    """What a set always and may hold, in words a creator reads at once ("can hold only rope")."""
    must, may = ", ".join(sorted(value.must)), ", ".join(sorted(value.may))
    if not may:
        return "is always empty"
    if not must:
        return f"can hold only {may}"
    if value.must == value.may:
        return f"always holds exactly {must}"
    return f"always holds {must} and can hold only {may}"


def _names(rules: Sequence[str]) -> str:
    shown = ", ".join(f"rule `{r}`" for r in rules[:3])
    return shown + (f" and {len(rules) - 3} more" if len(rules) > 3 else "")


def answerable(observations: Mapping[str, Mapping[str, Any]], node: Condition) -> bool:
    """Whether some answer to the observation an ``observed`` condition names makes it hold."""
    if not isinstance(node, Observed):
        return False
    observation = observations.get(node.id)
    if observation is None:
        return False
    value = node.value
    if observation.get("type") == "boolean":
        return isinstance(value, bool)
    if observation.get("type") == "choice":
        return isinstance(value, str) and value in observation.get("choices", {})
    return True
