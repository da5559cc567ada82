"""Typed runtime state: check a state against its state schema, and apply rule effects.

Every function is pure: a state goes in, a new state (sharing unchanged parts) comes out.
State schemas are the contract's ObjectSchema tree (``$.runtime.state.schema``): integers with
a minimum and maximum, booleans, sets of Ids from an enum, nested objects, and EnumSchemas
(whose fields the contract does not show: a ``enum`` list is honoured if present).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final, Literal, TypeAlias, TypeGuard, get_args

from creatorpack._json import described, parse_pointer, pointer, whole_number
from creatorpack.contract import suggest
from creatorpack.errors import EffectError
from creatorpack.play.conditions import State, json_equal

__all__ = [
    "EFFECT_OPS",
    "CompiledEffect",
    "EffectError",
    "EffectOp",
    "State",
    "StateProblem",
    "apply_effect",
    "check_state",
    "schema_at",
    "set_paths",
    "whole_numbers",
]

EffectOp: TypeAlias = Literal["increment", "add", "remove"]
"""The effect ops the runtime knows (a closed set: any other op is always rejected)."""

EFFECT_OPS: Final[tuple[EffectOp, ...]] = get_args(EffectOp)
"""The effect ops the runtime knows, in the order messages list them."""


def _is_op(op: object) -> TypeGuard[EffectOp]:
    return op in EFFECT_OPS


@dataclass(frozen=True, slots=True)
class StateProblem:
    """A place where a state does not fit its schema."""

    pointer: str
    message: str
    member: bool = False
    """Whether the member's name is the problem (one the schema does not have), not its value."""


def check_state(schema: Mapping[str, Any], state: Any, at: tuple[str, ...] = ()) -> Iterator[StateProblem]:
    """Yield every place where ``state`` does not fit ``schema``."""
    where = pointer(at) or "/"
    kind = schema.get("type")
    if kind == "object":
        if not isinstance(state, Mapping):
            yield StateProblem(where, f"expected an object, got {described(state)}")
            return
        properties: Mapping[str, Any] = schema.get("properties", {})
        missing = [name for name in schema.get("required", ()) if name not in state]
        unknown = [name for name in state if name not in properties]
        misspelt = {name: guess for name in unknown if (guess := suggest.nearest(name, missing)) is not None}
        for name in missing:
            if name not in misspelt.values():
                yield StateProblem(where, f"missing required member {name!r}")
        for name, value in state.items():
            if name in misspelt:
                yield StateProblem(
                    pointer((*at, name)),
                    f"{name!r} is not in the state schema; did you mean {misspelt[name]!r}?",
                    member=True,
                )
            elif name not in properties:
                hint = suggest.nearest(name, [p for p in properties if p not in state])
                tail = f"; did you mean {hint!r}?" if hint is not None else ""
                yield StateProblem(pointer((*at, name)), f"{name!r} is not in the state schema{tail}", member=True)
            else:
                yield from check_state(properties[name], value, (*at, name))
    elif kind == "integer":
        state = whole_number(state) if isinstance(state, float) else state  # 3.0 is the integer 3
        if not isinstance(state, int) or isinstance(state, bool):
            yield StateProblem(where, f"expected an integer, got {described(state)}")
        elif not schema["minimum"] <= state <= schema["maximum"]:
            yield StateProblem(where, f"{state} is outside {schema['minimum']}..{schema['maximum']}")
    elif kind == "boolean":
        if not isinstance(state, bool):
            yield StateProblem(where, f"expected a boolean, got {described(state)}")
    elif kind == "array":
        allowed = schema.get("items", {}).get("enum", [])
        if not isinstance(state, list):
            yield StateProblem(where, f"expected a set (array), got {described(state)}")
            return
        for index, item in enumerate(state):
            if item not in allowed or not isinstance(item, str):
                names = [a for a in allowed if isinstance(a, str)]
                hint = suggest.nearest(item, names) if isinstance(item, str) else None
                tail = f" (did you mean {hint!r}?)" if hint is not None else ""
                yield StateProblem(pointer((*at, str(index))), f"{item!r} is not one of {allowed}{tail}")
        if len({repr(i) for i in state}) != len(state):
            yield StateProblem(where, "a set must not repeat a member")
    elif isinstance(schema.get("enum"), list) and not any(json_equal(state, o) for o in schema["enum"]):
        yield StateProblem(where, f"{state!r} is not one of {schema['enum']}")


def whole_numbers(schema: Mapping[str, Any], state: Any) -> Any:
    """``state`` with each integer the schema has spelt as a float (``3.0``) made an int, as the runtime keeps it.

    The contract's integers include ``3.0``; the runtime adds to ints only, and writes ``3``, not ``3.0``.
    """
    kind = schema.get("type")
    if kind == "integer" and isinstance(state, float):
        whole = whole_number(state)
        return state if whole is None else whole
    if kind == "object" and isinstance(state, Mapping):
        properties: Mapping[str, Any] = schema.get("properties", {})
        return {k: whole_numbers(properties[k], v) if k in properties else v for k, v in state.items()}
    return state


def schema_at(schema: Mapping[str, Any], tokens: Sequence[str]) -> Mapping[str, Any] | None:
    """The state schema of the value at ``tokens``, or ``None`` if the schema has no such path."""
    node: Mapping[str, Any] = schema
    for token in tokens:
        if node.get("type") != "object":
            return None
        child = node.get("properties", {}).get(token)
        if not isinstance(child, Mapping):
            return None
        node = child
    return node


def set_paths(schema: Mapping[str, Any], at: tuple[str, ...] = ()) -> frozenset[str]:
    """The JSON Pointers of every set (``type: array``) in a state schema."""
    found: set[str] = set()
    for name, child in schema.get("properties", {}).items():
        if not isinstance(child, Mapping):
            continue
        if child.get("type") == "array":
            found.add(pointer((*at, name)))
        elif child.get("type") == "object":
            found |= set_paths(child, (*at, name))
    return frozenset(found)


def _replace(state: Any, tokens: Sequence[str], value: Any) -> Any:
    if not tokens:
        return value
    head, rest = tokens[0], tokens[1:]
    updated = dict(state)
    updated[head] = _replace(state[head], rest, value)
    return updated


class CompiledEffect:
    """One effect, resolved against the state schema once; :meth:`apply` runs it many times."""

    __slots__ = ("allowed", "by", "error", "high", "key", "low", "op", "path", "reject", "tokens", "value")

    def __init__(self, schema: Mapping[str, Any], effect: Mapping[str, Any]) -> None:
        raw = effect.get("op")
        self.op: EffectOp | None = raw if _is_op(raw) else None
        self.path = effect.get("path")
        tokens = parse_pointer(self.path) if isinstance(self.path, str) else None
        self.tokens: tuple[str, ...] = tokens or ()
        self.key = self.tokens[0] if self.tokens else ""
        self.error: str | None = None
        self.by: int = 0
        self.low = self.high = 0
        self.reject = False
        self.value: Any = effect.get("value")
        self.allowed: list[Any] = []
        target = schema_at(schema, self.tokens) if tokens else None
        if not tokens:
            self.error = f"{self.path!r} is not a JSON Pointer to a state member"
        elif target is None:
            self.error = f"the state schema has no member at {self.path}"
        elif self.op == "increment":
            if target.get("type") != "integer":
                self.error = f"increment needs an integer at {self.path}"
                return
            self.by = effect.get("by", 0)
            self.low, self.high = target["minimum"], target["maximum"]
            limit = effect.get("limit")
            if limit is not None and self.by > 0:
                self.high = max(min(self.high, limit), self.low)  # a limit below the schema: its minimum
            elif limit is not None and self.by < 0:
                self.low = min(max(self.low, limit), self.high)  # a limit above the schema: its maximum
            self.reject = effect.get("overflow", "clamp") == "reject"
        elif self.op in ("add", "remove"):
            if target.get("type") != "array":
                self.error = f"{self.op} needs a set at {self.path}"
                return
            self.allowed = list(target.get("items", {}).get("enum", []))
            if self.value not in self.allowed:
                self.error = f"{self.value!r} is not one of the set's values {self.allowed} at {self.path}"
        else:
            self.error = f"effect op {raw!r} is not one this runtime knows ({', '.join(EFFECT_OPS)})"

    def apply(self, working: dict[str, Any]) -> None:
        """Apply to ``working`` (a top-level copy of the state, changed in place), or raise EffectError."""
        if self.error is not None:
            raise EffectError(self.error)
        top = len(self.tokens) == 1 and self.key in working
        current = working[self.key] if top else _current(working, self.tokens)
        if self.op == "increment":
            if type(current) is not int:
                raise EffectError(f"increment needs an integer at {self.path}")
            result = current + self.by
            if not self.low <= result <= self.high:
                if self.reject:
                    sign = "+" if self.by >= 0 else "-"
                    raise EffectError(f"{current} {sign} {abs(self.by)} leaves {self.low}..{self.high} at {self.path}")
                result = min(max(result, self.low), self.high)
            new: Any = result
        else:
            if type(current) is not list:
                raise EffectError(f"{self.op} needs a set at {self.path}")
            if self.op == "add":
                if self.value in current:
                    return
                new = [m for m in self.allowed if m in current or m == self.value]
            else:
                if self.value not in current:
                    return
                new = [m for m in current if m != self.value]
        if len(self.tokens) == 1:
            working[self.key] = new
        else:
            working[self.key] = _replace(working[self.key], self.tokens[1:], new)


def _current(state: Any, tokens: Sequence[str]) -> Any:
    node = state
    for token in tokens:
        if not isinstance(node, Mapping) or token not in node:
            raise EffectError(f"the state has no value at {pointer(tokens)}")
        node = node[token]
    return node


def apply_effect(schema: Mapping[str, Any], state: State, effect: Mapping[str, Any]) -> State:
    """Apply one effect and return the new state, or raise :class:`EffectError`.

    ``increment`` adds ``by``; the result is bounded by ``limit`` (an upper bound when ``by`` is
    positive, a lower bound when negative) and always by the schema's minimum and maximum;
    ``overflow: clamp`` (the default) clamps, ``reject`` rejects. ``add``/``remove`` put an Id
    into, or take it out of, a set (kept in the enum's order); an Id outside the enum is rejected.
    """
    working = dict(state)
    CompiledEffect(schema, effect).apply(working)
    return working
