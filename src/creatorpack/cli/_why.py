"""The playtest's ``?why GOAL``: why an achievement, ending or rule has not fired, in the current state.

The goal's condition is evaluated part by part on the session as it is now (the state and the
narrator's latest answers, as the runtime keeps them): the parts that do not hold are shown, down
to the comparison that fails and the value it reads, so a playtester sees what is missing.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any, Final

import orjson

from creatorpack.contract import suggest
from creatorpack.contract.conditions import AllOf, AnyOf, Compare, Condition, LiteralCond, Not, Observed, parse
from creatorpack.play.conditions import CompiledCondition, compile_condition
from creatorpack.play.engine import Engine
from creatorpack.play.model import SessionState
from creatorpack.play.state import set_paths

__all__ = ["why"]

_SYMBOLS: Final = {"eq": "=", "ne": "≠", "gt": ">", "gte": "≥", "lt": "<", "lte": "≤", "contains": "contains"}


def _json(value: Any) -> str:
    return orjson.dumps(value).decode()


def why(engine: Engine, session: SessionState, goal: str) -> list[str]:
    """Lines that say why ``goal`` (an achievement, ending or rule id) has not fired, or that it has."""
    program = engine.program
    goals = {g.id: ("achievement", g.when) for g in program.achievements}
    goals.update({g.id: ("ending", g.when) for g in program.endings})
    rules = {r.id: r for r in program.rules}
    if goal not in goals and goal not in rules:
        known = [*goals, *rules]
        guess = suggest.nearest(goal, known)
        hint = f"; did you mean {guess!r}?" if guess else f" (ids: {suggest.known(known)})"
        return [f"{goal!r} is no achievement, ending or rule of this pack{hint}"]
    answers = dict(session.answers)
    explain = _Explainer(frozenset(set_paths(program.schema)), session.state, answers)
    if goal in goals:
        kind, when = goals[goal]
        if goal in session.achievements_set or session.ending == goal:
            return [f"{kind} {goal!r} has fired ({'unlocked' if kind == 'achievement' else 'reached'})"]
        source = _tree(program.conditions[when])
        if explain.holds(source):
            later = "a turn checks it after its effects" + (
                "; an ending of higher priority (or earlier, at the same priority) may win" if kind == "ending" else ""
            )
            return [f"{kind} {goal!r}: its `when` holds now ({later})"]
        return [f"{kind} {goal!r} has not fired: its `when` does not hold now", *explain.lines(source, 1)]
    rule = rules[goal]
    if goal in session.completed:
        return [f"rule {goal!r} has completed: it is no longer active"]
    source = _tree(program.conditions[rule.when])
    if explain.holds(source):
        return [f"rule {goal!r}: its `when` holds now, so it is active (its effects apply on each turn)"]
    return [f"rule {goal!r} is not active: its `when` does not hold now", *explain.lines(source, 1)]


def _tree(compiled: CompiledCondition) -> Condition:
    """The compiled condition's tree (parsed from its JSON when it was compiled without one)."""
    return compiled.tree if compiled.tree is not None else parse(compiled.source)


class _Explainer:
    """Evaluates a condition's parts on one state and says which do not hold."""

    def __init__(self, sets: frozenset[str], state: Mapping[str, Any], answers: Mapping[str, Any]) -> None:
        self.sets = sets
        self.state = state
        self.answers = answers

    def holds(self, node: Condition) -> bool:
        return bool(compile_condition(node, set_paths=self.sets).evaluate(self.state, self.answers))

    def lines(self, node: Condition, depth: int) -> list[str]:
        return list(self._lines(node, depth, want=True))

    def _lines(self, node: Condition, depth: int, *, want: bool) -> Iterator[str]:
        pad = "  " * depth
        match node:
            case AllOf(conditions=children) | AnyOf(conditions=children):
                failing = [c for c in children if self.holds(c) != want]
                if isinstance(node, AllOf) == want:
                    yield f"{pad}{'all' if want else 'none'} of {len(children)} parts must hold; these do not:"
                else:
                    yield f"{pad}{'one' if want else 'not all'} of {len(children)} parts must hold; none does:"
                for child in failing:
                    yield from self._lines(child, depth + 1, want=want)
            case Not(condition=inner):
                yield f"{pad}not: the part inside {'holds' if want else 'does not hold'}:"
                yield from self._lines(inner, depth + 1, want=not want)
            case Observed(id=ident, value=value):
                current = self.answers.get(ident) if ident in self.answers else "unanswered"
                yield f"{pad}observation {ident!r} answered {_json(value)}: the latest answer is {_json(current)}"
            case LiteralCond(value=value):
                yield f"{pad}literal {_json(value)}"
            case Compare(op=op, path=path, value=value):
                shown = "is absent" if (held := _at(self.state, path)) is _ABSENT else f"is {_json(held)}"
                yield f"{pad}`{path}` {_SYMBOLS[op]} {_json(value)}: `{path}` {shown}"


_ABSENT: Final = object()


def _at(state: Any, path: Any) -> Any:
    """The state's value at JSON Pointer ``path`` (``_ABSENT`` when there is none)."""
    if not isinstance(path, str):
        return _ABSENT
    node = state
    for token in path.split("/")[1:] if path else []:
        key = token.replace("~1", "/").replace("~0", "~")
        if not isinstance(node, Mapping) or key not in node:
            return _ABSENT
        node = node[key]
    if isinstance(node, frozenset | set | tuple):
        return sorted(node) if isinstance(node, frozenset | set) else list(node)
    return node
