"""Can a condition ever hold? Interval and set reasoning over the state schema's bounds and enums.

The condition is put in negation normal form and explored branch by branch (``any`` branches,
``all`` narrows); each branch keeps, per state path, an integer interval with excluded values, a
required boolean, set members that must be in or out, and per observation the answers allowed.
A branch that empties any of them is impossible. Past a bound on branches the answer is "may
hold": the linter never claims impossibility it has not shown.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any, Final

from creatorpack.conditions import json_equal, parse_pointer
from creatorpack.state import schema_at

MAX_BRANCHES: Final = 512

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

    def may_hold(self, condition: Any) -> bool:
        """False only when the condition provably never holds."""
        try:
            return bool(self._branches(condition, [_Facts()], positive=True))
        except (_TooManyError, RecursionError, TypeError, AttributeError):
            return True  # undecided (or a shape the contract does not show): never claim impossibility

    def _branches(self, node: Any, facts: list[_Facts], *, positive: bool) -> list[_Facts]:
        if not isinstance(node, Mapping) or not facts:
            return facts
        op = node.get("op")
        if op == "literal":
            return facts if (node.get("value") is True) == positive else []
        if op == "not":
            return self._branches(node.get("condition"), facts, positive=not positive)
        if op in ("all", "any"):
            children = node.get("conditions", [])
            conjunctive = (op == "all") == positive
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
        out = []
        for fact in facts:
            narrowed = self._atom(node, fact, positive=positive)
            if narrowed is not None:
                out.append(narrowed)
        return out

    def _atom(self, node: Mapping[str, Any], fact: _Facts, *, positive: bool) -> _Facts | None:
        op = node.get("op")
        value = node.get("value")
        if op == "observed":
            return self._observed(str(node.get("id")), value, fact, positive=positive)
        path = node.get("path")
        tokens = parse_pointer(path) if isinstance(path, str) else None
        target = schema_at(self.schema, tokens) if tokens else None
        if tokens is None or target is None:
            return None if positive else fact  # never resolves: false, so its negation holds
        kind = target.get("type")
        key = str(path)
        if op in ("eq", "ne", "gt", "gte", "lt", "lte") and kind == "integer":
            return self._integer(key, target, op if positive else _NEGATE[op], value, fact)
        if op in ("eq", "ne") and kind == "boolean":
            if not isinstance(value, bool):
                return None if (op == "eq") == positive else fact
            wanted = value if (op == "eq") == positive else not value
            if fact.bools.get(key, wanted) != wanted:
                return None
            return replace(fact, bools={**fact.bools, key: wanted})
        if op == "contains" and kind == "array":
            enum = set(target.get("items", {}).get("enum", []))
            if not isinstance(value, str):
                return None if positive else fact
            if positive:
                if value not in enum or value in fact.outside.get(key, frozenset()):
                    return None
                return replace(fact, inside={**fact.inside, key: fact.inside.get(key, frozenset()) | {value}})
            if value in fact.inside.get(key, frozenset()):
                return None
            if value not in enum:
                return fact
            return replace(fact, outside={**fact.outside, key: fact.outside.get(key, frozenset()) | {value}})
        if op in ("gt", "gte", "lt", "lte"):
            return None if positive else fact  # numbers only: never holds on this type
        return fact  # other combinations: not reasoned about, so assumed possible

    def _integer(self, key: str, target: Mapping[str, Any], op: str, value: Any, fact: _Facts) -> _Facts | None:
        low, high, excluded = fact.ints.get(key, (target["minimum"], target["maximum"], frozenset()))
        if not _is_number(value):
            return None if op != "ne" else fact
        if op == "eq":
            if value != int(value) or not low <= value <= high or value in excluded:
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
        if low > high or (high - low + 1 <= len(excluded) and all(v in excluded for v in range(low, high + 1))):
            return None
        return replace(fact, ints={**fact.ints, key: (low, high, excluded)})

    def _observed(self, ident: str, value: Any, fact: _Facts, *, positive: bool) -> _Facts | None:
        observation = self.observations.get(ident)
        if observation is None:
            return None if positive else fact
        if observation.get("type") == "choice":
            options = frozenset(observation.get("choices", {}))
        else:
            options = frozenset([True, False])
        allowed = fact.answers.get(ident, options)
        if positive:
            matching = frozenset(o for o in allowed if json_equal(o, value))
            if not matching or ident in fact.unanswered:
                return None
            return replace(fact, answers={**fact.answers, ident: matching}, answered=fact.answered | {ident})
        matching = frozenset(o for o in allowed if not json_equal(o, value))
        if not matching:
            # "not observed X" can then hold only while the observation is unanswered.
            return None if ident in fact.answered else replace(fact, unanswered=fact.unanswered | {ident})
        return replace(fact, answers={**fact.answers, ident: matching})
