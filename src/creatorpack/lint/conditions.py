"""Conditions and effects against the state schema: paths, types, ranges, refs, satisfiability."""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping, Sequence
from typing import Any, Final

from creatorpack._json import JsonPath, pointer, show
from creatorpack.contract.conditions import (
    ORDER_OPS,
    Compare,
    Condition,
    LiteralCond,
    Observed,
    leaves,
)
from creatorpack.contract.findings import RawFinding, Target
from creatorpack.lint._suggest import known_list
from creatorpack.lint.index import PackIndex
from creatorpack.lint.reach._sat import Checker
from creatorpack.lint.rules import Raw
from creatorpack.play.conditions import json_equal, parse_pointer, sub_condition
from creatorpack.play.state import EFFECT_OPS, check_state, schema_at

__all__ = [
    "EFFECT_OPS",
    "LEAF_MISTAKES",
    "check_condition_refs",
    "check_conditions",
    "check_effects",
    "check_initial_states",
    "check_satisfiable",
    "check_state_and_conditions",
    "effect_rules",
    "one_per_mistake",
    "state_paths",
]


def state_paths(schema: Mapping[str, Any], at: str = "") -> list[str]:
    """Every JSON Pointer the state schema has, nested members included, in document order."""
    found: list[str] = []
    properties = schema.get("properties") if schema.get("type") == "object" else None
    for name, child in (properties if isinstance(properties, Mapping) else {}).items():
        here = at + pointer((str(name),))
        found.append(here)
        if isinstance(child, Mapping):
            found.extend(state_paths(child, here))
    return found


def check_state_and_conditions(index: PackIndex) -> Iterator[Raw]:
    """Paths exist, comparisons and effects fit their types, initial states fit the schema."""
    yield from check_initial_states(index)
    yield from check_conditions(index)
    yield from check_effects(index)
    yield from check_condition_refs(index)


def check_initial_states(index: PackIndex) -> Iterator[Raw]:
    """Each runtime entry's initial_state fits the state schema."""
    for number, entry in index.items("runtime", "entries"):
        initial = entry.get("initial_state", {})
        for problem in check_state(index.schema, initial):
            tokens = parse_pointer(problem.pointer if problem.pointer != "/" else "") or ()
            yield RawFinding(
                ("runtime", "entries", number, "initial_state", *_indexed(initial, tokens)),
                "initial-state-mismatch",
                problem.message,
                Target.KEY if problem.member else Target.VALUE,
            )


def _indexed(value: Any, tokens: Sequence[str]) -> JsonPath:
    """A pointer's tokens as a path into ``value``: an array's index as an int, so that it can be located."""
    path: list[str | int] = []
    for token in tokens:
        if isinstance(value, list) and token.isdigit():
            path.append(int(token))
            value = value[int(token)] if int(token) < len(value) else None
        else:
            path.append(token)
            value = value.get(token) if isinstance(value, Mapping) else None
    return tuple(path)


def check_conditions(index: PackIndex) -> Iterator[Raw]:
    """Every comparison and observed condition fits the state schema and the observations."""
    for _, tree in index.trees:
        for leaf in leaves(tree):
            match leaf:
                case Observed():
                    yield from _check_observed(index, leaf)
                case Compare():
                    yield from _check_comparison(index, leaf)
                case LiteralCond():
                    pass


class _Fold:
    """One finding for the effects on a state member of a type the runtime does not know, not one per effect.

    A typo in the state schema (``"integr"``) has every effect on the member rejected; the first
    effect's finding counts the others, so that the fix (in the schema) is one finding away.
    """

    def __init__(self, index: PackIndex) -> None:
        self._index = index
        self._first: dict[str, RawFinding] = {}
        self._more: dict[str, int] = {}

    def take(self, raw: Any, findings: Iterator[Raw]) -> Iterator[Raw]:
        """Pass ``findings`` on, but keep back the effect-type-mismatch of such a member (the first is shown)."""
        for finding in findings:
            if finding.code != "effect-type-mismatch" or not self._unknown_type(raw):
                yield finding
            elif str(raw) in self._first:
                self._more[str(raw)] = self._more.get(str(raw), 0) + 1
            else:
                self._first[str(raw)] = finding

    def rest(self) -> Iterator[Raw]:
        """The kept-back first findings, each counting the others."""
        for raw, first in self._first.items():
            more = self._more.get(raw, 0)
            if not more:
                yield first
                continue
            uses = "effects on" if more > 1 else "effect on"
            fails = "fail" if more > 1 else "fails"
            tail = f"; {more} more {uses} {raw} {fails} the same way until its state type is one the runtime knows"
            yield RawFinding(first.path, first.code, first.message + tail, first.target, first.occurrence)

    def _unknown_type(self, raw: Any) -> bool:
        tokens = parse_pointer(raw) if isinstance(raw, str) else None
        target = schema_at(self._index.schema, tokens) if tokens else None
        return target is not None and target.get("type") not in (*_KNOWN_KINDS, None)


def _check_observed(index: PackIndex, leaf: Observed) -> Iterator[Raw]:
    path, ident, value = leaf.at, leaf.id, leaf.value
    observation = index.observations.get(ident)
    if observation is None:
        hint = index.suggester.suggest(ident, index.observations)
        known = known_list(index.observations)
        yield RawFinding(
            (*path, "id"), "unknown-reference", f"no observation has the id {ident!r} (known: {known}){hint}"
        )
    elif observation.get("type") == "boolean" and not isinstance(value, bool):
        yield RawFinding(
            (*path, "value"),
            "observed-value-mismatch",
            f"observation {ident!r} is yes/no: compare with true or false, not {show(value)}",
        )
    elif observation.get("type") == "choice" and value not in observation.get("choices", {}):
        choices = observation.get("choices", {})
        hint = index.suggester.suggest(value, choices, loose=True) if isinstance(value, str) else ""
        keys = ", ".join(repr(k) for k in choices)
        yield RawFinding(
            (*path, "value"),
            "observed-value-mismatch",
            f"{show(value)} is not a choice of {ident!r}; use one of {keys}{hint}",
        )


_KNOWN_KINDS: Final = {"integer": "an integer", "boolean": "a boolean", "array": "a set", "object": "an object"}


def _kind(kind: object) -> str:
    """A state schema type as messages name it: ``a boolean``; ``of type 'set', which the runtime does not know``."""
    if kind is None:
        return "an enum"
    if isinstance(kind, str) and kind in _KNOWN_KINDS:
        return _KNOWN_KINDS[kind]
    return f"of type {show(kind)}, which the runtime does not know (unknown-state-type)"


_NOT_POINTER: Final = re.compile(r"^(?:#|\$\.?|state\.)")


def _pointer_fix(index: PackIndex, raw: str) -> str:
    """How to write ``raw`` as the pointer it most likely means, checked against the state's members.

    A URI fragment (``#/a/b``), a JSONPath (``$.a.b``) or a dotted path (``a.b``) become ``/a/b``;
    when no member is there, the member nearest to that is suggested instead.
    """
    bare = _NOT_POINTER.sub("", raw.strip())
    names = [name for name in re.split(r"[./\[\]'\"]+", bare) if name]
    known = state_paths(index.schema)
    if len(names) > 1 and names[0] == "state" and pointer(tuple(names)) not in known:
        names = names[1:]  # "$.state.trust": the state is where every path starts
    guess = pointer(tuple(names)) if names else f"/{raw}"
    if guess in known:
        return f"; write it as {show(guess)}"
    return index.suggester.suggest(guess, known) or f"; write it as {show(guess)}"


def _resolve(index: PackIndex, path: JsonPath, raw: Any, effect: bool) -> Raw | Mapping[str, Any]:  # noqa: FBT001
    """The state schema at a condition's or effect's path, or the finding that it has none."""
    tokens = parse_pointer(raw) if isinstance(raw, str) else None
    if tokens is None or (effect and not tokens):
        fix = _pointer_fix(index, raw) if isinstance(raw, str) and raw else ""
        what = "a JSON Pointer to a state member" if effect else "a JSON Pointer"
        return RawFinding((*path, "path"), "path-not-pointer", f"path {show(raw)} is not {what}{fix}")
    target = schema_at(index.schema, tokens)
    if target is not None:
        return target
    for depth in range(len(tokens) - 1, 0, -1):  # a parent whose type the runtime does not know
        parent = schema_at(index.schema, tokens[:depth])
        if parent is not None and parent.get("type") not in (*_KNOWN_KINDS, None):
            if not effect:  # a condition reads the value itself, whatever its type
                return {}
            return RawFinding(
                (*path, "path"),
                "unknown-state-path",
                f"{pointer(tokens[:depth])} is {_kind(parent.get('type'))}, so the runtime sees no {raw} in it"
                + ("; the effect is always rejected" if effect else ""),
            )
    known = state_paths(index.schema)
    hint = index.suggester.suggest(str(raw), known)
    tail = "; the effect is always rejected" if effect else ""
    return RawFinding(
        (*path, "path"), "unknown-state-path", f"the state schema has no {raw} (known: {known_list(known)}){tail}{hint}"
    )


def _check_comparison(index: PackIndex, leaf: Compare) -> Iterator[Raw]:
    path, op, value, raw = leaf.at, leaf.op, leaf.value, leaf.path
    target = _resolve(index, path, raw, effect=False)
    if isinstance(target, RawFinding):
        yield target
        return
    kind = target.get("type")
    if not (isinstance(kind, str) and kind in _KNOWN_KINDS) and not isinstance(target.get("enum"), list):
        return  # a type the runtime does not know (its own warning): the value itself is compared
    if op in ORDER_OPS and kind is None and any(_number(option) for option in target["enum"]):
        pass  # an enum with numbers: ordered by its value
    elif op in ORDER_OPS and kind != "integer":
        yield RawFinding(
            (*path, "op"),
            "comparison-type-mismatch",
            f"{op} compares numbers, but {raw} is {_kind(kind)}: it never holds",
        )
    elif op in ORDER_OPS and (not isinstance(value, int | float) or isinstance(value, bool)):
        yield RawFinding(
            (*path, "value"), "comparison-type-mismatch", f"{op} needs a number, not {show(value)}: it never holds"
        )
    elif op == "contains" and kind not in ("array", None):
        yield RawFinding(
            (*path, "op"),
            "comparison-type-mismatch",
            f"contains needs a set, but {raw} is {_kind(kind)}: it never holds",
        )
    elif op == "contains" and kind == "array" and value not in target.get("items", {}).get("enum", []):
        enum = target["items"]["enum"]
        hint = index.suggester.suggest(value, enum, loose=True) if isinstance(value, str) else ""
        yield RawFinding(
            (*path, "value"),
            "value-out-of-range",
            f"{show(value)} is not one of the set's values {enum}, so it never holds{hint}",
        )
    elif op in ("eq", "ne"):
        yield from _check_equality(index, path, str(raw), target, value, op)


def _number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _check_equality(
    index: PackIndex, path: JsonPath, raw: str, target: Mapping[str, Any], value: Any, op: str
) -> Iterator[Raw]:
    kind = target.get("type")
    where = (*path, "value")
    if kind == "integer":
        if not isinstance(value, int | float) or isinstance(value, bool):
            always = "never" if op == "eq" else "always"
            yield RawFinding(
                where, "comparison-type-mismatch", f"{raw} is an integer; {op} {show(value)} is {always} true"
            )
        elif not target["minimum"] <= value <= target["maximum"]:
            bounds = f"{target['minimum']}..{target['maximum']}"
            holds = "never" if op == "eq" else "always"
            message = f"{value} is outside {raw}'s range {bounds}, so {op} {value} {holds} holds"
            yield RawFinding(where, "value-out-of-range", message)
    elif kind == "boolean" and not isinstance(value, bool):
        yield RawFinding(
            where, "comparison-type-mismatch", f"{raw} is a boolean; compare it with true or false, not {show(value)}"
        )
    elif kind == "array":
        enum = target.get("items", {}).get("enum", [])
        if not isinstance(value, list):
            yield RawFinding(
                where, "comparison-type-mismatch", f"{raw} is a set; compare it with an array of its values"
            )
        elif any(v not in enum for v in value):
            yield RawFinding(where, "value-out-of-range", f"{show(value)} has values outside the set's enum {enum}")
    elif kind == "object" and not isinstance(value, Mapping):
        yield RawFinding(where, "comparison-type-mismatch", f"{raw} is an object; {show(value)} never equals it")
    elif (
        kind not in ("integer", "boolean", "array", "object")
        and isinstance(target.get("enum"), list)
        and not any(json_equal(value, option) for option in target["enum"])
    ):
        names = [option for option in target["enum"] if isinstance(option, str)]
        hint = index.suggester.suggest(value, names, loose=True) if isinstance(value, str) else ""
        message = f"{show(value)} is not one of {raw}'s values {target['enum']}{hint}"
        yield RawFinding(where, "value-out-of-range", message)


def effect_rules(index: PackIndex) -> Iterator[tuple[int, Mapping[str, Any]]]:
    """The runtime rules that the runtime plays as effect rules (any kind but guidance)."""
    for number, rule in index.items("runtime", "rules"):
        if rule.get("kind") != "guidance":
            yield number, rule


def check_effects(index: PackIndex) -> Iterator[Raw]:
    """Every effect of a known op has a path the state schema has, of the type the op needs."""
    fold = _Fold(index)
    for number, rule in effect_rules(index):
        effects = rule.get("effects")
        for position, effect in enumerate(effects if isinstance(effects, list) else []):
            if isinstance(effect, Mapping) and effect.get("op") in EFFECT_OPS:
                where = ("runtime", "rules", number, "effects", position)
                yield from fold.take(effect.get("path"), _check_effect(index, where, effect))
    yield from fold.rest()


def _check_effect(index: PackIndex, path: JsonPath, effect: Mapping[str, Any]) -> Iterator[Raw]:
    op, raw = effect.get("op"), effect.get("path")
    target = _resolve(index, path, raw, effect=True)
    if isinstance(target, RawFinding):
        yield target
        return
    kind = target.get("type")
    if op == "increment" and kind != "integer":
        yield RawFinding(
            (*path, "op"), "effect-type-mismatch", f"increment needs an integer, but {raw} is {_kind(kind)}"
        )
    elif op == "increment" and effect.get("by", 0) == 0 and not isinstance(effect.get("by"), bool):
        where = (*path, "by") if "by" in effect else path
        message = f"an increment by 0 never changes {raw}: give it a 'by' other than 0"
        yield RawFinding(where, "increment-by-zero", message)
    elif op == "increment":
        yield from _check_limit(path, raw, effect, target)
    elif op in ("add", "remove") and kind != "array":
        yield RawFinding((*path, "op"), "effect-type-mismatch", f"{op} needs a set, but {raw} is {_kind(kind)}")
    elif op in ("add", "remove") and effect.get("value") not in target.get("items", {}).get("enum", []):
        enum = target.get("items", {}).get("enum", [])
        value = effect.get("value")
        hint = index.suggester.suggest(value, enum, loose=True) if isinstance(value, str) else ""
        yield RawFinding(
            (*path, "value"),
            "effect-type-mismatch",
            f"{show(value)} is not one of {raw}'s values {enum}: always rejected{hint}",
        )


def _check_limit(path: JsonPath, raw: Any, effect: Mapping[str, Any], target: Mapping[str, Any]) -> Iterator[Raw]:
    """A limit beyond the schema's range on its far side: the increment can only pin or be rejected."""
    numbers = [effect.get("by"), effect.get("limit"), target.get("minimum"), target.get("maximum")]
    integers = [n for n in numbers if isinstance(n, int) and not isinstance(n, bool)]
    if len(integers) != len(numbers):
        return
    by, limit, low, high = integers
    if by > 0 and limit < low:
        side, end = f"below {raw}'s minimum {low}", low
    elif by < 0 and limit > high:
        side, end = f"above {raw}'s maximum {high}", high
    else:
        return
    does = "is always rejected" if effect.get("overflow") == "reject" else f"sets {raw} to {end} whenever it applies"
    yield RawFinding(
        (*path, "limit"),
        "limit-out-of-range",
        f"limit {limit} is {side}, and the schema wins: this increment by {by:+d} {does}",
    )


def check_condition_refs(index: PackIndex) -> Iterator[Raw]:
    """Each guidance requirement's condition_ref points at a sub-condition of its item's when."""
    for name in ("achievements", "endings"):
        for number, item in index.items("progression", name):
            guidance, when = item.get("guidance"), item.get("when")
            listed = guidance.get("requirements") if isinstance(guidance, Mapping) else None
            for position, requirement in enumerate(listed if isinstance(listed, list) else []):
                ref = requirement.get("condition_ref") if isinstance(requirement, Mapping) else None
                if isinstance(ref, str) and isinstance(when, Mapping) and sub_condition(when, ref) is None:
                    yield RawFinding(
                        ("progression", name, number, "guidance", "requirements", position, "condition_ref"),
                        "unresolved-condition-ref",
                        f"condition_ref {ref!r} points at no sub-condition of this item's when; "
                        "use '' or '/conditions/<i>' steps through all/any groups",
                    )


def check_satisfiable(index: PackIndex) -> Iterator[Raw]:
    """Conditions that can never hold, by interval and set reasoning; the finding says where and why."""
    checker = Checker(index.schema, index.observations)
    for path, tree in index.trees:
        if not checker.may_hold(tree):
            where, reason = checker.explain(tree)
            if checker.unresolved or _reads_unknown_observation(index, tree):
                continue  # an unknown path or observation id is its own finding (unknown-state-path, -reference)
            if where == path:
                message = f"{path[-1]} can never hold: {reason}; fix or remove it"
            else:
                message = f"this part of the {path[-1]} can never hold ({reason}), so neither can the {path[-1]}"
            yield RawFinding(where, "never-holds", message)


LEAF_MISTAKES: Final = frozenset(["comparison-type-mismatch", "value-out-of-range", "observed-value-mismatch"])
"""Findings at a comparison's member that say why it never holds, so that the never-holds of that comparison
would only repeat them: lint reports the one that fixes it (see :func:`one_per_mistake`)."""


def one_per_mistake(raw: Sequence[Raw]) -> list[Raw]:
    """``raw`` without each never-holds whose comparison has a finding of :data:`LEAF_MISTAKES` of its own.

    Run after ignored codes are dropped: when that finding is ignored, the never-holds stays, so an
    impossible condition is never left without an error.
    """
    leaves = {finding.path[:-1] for finding in raw if finding.code in LEAF_MISTAKES and finding.path}
    return [f for f in raw if not (f.code == "never-holds" and f.path in leaves)]


def _reads_unknown_observation(index: PackIndex, condition: Condition) -> bool:
    """Whether an ``observed`` part of ``condition`` names an observation the pack does not have."""
    return any(isinstance(leaf, Observed) and leaf.id not in index.observations for leaf in leaves(condition))
