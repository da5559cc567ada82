"""One turn of an entry, exactly, for z3: every slot's value after it as a term of the state before it.

A *slot* is an integer variable of an entry's :class:`~creatorpack.lint.reach._abstract.Analysis`,
or one member of a set variable. :class:`Encoder` encodes the turn as the runtime plays it
(``play/step.py``, ``play/_effects.py``), in one pass over the rules in document order:

- every rule's ``when`` reads the state before the turn and the answers after it; a rule
  completed before the turn does not fire (whether it is, the box does not say: a free Boolean
  per rule that has a ``completion``; a rule completed at the start never fires);
- the active rules apply their effects in document order, each effect on the values the earlier
  ones left; an increment clamps to its bounds, or rejects beyond them, and a rejection undoes
  every effect of its rule (all or none); ``add`` and ``remove`` set or clear one member;
- a turn is taken only from a state in which no ending holds (on the answers before the turn).

Answers are free: each observation with a closed set of answers (yes/no, a choice) is one
integer (0: never answered), and an answer given before the turn stays given. Whatever this
cannot encode exactly (a comparison inside a variable, a value of an unexpected type, an
observation with open answers) is a free Boolean, which can only add states: sound. A variable
that some effect changes in a way this does not encode is *opaque*: it has no slot, and the box
of :mod:`~creatorpack.lint.reach._inductive` keeps the analysis's own bounds for it.

Integers are signed bit-vectors wide enough for every bound and every value one step beyond one.
What the box decides is folded before z3 sees it: a comparison the box's interval settles, a
member it holds or lacks, a rule whose ``when`` cannot hold. An encoding folded against the
analysis's own box (which holds every reachable state) is valid for every tighter box; the
tighter box is then given to the solver as bounds (:meth:`Encoder.bounds`). z3 is imported
with this module, which lint imports only when the phase runs.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, Final, TypeAlias

import z3  # type: ignore[import-untyped]

from creatorpack.contract.conditions import AllOf, AnyOf, Compare, Condition, LiteralCond, Not, Observed
from creatorpack.lint.reach._abstract import (
    Abstract,
    Analysis,
    IntRange,
    Members,
    Value,
    completed_at_start,
    tree_of,
)
from creatorpack.play.conditions import compile_condition
from creatorpack.play.state import CompiledEffect, set_paths

__all__ = ["Encoder", "Reading", "Slot", "Turned"]

Slot: TypeAlias = tuple[int, str | None]
"""A variable's index, and the member for a set variable (``None`` for an integer)."""

_NUMBER_OPS: Final = ("eq", "ne", "gt", "gte", "lt", "lte")


@dataclass(frozen=True, slots=True)
class _Effect:
    """One effect of a rule on a slot it may encode: an increment (``slot``'s member is None) or a member set."""

    slot: Slot
    by: int = 0
    low: int = 0
    high: int = 0
    reject: bool = False
    present: bool = True  # add (True) or remove (False), for a member slot


@dataclass(frozen=True, slots=True)
class _Rule:
    """An effect rule as the encoding reads it: its position, ``when``, whether it may be completed, its effects."""

    position: int
    ident: str
    when: Condition
    completable: bool
    effects: tuple[_Effect, ...]
    loose: bool  # an effect this does not encode may reject it: whether it applies is then free


@dataclass(frozen=True, slots=True)
class Turned:
    """One turn from a box: each slot's value after it (an Int or a Bool), under ``pre`` (the box, no ending held)."""

    values: Mapping[Slot, Any]
    pre: tuple[Any, ...]
    reading: Reading | None = None
    """What read the state before the turn and the answers (its constants, its constraints as they grow)."""


class Encoder:
    """The turn of one entry's analysis, encoded for z3 (see the module docstring)."""

    def __init__(self, analysis: Analysis, *, bitvectors: bool = True) -> None:
        self.analysis = analysis
        program = analysis.program
        self.ctx = z3.Context()
        self.sets = set_paths(program.schema)
        index = {tokens: i for i, tokens in enumerate(analysis.variables)}
        done = completed_at_start(program, analysis.initial)
        self.unbounded: set[int] = set()  # integer variables an effect may leave unencoded (a float, say)
        self.opaque: set[int] = set()  # variables some effect changes in a way not encoded: no slot
        for rule in program.rules:
            for effect in rule.effects:
                i = index.get(effect.tokens)
                plain = all(type(n) is int for n in (effect.by, effect.low, effect.high))
                if i is not None and effect.op == "increment" and effect.error is None and not plain:
                    self.unbounded.add(i)
        rules: list[_Rule] = []
        for position, rule in enumerate(program.rules):
            if not rule.effects or rule.id in done:
                continue
            if any(effect.error is not None for effect in rule.effects):
                continue  # every turn it fires, the effect in error rejects it: it never changes the state
            effects: list[_Effect] = []
            loose = False
            for effect in rule.effects:
                encoded = self._effect(effect, index)
                if encoded is None:
                    loose = True
                    if (i := index.get(effect.tokens)) is not None:
                        self.opaque.add(i)  # a tracked variable changed in a way not encoded
                else:
                    effects.append(encoded)
            if effects:
                when = tree_of(program.conditions[rule.when])
                rules.append(_Rule(position, rule.id, when, rule.completion is not None, tuple(effects), loose))
        self.rules = tuple(rules)
        self.bits = _width(analysis, self.rules) if bitvectors else None
        self.writers: dict[Slot, list[int]] = {}
        for at, made in enumerate(self.rules):
            for written in made.effects:
                writers = self.writers.setdefault(written.slot, [])
                if not writers or writers[-1] != at:
                    writers.append(at)
        self.endings = [tree_of(program.conditions[goal.when]) for goal in program.endings]
        self._constants: dict[int, bool] = {}
        self._reads: dict[int, frozenset[int]] = {}
        self._ending_reads: frozenset[int] | None = None
        self._bounds: dict[tuple[int, Value], list[Any]] = {}
        self.opaque |= self.unbounded
        # A rejection on an opaque variable is not followed: whether its rule applies is then free.
        self.rules = tuple(
            replace(r, loose=True) if any(e.reject and e.slot[0] in self.opaque for e in r.effects) else r
            for r in self.rules
        )
        after = analysis.after
        self.slots: tuple[Slot, ...] = (
            *((i, None) for i, v in enumerate(after) if isinstance(v, IntRange) and i not in self.opaque),
            *(
                (i, m)
                for i, v in enumerate(after)
                if isinstance(v, Members) and i not in self.opaque
                for m in sorted(v.may)
            ),
        )
        """Every slot the encoding follows exactly: integers, then set members, in variable order."""

    def _effect(self, effect: CompiledEffect, index: Mapping[tuple[str, ...], int]) -> _Effect | None:
        i = index.get(effect.tokens)
        if i is None:
            return None
        value = self.analysis.after[i]
        if effect.op == "increment" and isinstance(value, IntRange) and i not in self.unbounded:
            return _Effect((i, None), effect.by, effect.low, effect.high, effect.reject)
        if effect.op in ("add", "remove") and isinstance(value, Members) and isinstance(effect.value, str):
            return _Effect((i, effect.value), present=effect.op == "add")
        return None

    # --- what a slot depends on ------------------------------------------------------------------

    def cone(self, slot: Slot) -> tuple[list[int], set[Slot]]:
        """The rules (positions in :attr:`rules`, in order) and slots whose values decide ``slot`` after a turn."""
        slots = {slot}
        todo = [slot]
        rules: set[int] = set()
        while todo:
            current = todo.pop()
            for at in self.writers.get(current, ()):
                if at in rules:
                    continue
                rules.add(at)
                for effect in self.rules[at].effects:
                    if effect.reject and effect.slot not in slots:
                        slots.add(effect.slot)
                        todo.append(effect.slot)
        return sorted(rules), slots

    def reads(self, slot: Slot) -> frozenset[int]:
        """The variables whose values before a turn may decide ``slot``'s after it (its cone's, its rules' reads)."""
        rules, slots = self.cone(slot)
        read = {i for i, _ in slots}
        for at in rules:
            read |= self._when_reads(at)
        if self._ending_reads is None:
            self._ending_reads = frozenset(
                i for ending in self.endings for i in self.analysis.reads(ending) if i is not None
            )
        return frozenset(read | self._ending_reads)

    def _when_reads(self, at: int) -> frozenset[int]:
        known = self._reads.get(at)
        if known is None:
            known = self._reads[at] = frozenset(i for i in self.analysis.reads(self.rules[at].when) if i is not None)
        return known

    def bounds(self, box: Abstract, variables: frozenset[int]) -> list[Any]:
        """``box`` on ``variables``, as constraints on the variables before the turn."""
        found: list[Any] = []
        for i in sorted(variables):
            key = (i, box[i])
            made = self._bounds.get(key)
            if made is None:
                made = self._bounds[key] = self._bound(i, box[i])
            found += made
        return found

    def _bound(self, i: int, value: Value) -> list[Any]:
        if isinstance(value, IntRange):
            x = self.integer(i)
            return [x >= value.low, x <= value.high]
        domain = self.analysis.after[i]
        assert isinstance(domain, Members)
        found: list[Any] = []
        for member in sorted(domain.may):
            if member in value.must:
                found.append(z3.Bool(f"m{i}.{member}", self.ctx))
            elif member not in value.may:
                found.append(z3.Not(z3.Bool(f"m{i}.{member}", self.ctx)))
        return found

    def integer(self, i: int, tag: str = "") -> Any:
        """Integer variable ``i`` before the turn (the turn named ``tag``), as z3 sees it."""
        name = f"v{i}{tag}"
        return z3.Int(name, self.ctx) if self.bits is None else z3.BitVec(name, self.bits, self.ctx)

    def reading(self, box: Abstract, tag: str = "") -> Reading:
        """Conditions on a state of ``box`` and its answers, over constants named with ``tag`` (:class:`Reading`)."""
        return Reading(self, box, tag)

    def turn(self, box: Abstract, tag: str = "") -> Turned:
        """Every slot's value after one turn from a state of ``box`` in which no ending holds, in one pass.

        ``box`` must lie within the analysis's own box; the terms are valid for every box within ``box``.
        ``tag`` ends the name of every constant (the state before, the answers, the free Booleans), so
        that several turns, one after the other, can be asked of z3 together.
        """
        encoding = Reading(self, box, tag)
        ctx = self.ctx
        current: dict[Slot, Any] = {s: _term(encoding.slot(s), ctx) for s in self.slots}
        for at, rule in enumerate(self.rules):
            fire = encoding.when(at, rule.when)
            if fire is False:
                continue
            fire = _term(fire, ctx)
            if rule.completable:
                fire = z3.And(fire, z3.Not(z3.Bool(f"done{at}{tag}", ctx)))
            if rule.loose:
                fire = z3.And(fire, z3.Bool(f"ok{at}{tag}", ctx))
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
                else:  # contradictory bounds: min(max(y, low), high)
                    clamped = z3.If(moved < effect.low, effect.low, moved)
                    working[effect.slot] = z3.If(clamped > effect.high, effect.high, clamped)
            applies = z3.And(fire, *passes) if passes else fire
            for s, value in working.items():
                if value is not current[s]:
                    current[s] = z3.If(applies, value, current[s])
        return Turned(current, encoding.pre(self.endings), encoding)


def _width(analysis: Analysis, rules: Sequence[_Rule]) -> int:
    """Bits for every integer as a signed bit-vector: room for every bound and every value one step beyond one."""
    largest = max(
        [abs(n) for v in analysis.after if isinstance(v, IntRange) for n in (v.low, v.high)]
        + [abs(n) + abs(e.by) for r in rules for e in r.effects if e.slot[1] is None for n in (e.low, e.high)]
        + [1]
    )
    return largest.bit_length() + 2


def _term(value: Any, ctx: z3.Context) -> Any:
    """``value`` as a z3 term (a folded ``bool`` made a z3 Boolean)."""
    return z3.BoolVal(value, ctx) if isinstance(value, bool) else value


class Reading:
    """The variables of one query: the state before the turn (within ``box``), the answers before and after.

    Every constant's name ends with ``tag``; :attr:`constraints` (the box's bounds on the slots
    read, the answers' ranges) grows as conditions are read.
    """

    def __init__(self, encoder: Encoder, box: Abstract, tag: str = "") -> None:
        self.encoder = encoder
        self.box = box
        self.tag = tag
        self.ctx = encoder.ctx
        self.read: set[Slot] = set()
        self.constraints: list[Any] = []
        self._slots: dict[Slot, Any] = {}
        self._answers: dict[tuple[str, bool], Any] = {}
        self._free: dict[tuple[Any, ...], Any] = {}
        self._whens: dict[int, Any] = {}

    def slot(self, slot: Slot) -> Any:
        known = self._slots.get(slot)
        if known is not None:
            return known
        i, member = slot
        value = self.box[i]
        self.read.add(slot)
        if member is None:
            made = self.encoder.integer(i, self.tag)
            assert isinstance(value, IntRange)
            self.constraints += [made >= value.low, made <= value.high]
        else:
            assert isinstance(value, Members)
            if member in value.must:
                made = True
            elif member not in value.may:
                made = False
            else:
                made = z3.Bool(f"m{i}.{member}{self.tag}", self.ctx)
        self._slots[slot] = made
        return made

    def constant(self, slot: Slot) -> Any:
        """``slot``'s constant, whether or not the box folds it (to tie it to the value an earlier turn left)."""
        i, member = slot
        return self.encoder.integer(i, self.tag) if member is None else z3.Bool(f"m{i}.{member}{self.tag}", self.ctx)

    def when(self, at: int, node: Condition) -> Any:
        """Rule ``at``'s ``when``, encoded once per box."""
        known = self._whens.get(at)
        if known is None:
            known = self._whens[at] = self.condition(node, after=True)
        return known

    def answer(self, ident: str, *, after: bool) -> tuple[Any, list[Any]] | None:
        """The observation's answer (0: never given; ``k``: its ``k``-th value), and its values; None: open answers."""
        observation = self.encoder.analysis.program.observations.get(ident)
        if observation is None:
            return None
        if observation.get("type") == "boolean":
            values: list[Any] = [True, False]
        elif observation.get("type") == "choice" and isinstance(observation.get("choices"), Mapping):
            values = list(observation["choices"])
        else:
            return None
        key = (ident, after)
        made = self._answers.get(key)
        if made is None:
            name = f"{'a' if after else 'p'}.{ident}{self.tag}"
            if self.encoder.bits is None:
                made = z3.Int(name, self.ctx)
                self.constraints += [made >= 0, made <= len(values)]
            else:
                made = z3.BitVec(name, max(2, (len(values) + 1).bit_length() + 1), self.ctx)
                self.constraints += [made >= 0, made <= len(values)]
            self._answers[key] = made
            other = self.answer(ident, after=not after)
            if other is not None:  # an answer given before the turn stays given
                earlier, later = (other[0], made) if after else (made, other[0])
                self.constraints.append(z3.Implies(earlier != 0, later != 0))
        return made, values

    def free(self, *key: Any) -> Any:
        made = self._free.get(key)
        if made is None:
            made = z3.Bool(f"free{len(self._free)}{self.tag}", self.ctx)
            self._free[key] = made
        return made

    def condition(self, node: Condition, *, after: bool) -> Any:
        """``node`` as a z3 Boolean of the state before the turn and the answers (``after`` the turn's or before).

        What the box decides is folded to a Python ``bool`` (``True``/``False``), so that z3 gets only what is open.
        """
        match node:
            case LiteralCond(value=value):
                return value is True
            case AllOf(conditions=children):
                parts = []
                for child in children:
                    part = self.condition(child, after=after)
                    if part is False:
                        return False
                    if part is not True:
                        parts.append(part)
                return True if not parts else parts[0] if len(parts) == 1 else z3.And(*parts)
            case AnyOf(conditions=children):
                parts = []
                for child in children:
                    part = self.condition(child, after=after)
                    if part is True:
                        return True
                    if part is not False:
                        parts.append(part)
                return False if not parts else parts[0] if len(parts) == 1 else z3.Or(*parts)
            case Not(condition=inner):
                part = self.condition(inner, after=after)
                return (not part) if isinstance(part, bool) else z3.Not(part)
            case Observed(id=ident, value=value):
                found = self.answer(ident, after=after)
                if found is None:
                    return self.free("observed", ident, repr(value), after)
                made, values = found
                position = next((k for k, v in enumerate(values) if type(v) is type(value) and v == value), None)
                return False if position is None else made == position + 1
            case Compare():
                return self._compare(node)

    def _compare(self, node: Compare) -> Any:
        analysis = self.encoder.analysis
        place = analysis.place(node.path)
        index = getattr(place, "index", None)
        if index is None:
            if hasattr(place, "value"):  # a constant: evaluated on the initial state, as the runtime would
                key = id(node)
                if key not in self.encoder._constants:
                    compiled = compile_condition(node, set_paths=self.encoder.sets)
                    self.encoder._constants[key] = bool(compiled.evaluate(analysis.initial, {}))
                return self.encoder._constants[key]
            return self.free("compare", node.op, node.path, repr(node.value))
        value = self.box[index]
        expected = node.value
        if isinstance(value, IntRange):
            if index in self.encoder.unbounded:
                return self.free("compare", node.op, node.path, repr(expected))
            x = self.slot((index, None))
            number = isinstance(expected, int | float) and not isinstance(expected, bool)
            if not number or (isinstance(expected, float) and not math.isfinite(expected)):
                # an integer never equals a string, a boolean, null or a container, nor orders against one
                return node.op == "ne"
            if node.op == "contains":
                return False
            if isinstance(expected, float) and not expected.is_integer():
                if node.op in ("eq", "ne"):
                    return node.op == "ne"
                threshold = math.floor(expected)  # x > 2.5 is x >= 3, x < 2.5 is x <= 2
                return {"gt": x > threshold, "gte": x > threshold, "lt": x <= threshold, "lte": x <= threshold}[node.op]
            n = int(expected)
            low, high = value.low, value.high
            truth = {
                "eq": (n == low == high, not low <= n <= high),
                "ne": (not low <= n <= high, n == low == high),
                "gt": (low > n, high <= n),
                "gte": (low >= n, high < n),
                "lt": (high < n, low >= n),
                "lte": (high <= n, low > n),
            }[node.op]
            if truth[0] or truth[1]:
                return truth[0]
            return {"eq": x == n, "ne": x != n, "gt": x > n, "gte": x >= n, "lt": x < n, "lte": x <= n}[node.op]
        if node.op == "contains" and isinstance(expected, str):
            return self.slot((index, expected)) if expected in value.may else False
        return self.free("compare", node.op, node.path, repr(expected))

    def pre(self, endings: Sequence[Condition]) -> tuple[Any, ...]:
        """The constraints on the state before the turn: within the box, no ending holding."""
        ends = []
        for ending in endings:
            holds = self.condition(ending, after=False)
            if holds is True:
                return (False,)
            if holds is not False:
                ends.append(z3.Not(holds))
        return (*ends, *self.constraints)
