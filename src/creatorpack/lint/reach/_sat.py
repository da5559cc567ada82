"""Can a condition ever hold? Interval and set reasoning over the state schema's bounds and enums.

The condition is put in negation normal form and explored branch by branch (``any`` branches,
``all`` narrows); each branch keeps, per state path, an integer interval with excluded values, a
required boolean, set members that must be in or out, and per observation the answers allowed.
A branch that empties any of them is impossible. Past a bound on branches the answer is "may
hold": the linter never claims impossibility it has not shown.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Final, TypeAlias

from creatorpack._json import show
from creatorpack.contract.conditions import AllOf, AnyOf, Compare, Condition, LiteralCond, Not, Observed
from creatorpack.play.conditions import json_equal
from creatorpack.play.state import schema_at

__all__ = ["MAX_BRANCHES", "Checker"]

MAX_BRANCHES: Final = 512

_Path: TypeAlias = tuple[str | int, ...]
_KINDS: Final = ("integer", "boolean", "array", "object")
"""The state types the runtime checks; any other member is compared on its value as it is."""


def _under_unchecked(schema: Mapping[str, Any], tokens: Sequence[str]) -> bool:
    """Whether a path the schema does not have lies inside a member of a type the runtime does not check."""
    for depth in range(len(tokens) - 1, 0, -1):
        parent = schema_at(schema, tokens[:depth])
        if parent is not None:
            return parent.get("type") not in _KINDS
    return False


_UNKNOWN: Final = "it can never hold given the state schema's bounds and enums"

_NEGATE: Final = {"eq": "ne", "ne": "eq", "gt": "lte", "gte": "lt", "lt": "gte", "lte": "gt"}


@dataclass(frozen=True)
class _Facts:
    ints: Mapping[str, tuple[int, int, frozenset[int]]] = field(default_factory=dict)
    bools: Mapping[str, bool] = field(default_factory=dict)
    inside: Mapping[str, frozenset[str]] = field(default_factory=dict)
    outside: Mapping[str, frozenset[str]] = field(default_factory=dict)
    answers: Mapping[str, frozenset[Any]] = field(default_factory=dict)
    answered: frozenset[str] = frozenset()
    unanswered: frozenset[str] = frozenset()


class _TooManyError(Exception):
    """Too many branches to decide."""


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


class Checker:
    """Decides satisfiability of conditions against one pack's state schema and observations."""

    def __init__(self, schema: Mapping[str, Any], observations: Mapping[str, Mapping[str, Any]]) -> None:
        self.schema = schema
        self.observations = observations
        self._explaining = False
        self._reason: str | None = None
        self.unresolved = False
        """Whether the last :meth:`explain` found a path the state schema does not have (reported apart)."""

    def why_never(self, condition: Condition) -> tuple[_Path, str] | None:
        """``None`` if the condition may hold; else where the sub-condition that cannot stands, and why."""
        return None if self.may_hold(condition) else self.explain(condition)

    def explain(self, condition: Condition) -> tuple[_Path, str]:
        """For a condition that never holds: where the sub-condition that cannot stands (its ``at``), and why."""
        self._explaining = True
        self.unresolved = False
        try:
            return self._culprit(condition)
        except (_TooManyError, RecursionError, TypeError, AttributeError):
            return condition.at, _UNKNOWN
        finally:
            self._explaining = False

    def _culprit(self, node: Condition) -> tuple[_Path, str]:
        match node:
            case AllOf(conditions=children):
                facts = [_Facts()]
                for child in children:
                    self._reason = None
                    facts = self._branches(child, facts, positive=True)
                    if not facts:
                        reason = self._reason or _UNKNOWN
                        if not self.may_hold(child):  # this part alone cannot hold
                            return self._culprit(child)
                        return node.at, f"its conditions cannot all hold at once: {reason}"
                return node.at, _UNKNOWN
            case AnyOf(conditions=(only,)):
                return self._culprit(only)
            case AnyOf(conditions=children):
                reasons = [self._why(child, positive=True) for child in children]
                joined = "; ".join(dict.fromkeys(reasons))
                return node.at, f"none of its {len(children)} conditions can hold: {joined}"
            case Not(condition=inner):
                return node.at, f"its condition always holds: {self._why(inner, positive=False)}"
            case _:
                return node.at, self._why(node, positive=True)

    def _why(self, node: Condition, *, positive: bool) -> str:
        self._reason = None
        self._branches(node, [_Facts()], positive=positive)
        return self._reason or _UNKNOWN

    def may_hold(self, condition: Condition) -> bool:
        """False only when the condition provably never holds."""
        try:
            return bool(self._branches(condition, [_Facts()], positive=True))
        except (_TooManyError, RecursionError, TypeError, AttributeError):
            return True  # undecided (or a shape the contract does not show): never claim impossibility

    def _branches(self, node: Condition, facts: list[_Facts], *, positive: bool) -> list[_Facts]:
        if not facts:
            return facts
        match node:
            case LiteralCond(value=value):
                if (value is True) == positive:
                    return facts
                if self._explaining:
                    self._reason = f"it is literally {'false' if positive else 'true'}"
                return []
            case Not(condition=inner):
                return self._branches(inner, facts, positive=not positive)
            case AllOf(conditions=children) | AnyOf(conditions=children):
                conjunctive = isinstance(node, AllOf) == positive
                if conjunctive:
                    for child in children:
                        facts = self._branches(child, facts, positive=positive)
                        if not facts:
                            return []
                    return facts
                result: list[_Facts] = []
                for child in children:
                    result.extend(self._branches(child, facts, positive=positive))
                    if len(result) > MAX_BRANCHES:
                        raise _TooManyError
                return result
            case Observed(id=ident, value=value):
                return [n for fact in facts if (n := self._observed(ident, value, fact, positive=positive)) is not None]
            case Compare():
                return [n for fact in facts if (n := self._compare(node, fact, positive=positive)) is not None]

    def _compare(self, node: Compare, fact: _Facts, *, positive: bool) -> _Facts | None:
        op, path, value, tokens = node.op, node.path, node.value, node.tokens
        target = schema_at(self.schema, tokens) if tokens else None
        if tokens is not None and target is None and _under_unchecked(self.schema, tokens):
            return fact  # inside a member whose type the runtime does not know: compared on the value itself
        if tokens is None or target is None:
            if positive:  # never resolves: false, so its negation holds
                if self._explaining:
                    self._reason = f"`{path}` is not in the state schema"
                    self.unresolved = True
                return None
            return fact
        kind = target.get("type")
        key = str(path)
        if kind not in _KINDS:  # an enum, or a type the runtime does not know: compared on the value itself
            return self._unchecked(key, target, op, fact, positive=positive)
        if op in ("eq", "ne", "gt", "gte", "lt", "lte") and kind == "integer":
            return self._integer(key, target, op if positive else _NEGATE[op], value, fact)
        if op in ("eq", "ne") and kind == "boolean":
            if not isinstance(value, bool):
                if (op == "eq") == positive:
                    if self._explaining:
                        self._reason = f"`{key}` is a boolean, never {show(value)}"
                    return None
                return fact
            wanted = value if (op == "eq") == positive else not value
            if fact.bools.get(key, wanted) != wanted:
                if self._explaining:
                    self._reason = f"`{key}` cannot be both true and false"
                return None
            return replace(fact, bools={**fact.bools, key: wanted})
        if op == "contains" and kind == "array":
            enum = set(target.get("items", {}).get("enum", []))
            if not isinstance(value, str) or (positive and value not in enum):
                if positive:
                    if self._explaining:
                        self._reason = f"`{key}` never holds {show(value)}: it is not one of its values"
                    return None
                return fact
            if positive:
                if value in fact.outside.get(key, frozenset()):
                    if self._explaining:
                        self._reason = f"`{key}` cannot both hold and lack {show(value)}"
                    return None
                return replace(fact, inside={**fact.inside, key: fact.inside.get(key, frozenset()) | {value}})
            if value in fact.inside.get(key, frozenset()):
                if self._explaining:
                    self._reason = f"`{key}` cannot both hold and lack {show(value)}"
                return None
            if value not in enum:
                return fact
            return replace(fact, outside={**fact.outside, key: fact.outside.get(key, frozenset()) | {value}})
        if op in ("gt", "gte", "lt", "lte"):
            if positive:  # numbers only: never holds on this type
                if self._explaining:
                    self._reason = f"`{key}` is not a number, so {op} never holds"
                return None
            return fact
        return fact  # other combinations: not reasoned about, so assumed possible

    def _unchecked(
        self, key: str, target: Mapping[str, Any], op: str, fact: _Facts, *, positive: bool
    ) -> _Facts | None:
        """A member the runtime does not type: only an enum's options say what it can hold."""
        options = target.get("enum")
        if not positive or not isinstance(options, list):
            return fact
        if op in ("gt", "gte", "lt", "lte") and not any(_is_number(option) for option in options):
            if self._explaining:
                self._reason = f"`{key}` is one of {show(options)}, none a number, so {op} never holds"
            return None
        if op == "contains" and not any(isinstance(option, list) for option in options):
            if self._explaining:
                self._reason = f"`{key}` is one of {show(options)}, none a set, so contains never holds"
            return None
        return fact

    def _integer(self, key: str, target: Mapping[str, Any], op: str, value: Any, fact: _Facts) -> _Facts | None:
        minimum, maximum = target["minimum"], target["maximum"]
        low, high, excluded = fact.ints.get(key, (minimum, maximum, frozenset()))
        if not _is_number(value):
            if op == "ne":
                return fact
            if self._explaining:
                self._reason = f"`{key}` is an integer, never {show(value)}"
            return None
        if op == "eq":
            if value != int(value) or not low <= value <= high or value in excluded:
                if self._explaining:
                    self._reason = self._eq_reason(key, value, (minimum, maximum), (low, high))
                return None
            low = high = int(value)
        elif op == "ne":
            if value == int(value):
                excluded |= {int(value)}
        elif op == "gt":
            low = max(low, math.floor(value) + 1)
        elif op == "gte":
            low = max(low, math.ceil(value))
        elif op == "lt":
            high = min(high, math.ceil(value) - 1)
        elif op == "lte":
            high = min(high, math.floor(value))
        if low > high:
            if self._explaining:
                self._reason = self._range_reason(key, (minimum, maximum), (low, high))
            return None
        if high - low + 1 <= len(excluded) and all(v in excluded for v in range(low, high + 1)):
            if self._explaining:
                self._reason = f"every value of `{key}` in {low}..{high} is excluded"
            return None
        return replace(fact, ints={**fact.ints, key: (low, high, excluded)})

    @staticmethod
    def _range_reason(key: str, bounds: tuple[int, int], narrowed: tuple[int, int]) -> str:
        if narrowed[0] > bounds[1]:
            return f"`{key}` is at most {bounds[1]}"
        if narrowed[1] < bounds[0]:
            return f"`{key}` is at least {bounds[0]}"
        return f"`{key}` cannot be both at least {narrowed[0]} and at most {narrowed[1]}"

    @staticmethod
    def _eq_reason(key: str, value: float, bounds: tuple[int, int], narrowed: tuple[int, int]) -> str:
        if value != int(value):
            return f"`{key}` is an integer, never {value}"
        if not bounds[0] <= value <= bounds[1]:
            return f"`{key}` is between {bounds[0]} and {bounds[1]}"
        if not narrowed[0] <= value <= narrowed[1]:
            return f"`{key}` must also be in {narrowed[0]}..{narrowed[1]}, so never {int(value)}"
        return f"`{key}` cannot be both {int(value)} and not {int(value)}"

    def _observed(self, ident: str, value: Any, fact: _Facts, *, positive: bool) -> _Facts | None:
        observation = self.observations.get(ident)
        if observation is None:
            if positive:
                if self._explaining:
                    self._reason = f"no observation has the id {ident!r}"
                return None
            return fact
        if observation.get("type") == "choice":
            options = frozenset(observation.get("choices", {}))
        else:
            options = frozenset([True, False])
        allowed = fact.answers.get(ident, options)
        if positive:
            matching = frozenset(o for o in allowed if json_equal(o, value))
            if not matching or ident in fact.unanswered:
                if self._explaining:
                    self._reason = self._observed_reason(ident, value, options, fact)
                return None
            return replace(fact, answers={**fact.answers, ident: matching}, answered=fact.answered | {ident})
        matching = frozenset(o for o in allowed if not json_equal(o, value))
        if not matching:
            # "not observed X" can then hold only while the observation is unanswered.
            if ident in fact.answered:
                if self._explaining:
                    self._reason = f"observation {ident!r} would need an answer other than all its answers"
                return None
            return replace(fact, unanswered=fact.unanswered | {ident})
        return replace(fact, answers={**fact.answers, ident: matching})

    @staticmethod
    def _observed_reason(ident: str, value: Any, options: frozenset[Any], fact: _Facts) -> str:
        if not any(json_equal(o, value) for o in options):
            return f"observation {ident!r} is never answered {show(value)}"
        if ident in fact.unanswered:
            return f"observation {ident!r} cannot be both answered and unanswered"
        return f"observation {ident!r} cannot be answered {show(value)} and something else at once"
