"""The condition grammar of contract 0.3 to 0.5: compile a condition once, evaluate it many times.

Grammar (a condition is a JSON object discriminated by ``op``)::

    condition  := literal | comparison | observed | group | not
    literal    := {"op": "literal", "value": <boolean>}
    comparison := {"op": "eq"|"ne"|"gt"|"gte"|"lt"|"lte"|"contains", "path": <pointer>, "value": <json>}
    observed   := {"op": "observed", "id": <Id>, "value": <boolean or choice key>}
    group      := {"op": "all"|"any", "conditions": [<condition>, ...]}     (at least one)
    not        := {"op": "not", "condition": <condition>}

Semantics (see ``docs/runtime.md``): a ``path`` is a JSON Pointer into the state; a path that
does not resolve makes every comparison false (``ne`` too). ``eq``/``ne`` are deep JSON equality
(``true`` is not ``1``; sets compare without order); ``gt``/``gte``/``lt``/``lte`` hold only
between numbers; ``contains`` is membership in an array or set, or a substring of a string;
``observed`` holds when the narrator's latest answer to that observation equals ``value``;
``all``/``any`` short-circuit.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final, Literal, TypeAlias, TypeGuard, get_args

from creatorpack._json import parse_pointer
from creatorpack.errors import ConditionError

__all__ = [
    "COMPARISON_OPS",
    "CONDITION_OPS",
    "MISSING",
    "ORDER_OPS",
    "Answers",
    "ComparisonOp",
    "CompiledCondition",
    "ConditionError",
    "ConditionOp",
    "Evaluator",
    "OrderOp",
    "State",
    "compile_condition",
    "json_equal",
    "parse_pointer",
    "resolve",
    "sub_condition",
]

State: TypeAlias = Mapping[str, Any]
"""A runtime state: the values of the state schema's members."""
Answers: TypeAlias = Mapping[str, Any]
"""The narrator's latest answer to each observation, by observation id."""
Evaluator: TypeAlias = Callable[[State, Answers], bool]

OrderOp: TypeAlias = Literal["gt", "gte", "lt", "lte"]
"""The comparisons that hold only between numbers."""
ComparisonOp: TypeAlias = Literal["eq", "ne", OrderOp, "contains"]
"""The ops that compare the value at a state ``path`` with ``value``."""
ConditionOp: TypeAlias = Literal["literal", ComparisonOp, "observed", "all", "any", "not"]
"""Every condition op of the grammar (a closed set: anything else is no condition)."""

ORDER_OPS: Final[tuple[OrderOp, ...]] = get_args(OrderOp)
"""The :data:`OrderOp` values."""
COMPARISON_OPS: Final[tuple[ComparisonOp, ...]] = get_args(ComparisonOp)
"""The :data:`ComparisonOp` values."""
CONDITION_OPS: Final[frozenset[ConditionOp]] = frozenset(get_args(ConditionOp))
"""The :data:`ConditionOp` values."""


class _Missing:
    __slots__ = ()

    def __repr__(self) -> str:
        return "MISSING"


MISSING: Final = _Missing()
"""What :func:`resolve` returns for a path that does not resolve."""


def resolve(state: Any, tokens: Sequence[str]) -> Any:
    """The value at ``tokens`` in ``state``, or :data:`MISSING`."""
    node = state
    for token in tokens:
        if isinstance(node, Mapping):
            if token not in node:
                return MISSING
            node = node[token]
        elif isinstance(node, list):
            if not token.isdigit() or (len(token) > 1 and token[0] == "0") or int(token) >= len(node):
                return MISSING
            node = node[int(token)]
        else:
            return MISSING
    return node


def json_equal(left: Any, right: Any) -> bool:
    """Deep JSON equality: booleans are not numbers, ``1 == 1.0``, objects ignore key order."""
    if isinstance(left, bool) or isinstance(right, bool):
        return isinstance(left, bool) and isinstance(right, bool) and left is right
    if isinstance(left, int | float) and isinstance(right, int | float):
        return left == right
    if isinstance(left, str) or isinstance(right, str):
        return isinstance(left, str) and isinstance(right, str) and left == right
    if left is None or right is None:
        return left is right
    if isinstance(left, list) and isinstance(right, list):
        return len(left) == len(right) and all(json_equal(a, b) for a, b in zip(left, right, strict=True))
    if isinstance(left, Mapping) and isinstance(right, Mapping):
        return left.keys() == right.keys() and all(json_equal(left[k], right[k]) for k in left)
    return False


def _set_equal(left: Any, right: Any) -> bool:
    if not (isinstance(left, list) and isinstance(right, list)):
        return json_equal(left, right)
    return all(any(json_equal(a, b) for b in right) for a in left) and all(
        any(json_equal(a, b) for a in left) for b in right
    )


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


@dataclass(frozen=True, slots=True)
class CompiledCondition:
    """A compiled condition: call it with ``(state, answers)``.

    ``state_keys`` are the top-level state members it reads and ``observations`` the
    observation ids it reads: its value can change only when one of them changes (or, when it
    compares the whole state, ``whole_state``, when anything in the state changes).
    """

    source: Mapping[str, Any]
    evaluate: Evaluator
    state_keys: frozenset[str]
    observations: frozenset[str]
    whole_state: bool = False  # a comparison on path "" reads the whole state: any change may flip it

    def __call__(self, state: State, answers: Answers) -> bool:
        """Evaluate on a state and the narrator's latest answers."""
        return self.evaluate(state, answers)


def compile_condition(
    condition: Mapping[str, Any], *, set_paths: frozenset[str] = frozenset(), generate: bool = True
) -> CompiledCondition:
    """Compile a contract-valid condition into a Python function of ``(state, answers)``.

    The condition becomes one Python expression (values are embedded with ``repr`` or passed
    as constants, never as code), which evaluates several times faster than nested closures;
    a condition too deep for Python's parser falls back to closures with the same semantics.
    ``set_paths`` names the state paths (JSON Pointers) that hold sets, so that ``eq``/``ne``
    compare them without regard to order. ``generate=False`` keeps the closures (for testing
    that both agree).
    """
    state_keys: set[str] = set()
    observations: set[str] = set()
    if generate:
        try:
            constants: list[Any] = []
            expression = _expression(condition, set_paths, constants, (state_keys, observations))
            namespace = {**_RUNTIME, "_c": constants}
            generated = eval(f"lambda s, a: bool({expression})", namespace)  # noqa: S307 - code built from repr()s only
            return CompiledCondition(condition, generated, frozenset(state_keys), frozenset(observations))
        except (SyntaxError, RecursionError, MemoryError, ConditionError):
            state_keys.clear()  # the closures read the condition again (and raise what is no condition)
            observations.clear()
    evaluate = _compile(condition, set_paths, state_keys, observations)
    whole = any(atom.get("path") == "" for atom in _comparisons(condition))
    return CompiledCondition(condition, evaluate, frozenset(state_keys), frozenset(observations), whole)


def _comparisons(node: Any) -> Iterator[Mapping[str, Any]]:
    """The comparisons in a condition (one :func:`_compile` accepted)."""
    op = node.get("op")
    if op in ("all", "any"):
        for child in node.get("conditions", ()):
            yield from _comparisons(child)
    elif op == "not":
        yield from _comparisons(node.get("condition"))
    elif op in COMPARISON_OPS:
        yield node


def _contains(actual: Any, expected: Any) -> bool:
    if isinstance(actual, list):
        return any(json_equal(item, expected) for item in actual)
    if isinstance(actual, str):
        return isinstance(expected, str) and expected in actual
    return False


def _equal(actual: Any, expected: Any) -> bool:
    return actual is not MISSING and json_equal(actual, expected)


def _set_equal_present(actual: Any, expected: Any) -> bool:
    return actual is not MISSING and _set_equal(actual, expected)


_RUNTIME: Final = {
    "__builtins__": {"bool": bool, "type": type, "int": int, "float": float, "str": str, "list": list},
    "_M": MISSING,
    "_r": resolve,
    "_contains": _contains,
    "_eq": _equal,
    "_seteq": _set_equal_present,
}
_SYMBOLS: Final[Mapping[OrderOp, str]] = {"gt": ">", "gte": ">=", "lt": "<", "lte": "<="}
_ORDER_TESTS: Final[Mapping[OrderOp, Callable[[Any, Any], bool]]] = {
    "gt": lambda actual, expected: actual > expected,
    "gte": lambda actual, expected: actual >= expected,
    "lt": lambda actual, expected: actual < expected,
    "lte": lambda actual, expected: actual <= expected,
}


def _is_op(op: object) -> TypeGuard[ConditionOp]:
    return op in CONDITION_OPS


def _op(node: Any) -> ConditionOp:
    """The op of a condition node; :class:`ConditionError` for what is no condition."""
    if not isinstance(node, Mapping):
        raise ConditionError(f"a condition must be an object, not {node!r}")
    op = node.get("op")
    if not _is_op(op):
        raise ConditionError(f"unknown condition op {op!r}")
    return op


def _literal(value: Any, constants: list[Any]) -> str:
    if isinstance(value, bool) or value is None:
        return repr(value)
    if isinstance(value, int | str):
        return repr(value)
    if isinstance(value, float) and math.isfinite(value):
        return repr(value)
    constants.append(value)
    return f"_c[{len(constants) - 1}]"


def _lookup(tokens: tuple[str, ...], constants: list[Any]) -> str:
    if len(tokens) == 1:
        return f"s.get({tokens[0]!r}, _M)"
    return f"_r(s, {_literal(tokens, constants)})"


def _expression(node: Any, set_paths: frozenset[str], constants: list[Any], reads: tuple[set[str], set[str]]) -> str:
    """``node`` as a Python expression over ``s`` and ``a``; adds what it reads to ``reads`` (keys, observations)."""
    op = _op(node)
    if op == "literal":
        return "True" if node.get("value") is True else "False"
    if op in ("all", "any"):
        joiner = " and " if op == "all" else " or "
        return "(" + joiner.join(_expression(c, set_paths, constants, reads) for c in node.get("conditions", ())) + ")"
    if op == "not":
        return f"(not {_expression(node.get('condition'), set_paths, constants, reads)})"
    if op == "observed":
        reads[1].add(str(node.get("id")))
        expected = node.get("value")
        answer = f"a.get({str(node.get('id'))!r}, _M)"
        if isinstance(expected, bool):
            return f"({answer} is {expected!r})"
        if isinstance(expected, str):
            return f"(type(v := {answer}) is str and v == {expected!r})"
        return f"_eq({answer}, {_literal(expected, constants)})"
    path = node.get("path")
    tokens = parse_pointer(path) if isinstance(path, str) else None
    if tokens is None:
        return "False"
    if not tokens:
        raise ConditionError("a comparison on the whole state")  # rare: use the closure
    reads[0].add(tokens[0])
    lookup = _lookup(tokens, constants)
    value = f"(v := {lookup})"
    expected = node.get("value")
    if op in ORDER_OPS:
        if not _is_number(expected):
            return "False"
        return f"(type({value}) in (int, float) and v {_SYMBOLS[op]} {_literal(expected, constants)})"
    if op in ("eq", "ne"):
        if path in set_paths:
            test = f"_seteq({value}, {_literal(expected, constants)})"
        elif isinstance(expected, bool):
            test = f"({value} is {expected!r})"
        elif isinstance(expected, str):
            test = f"(type({value}) is str and v == {expected!r})"
        elif _is_number(expected):
            test = f"(type({value}) in (int, float) and v == {_literal(expected, constants)})"
        else:
            test = f"_eq({value}, {_literal(expected, constants)})"
        if op == "eq":
            return test
        return f"({value} is not _M and not {test.replace(value, 'v', 1)})"
    if isinstance(expected, str):  # contains
        return f"(type({value}) in (list, str) and {expected!r} in v)"
    return f"_contains({value}, {_literal(expected, constants)})"


def _compile(node: Any, set_paths: frozenset[str], keys: set[str], observations: set[str]) -> Evaluator:
    op = _op(node)
    if op == "literal":
        constant = node.get("value") is True
        return lambda state, answers: constant
    if op in ("all", "any"):
        parts = tuple(_compile(c, set_paths, keys, observations) for c in node.get("conditions", ()))
        if op == "all":
            return lambda state, answers: all(part(state, answers) for part in parts)
        return lambda state, answers: any(part(state, answers) for part in parts)
    if op == "not":
        inner = _compile(node.get("condition"), set_paths, keys, observations)
        return lambda state, answers: not inner(state, answers)
    if op == "observed":
        observation = str(node.get("id"))
        expected = node.get("value")
        observations.add(observation)

        def observed(state: State, answers: Answers) -> bool:
            answer = answers.get(observation, MISSING)
            return answer is not MISSING and json_equal(answer, expected)

        return observed
    if op in COMPARISON_OPS:
        return _comparison(op, node.get("path"), node.get("value"), set_paths, keys)
    raise ConditionError(f"unknown condition op {op!r}")


def _comparison(op: ComparisonOp, path: Any, expected: Any, set_paths: frozenset[str], keys: set[str]) -> Evaluator:
    tokens = parse_pointer(path) if isinstance(path, str) else None
    if tokens is None:
        return lambda state, answers: False  # not a JSON Pointer: never resolves
    if tokens:
        keys.add(tokens[0])
    equal = _set_equal if path in set_paths else json_equal
    if op in ("eq", "ne"):
        want = op == "eq"

        def compare_equal(state: State, answers: Answers) -> bool:
            actual = resolve(state, tokens)
            return actual is not MISSING and equal(actual, expected) is want

        return compare_equal
    if op == "contains":

        def contains(state: State, answers: Answers) -> bool:
            actual = resolve(state, tokens)
            if isinstance(actual, list):
                return any(json_equal(item, expected) for item in actual)
            if isinstance(actual, str):
                return isinstance(expected, str) and expected in actual
            return False

        return contains
    if not _is_number(expected) or op not in ORDER_OPS:
        return lambda state, answers: False
    test = _ORDER_TESTS[op]

    def order(state: State, answers: Answers) -> bool:
        actual = resolve(state, tokens)
        return _is_number(actual) and test(actual, expected)

    return order


def sub_condition(condition: Mapping[str, Any], ref: str) -> Mapping[str, Any] | None:
    """The condition at ``ref`` (``""`` or ``/conditions/<i>`` segments) inside ``condition``.

    A ``/conditions/<i>`` segment steps into a group's ``conditions``; the contract's pattern
    allows nothing else, so a ``not`` is not stepped through. ``None`` if it does not exist.
    """
    tokens = parse_pointer(ref)
    if tokens is None or len(tokens) % 2:
        return None
    node: Any = condition
    for name, index in zip(tokens[::2], tokens[1::2], strict=True):
        children = node.get(name) if isinstance(node, Mapping) else None
        if name != "conditions" or not isinstance(children, list) or not index.isdigit():
            return None
        if int(index) >= len(children):
            return None
        node = children[int(index)]
    return node if isinstance(node, Mapping) else None
