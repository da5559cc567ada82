"""The condition grammar of contract 0.3 to 0.5: compile a condition once, evaluate it many times.

Conditions are read as the tree of :mod:`creatorpack.contract.conditions` and compiled by one
code generator (:func:`expression`) into a Python function each. Grammar (a condition is a JSON
object discriminated by ``op``)::

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
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Final, TypeAlias

from creatorpack._json import parse_pointer
from creatorpack.contract.conditions import (
    COMPARISON_OPS,
    CONDITION_OPS,
    ORDER_OPS,
    AllOf,
    AnyOf,
    Compare,
    ComparisonOp,
    Condition,
    ConditionOp,
    Leaf,
    LiteralCond,
    Not,
    Observed,
    OrderOp,
    parse,
    to_json,
)
from creatorpack.errors import ConditionError
from creatorpack.play._pool import ConstantPool

__all__ = [
    "COMPARISON_OPS",
    "CONDITION_OPS",
    "MISSING",
    "ORDER_OPS",
    "RUNTIME",
    "AllValues",
    "Answers",
    "ComparisonOp",
    "CompiledCondition",
    "ConditionError",
    "ConditionOp",
    "Evaluator",
    "OrderOp",
    "State",
    "Typed",
    "compile_condition",
    "expression",
    "generate_all",
    "generate_function",
    "json_equal",
    "make_evaluator",
    "parse_pointer",
    "resolve",
    "signed_leaves",
    "sub_condition",
]

State: TypeAlias = Mapping[str, Any]
"""A runtime state: the values of the state schema's members."""
Answers: TypeAlias = Mapping[str, Any]
"""The narrator's latest answer to each observation, by observation id."""
Evaluator: TypeAlias = Callable[[State, Answers], bool]
Typed: TypeAlias = Mapping[tuple[str, ...], str]
"""State paths the code may take as present, each with its schema type: ``integer``, ``boolean``, ``array``, ``object``.

Code generated with them is exact only on states that hold every one of these paths, each value
of its type's Python type (an int or a float, a bool, a list, a dict): see ``play/_typed.py``.
"""


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
        if type(node) is dict or isinstance(node, Mapping):  # a dict first: no abstract-class check
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
    compares the whole state, ``whole_state``, when anything in the state changes). ``source``
    is the condition's JSON and ``tree`` the same parsed (:mod:`creatorpack.contract.conditions`).
    """

    source: Mapping[str, Any]
    evaluate: Evaluator
    state_keys: frozenset[str]
    observations: frozenset[str]
    whole_state: bool = False  # a comparison on path "" reads the whole state: any change may flip it
    tree: Condition | None = None
    leaves: tuple[Leaf, ...] = ()  # the tree's leaves, in document order (walked once, for what indexes them)
    signs: tuple[int, ...] = ()  # each leaf's sign: 1 under an even number of `not`s, -1 under an odd number

    if TYPE_CHECKING:

        def __call__(self, state: State, answers: Answers) -> bool:
            """Evaluate on a state and the narrator's latest answers: ``condition(state, answers)``."""


# A call of a CompiledCondition is a call of its `evaluate`: `__call__` is the slot's own descriptor, so Python
# reads the function from the slot and calls it, with no Python frame in between (121 ns a call on 13,270
# trivial functions against 153 for a property giving `evaluate` and 192 for a method forwarding to it).
CompiledCondition.__call__ = vars(CompiledCondition)["evaluate"]  # type: ignore[method-assign]


def compile_condition(
    condition: Mapping[str, Any] | Condition,
    *,
    set_paths: frozenset[str] = frozenset(),
    generate: bool = True,
    shared: dict[str, Evaluator] | None = None,
    stand_in: Callable[[Condition], Evaluator] | None = None,
) -> CompiledCondition:
    """Compile a contract-valid condition (its JSON, or its parsed tree) into a function of ``(state, answers)``.

    The condition becomes one Python expression (values are embedded with ``repr`` or passed
    as constants, never as code), which evaluates several times faster than nested closures;
    a condition too deep for Python's parser falls back to closures with the same semantics.
    ``set_paths`` names the state paths (JSON Pointers) that hold sets, so that ``eq``/``ne``
    compare them without regard to order. ``generate=False`` keeps the closures (for testing
    that both agree). ``shared`` maps generated code to its function, so that conditions with the
    same code (a pack repeats many) share one function. ``stand_in``, when given, makes from the
    parsed tree the function to use instead of generating one now (one that generates it on first
    call, with :func:`make_evaluator`).
    What is no condition raises :class:`ConditionError`.
    """
    if isinstance(condition, Mapping):
        tree, source = parse(condition), condition
    else:
        tree, source = condition, to_json(condition)
    keys: set[str] = set()
    observations: set[str] = set()
    whole = False
    found, signs = signed_leaves(tree)
    for leaf in found:
        kind = type(leaf)
        if kind is Compare:
            if (tokens := leaf.tokens) is not None:  # type: ignore[union-attr]
                if tokens:
                    keys.add(tokens[0])
                else:
                    whole = True
        elif kind is Observed:
            observations.add(leaf.id)  # type: ignore[union-attr]
    if stand_in is not None:
        evaluate = stand_in(tree)
    else:
        evaluate = make_evaluator(tree, set_paths, shared) if generate else _compile(tree, set_paths)
    return CompiledCondition(source, evaluate, _frozen(keys), _frozen(observations), whole, tree, found, signs)


_NONE: Final[frozenset[str]] = frozenset()


def _frozen(names: set[str]) -> frozenset[str]:
    """``names`` as a frozenset; one shared empty set for none (most conditions read no observation, or no member)."""
    return frozenset(names) if names else _NONE


def signed_leaves(tree: Condition) -> tuple[tuple[Leaf, ...], tuple[int, ...]]:
    """The leaves of ``tree`` in document order, and each one's sign (-1 under an odd number of ``not``s, else 1).

    A condition is monotone in each leaf: true going to false in a leaf of sign 1 can only turn
    the condition false (``all``, ``any`` and ``not`` of it), what the runtime's refresh uses.
    """
    found: list[Leaf] = []
    signs: list[int] = []
    stack: list[tuple[Condition, int]] = [(tree, 1)]
    while stack:
        top, sign = stack.pop()
        kind = type(top)  # the node types are final: `is` tests, cheaper than isinstance of a union
        if kind is AllOf or kind is AnyOf:
            stack.extend([(child, sign) for child in reversed(top.conditions)])  # type: ignore[union-attr]
        elif kind is Not:
            stack.append((top.condition, -sign))  # type: ignore[union-attr]
        else:
            found.append(top)  # type: ignore[arg-type]
            signs.append(sign)
    return tuple(found), tuple(signs)


def make_evaluator(
    tree: Condition,
    set_paths: frozenset[str] = frozenset(),
    shared: dict[str, Evaluator] | None = None,
    typed: Typed | None = None,
    pool: ConstantPool | None = None,
) -> Evaluator:
    """The condition's generated function (:func:`generate_function`), or closures when it is too deep to generate."""
    try:
        return generate_function(tree, set_paths, shared, typed, pool)
    except (SyntaxError, RecursionError, MemoryError):
        return _compile(tree, set_paths)  # too deep for Python's parser: closures


def generate_function(
    tree: Condition,
    set_paths: frozenset[str] = frozenset(),
    shared: dict[str, Evaluator] | None = None,
    typed: Typed | None = None,
    pool: ConstantPool | None = None,
) -> Evaluator:
    """The condition as one generated Python function of ``(state, answers)`` (see :func:`expression`).

    With ``shared``, code already generated (with no constants) is not compiled again. With
    ``typed``, the function is exact only on states that hold those paths with those types.
    With ``pool``, its code reads its literals from the pool's tuple, shared by all the code
    generated with that pool (:mod:`~creatorpack.play._pool`).
    """
    constants: list[Any] = []
    code = f"lambda s, a: {expression(tree, set_paths, constants, typed)}"  # every part of it is a bool already
    if shared is not None and not constants and (known := shared.get(code)) is not None:
        return known
    namespace = {**RUNTIME, "_c": constants} if constants else _PLAIN
    generated: Evaluator = eval(code, namespace)  # noqa: S307 - code built from repr()s only
    if pool is not None:
        generated = pool.adopt(generated)
    if shared is not None and not constants:
        shared[code] = generated
    return generated


AllValues: TypeAlias = Callable[[State, Answers], tuple[bool, ...]]
"""A function giving the value of every condition of a table at once."""


def generate_all(trees: Sequence[Condition], set_paths: frozenset[str] = frozenset()) -> AllValues:
    """One generated function giving every condition's value at once, each distinct leaf evaluated once.

    The leaves (comparisons, observed tests) come first, one local each; the conditions are then
    ``and``/``or``/``not`` of those locals. A pack repeats its leaves (the runtime benchmark pack
    has 9,538 distinct ones among 13,270 conditions), so this is several times faster than calling
    each condition, for what evaluates them all (a session loaded from a save). Leaves have no
    side effects and never raise, so evaluating all of them gives what short-circuiting would.
    A table too deep for Python's parser gets the conditions' own functions, called one by one.
    """
    constants: list[Any] = []
    names: dict[str, str] = {}
    lines: list[str] = []
    members: dict[str, str] = {}  # a top-level member -> the local holding it (its number test: n<local>)

    def member(key: str) -> str:
        if (local := members.get(key)) is None:
            local = members[key] = f"m{len(members)}"
            lines.append(f"    {local} = s.get({key!r}, _M)")
            lines.append(f"    n{local} = type({local}) in (int, float)")
        return local

    def formula(node: Condition) -> str:
        match node:
            case AllOf(conditions=children):
                return "(" + " and ".join(formula(c) for c in children) + ")" if children else "True"
            case AnyOf(conditions=children):
                return "(" + " or ".join(formula(c) for c in children) + ")" if children else "False"
            case Not(condition=inner):
                return f"(not {formula(inner)})"
            case LiteralCond():
                return expression(node, set_paths, constants)
            case Compare() | Observed():
                code = _member_test(node, set_paths, member) or expression(node, set_paths, constants)
                if (name := names.get(code)) is None:
                    name = names[code] = f"l{len(names)}"
                    lines.append(f"    {name} = {code}")
                return name

    try:
        formulas = [formula(tree) for tree in trees]
        source = "def every(s, a):\n" + "\n".join(lines) + "\n    return (" + ",\n".join(formulas) + ",)\n"
        namespace = {**RUNTIME, "_c": constants}
        exec(compile(source, "<conditions>", "exec"), namespace)  # noqa: S102 - code built from repr()s only
    except (SyntaxError, RecursionError, MemoryError):
        evaluators = [compile_condition(tree, set_paths=set_paths).evaluate for tree in trees]
        return lambda state, answers: tuple(evaluate(state, answers) for evaluate in evaluators)
    every: AllValues = namespace["every"]
    return every


def _member_test(node: Condition, set_paths: frozenset[str], member: Callable[[str], str]) -> str | None:
    """A comparison of a top-level member with a plain scalar, over the member read once into a local.

    The same test as :func:`expression`'s, shorter: the pack's many thresholds on a few counters
    read each counter (and whether it is a number) once, and the source to compile shrinks.
    ``None`` for what this does not cover.
    """
    if not isinstance(node, Compare) or node.tokens is None or len(node.tokens) != 1 or node.path in set_paths:
        return None
    op, expected = node.op, node.value
    local = member(node.tokens[0])
    if _is_number(expected) and (not isinstance(expected, float) or math.isfinite(expected)) and op != "contains":
        symbol = "==" if op in ("eq", "ne") else _SYMBOLS[op]  # type: ignore[index]
        test = f"(n{local} and {local} {symbol} {expected!r})"
    elif isinstance(expected, bool) and op in ("eq", "ne"):
        test = f"({local} is {expected!r})"
    elif isinstance(expected, str) and op in ("eq", "ne"):
        test = f"(type({local}) is str and {local} == {expected!r})"
    else:
        return None
    return f"({local} is not _M and not {test})" if op == "ne" else test


def _contains(actual: Any, expected: Any) -> bool:
    if isinstance(actual, list):
        return any(json_equal(item, expected) for item in actual)
    if isinstance(actual, str):
        return isinstance(expected, str) and expected in actual
    return False


RUNTIME: Final[Mapping[str, Any]] = {
    "__builtins__": {"bool": bool, "type": type, "int": int, "float": float, "str": str, "list": list, "dict": dict},
    "_M": MISSING,
    "_N": (int, float),  # one name, not a tuple built from two at each test
    "_LS": (list, str),
    "_r": resolve,
    "_contains": _contains,
    "_eq": json_equal,
    "_seteq": _set_equal,
}
"""The names generated code may use besides ``s`` (the state), ``a`` (the answers) and ``_c`` (its constants)."""
_PLAIN: Final[dict[str, Any]] = {**RUNTIME, "_c": ()}
"""The namespace of generated code with no constants (shared: nothing changes it)."""
_SYMBOLS: Final[Mapping[OrderOp, str]] = {"gt": ">", "gte": ">=", "lt": "<", "lte": "<="}
_ORDER_TESTS: Final[Mapping[OrderOp, Callable[[Any, Any], bool]]] = {
    "gt": lambda actual, expected: actual > expected,
    "gte": lambda actual, expected: actual >= expected,
    "lt": lambda actual, expected: actual < expected,
    "lte": lambda actual, expected: actual <= expected,
}


def _literal(value: Any, constants: list[Any]) -> str:
    if isinstance(value, bool) or value is None:
        return repr(value)
    if isinstance(value, int | str):
        return repr(value)
    if isinstance(value, float) and math.isfinite(value):
        return repr(value)
    constants.append(value)
    return f"_c[{len(constants) - 1}]"


def _lookup(tokens: tuple[str, ...]) -> str:
    """The code reading ``tokens`` (two or more) in ``s``: ``resolve(s, tokens)``, inline for dicts.

    Each step into a dict is a ``get``; a step into anything else (a list, another mapping, a
    scalar, :data:`MISSING`) is :func:`resolve`'s for that one token.
    """
    code = f"s.get({tokens[0]!r}, _M)"
    for token in tokens[1:]:
        code = f"(w.get({token!r}, _M) if type(w := {code}) is dict else _r(w, ({token!r},)))"
    return code


def _present(tokens: tuple[str, ...], test: Callable[[str], str]) -> str:
    """``test`` of the value at ``tokens``, false when the path does not resolve.

    ``test`` makes the code of the test from the code of the value, which it uses once. A
    top-level member is tested for with ``in`` and read by subscript (shorter code than a
    ``get`` call, and as fast: a condition's cost is mostly in reading its code); the whole
    state is always there; a deeper path is read by :func:`_lookup`.
    """
    if not tokens:
        return f"({test('s')})"
    if len(tokens) == 1:
        return f"({tokens[0]!r} in s and {test(f's[{tokens[0]!r}]')})"
    return f"((v := {_lookup(tokens)}) is not _M and {test('v')})"


def _is_finite(value: Any) -> bool:
    """Whether ``value`` is a number written in code as itself (an int, or a finite float)."""
    return _is_number(value) and (isinstance(value, int) or math.isfinite(value))


def _is_unit(value: Any) -> bool:
    """Whether a number equals a bool in Python (0, 1, 0.0, 1.0): then ``==`` cannot tell them apart."""
    return bool(value in {0, 1})


def expression(node: Condition, set_paths: frozenset[str], constants: list[Any], typed: Typed | None = None) -> str:
    """``node`` as a Python expression over ``s`` (the state) and ``a`` (the answers): the one code generator.

    Its value is a ``bool``: each leaf's is, and ``and``, ``or`` and ``not`` of bools are bools.

    Values that are not plain scalars go into ``constants`` (read as ``_c[i]``); the names it
    uses are :data:`RUNTIME`'s. A leaf tests JSON values (what states and answers hold: dicts,
    lists, strings, ints, floats, booleans, ``None``) and relies on what ``==`` is between them:
    a string equals only a string, and a number other than 0 and 1 only a number (``True == 1``),
    so such an ``eq`` or ``ne`` needs no type test.

    With ``typed`` (:data:`Typed`), a comparison at one of its paths reads the value by subscript
    with no test that it is there, nor of its type where the type decides (``s['c4'] >= 5``,
    ``'a' in s['s1']``): the code is then exact only on states that hold those paths so typed.
    """
    match node:
        case LiteralCond(value=value):
            return "True" if value is True else "False"
        case AllOf(conditions=children):
            parts = [expression(c, set_paths, constants, typed) for c in children]
            return "(" + " and ".join(parts) + ")" if parts else "True"
        case AnyOf(conditions=children):
            parts = [expression(c, set_paths, constants, typed) for c in children]
            return "(" + " or ".join(parts) + ")" if parts else "False"
        case Not(condition=inner):
            return f"(not {expression(inner, set_paths, constants, typed)})"
        case Observed(id=ident, value=expected):
            return f"({ident!r} in a and {_equality(f'a[{ident!r}]', expected, constants)})"
        case Compare():
            if typed and node.tokens and (kind := typed.get(node.tokens)) is not None:
                return _typed_code(node, kind, set_paths, constants)
            return _comparison_code(node, set_paths, constants)


def _typed_code(node: Compare, kind: str, set_paths: frozenset[str], constants: list[Any]) -> str:
    """A comparison at a path every state holds, its value of the Python type of schema type ``kind``.

    An integer member holds an int or a float (never a bool), a boolean one a bool, a set a list,
    an object a dict: order tests need no type test (and are false on any other type), equality
    with a number needs no bool test, a string is in a set by ``in``. Anything else is the generic
    test of the value, read with no presence test.
    """
    op, expected = node.op, node.value
    value = "s" + "".join(f"[{token!r}]" for token in node.tokens or ())
    if op in ORDER_OPS:
        if kind != "integer" or not _is_number(expected):
            return "False"
        return f"({value} {_SYMBOLS[op]} {_literal(expected, constants)})"
    if op == "contains":
        if kind == "array" and isinstance(expected, str):
            return f"({expected!r} in {value})"
        return f"_contains({value}, {_literal(expected, constants)})"
    sets, negate = node.path in set_paths, op == "ne"
    if kind == "integer" and _is_finite(expected) and not sets:
        return f"({value} {'!=' if negate else '=='} {expected!r})"
    return f"({_equality(value, expected, constants, sets=sets, negate=negate)})"


def _equality(value: str, expected: Any, constants: list[Any], *, sets: bool = False, negate: bool = False) -> str:
    """Code: ``value`` (code, used once) deep-equal to ``expected`` (as sets with ``sets``); unequal with ``negate``.

    A string equals only a string and a number other than 0 and 1 only a number: ``==`` tells;
    a bool is one object; 0 and 1 need the bool ruled out; anything else is :func:`json_equal`.
    """
    if sets:
        test = f"_seteq({value}, {_literal(expected, constants)})"
    elif isinstance(expected, bool):
        return f"{value} is not {expected!r}" if negate else f"{value} is {expected!r}"
    elif isinstance(expected, str) or (_is_finite(expected) and not _is_unit(expected)):
        return f"{value} != {expected!r}" if negate else f"{value} == {expected!r}"
    elif _is_finite(expected):
        unit = expected == 1  # the bool that equals it
        if negate:
            return f"((v := {value}) != {expected!r} or v is {unit!r})"
        return f"(v := {value}) == {expected!r} and v is not {unit!r}"
    else:
        test = f"_eq({value}, {_literal(expected, constants)})"
    return f"not {test}" if negate else test


def _comparison_code(node: Compare, set_paths: frozenset[str], constants: list[Any]) -> str:
    op, path, expected, tokens = node.op, node.path, node.value, node.tokens
    if tokens is None:
        return "False"  # not a JSON Pointer: never resolves
    if op in ORDER_OPS:
        if not _is_number(expected):
            return "False"
        compared = f"v {_SYMBOLS[op]} {_literal(expected, constants)}"
        return _present(tokens, lambda value: f"type(v := {value}) in _N and {compared}")
    if op == "contains":
        if isinstance(expected, str):
            return _present(tokens, lambda value: f"type(v := {value}) in _LS and {expected!r} in v")
        return _present(tokens, lambda value: f"_contains({value}, {_literal(expected, constants)})")
    sets, negate = path in set_paths, op == "ne"
    return _present(tokens, lambda value: _equality(value, expected, constants, sets=sets, negate=negate))


def _compile(node: Condition, set_paths: frozenset[str]) -> Evaluator:
    """The condition as nested closures: the generated code's semantics, for conditions too deep to generate."""
    match node:
        case LiteralCond(value=value):
            constant = value is True
            return lambda state, answers: constant
        case AllOf(conditions=children):
            parts = tuple(_compile(c, set_paths) for c in children)
            return lambda state, answers: all(part(state, answers) for part in parts)
        case AnyOf(conditions=children):
            parts = tuple(_compile(c, set_paths) for c in children)
            return lambda state, answers: any(part(state, answers) for part in parts)
        case Not(condition=inner):
            negated = _compile(inner, set_paths)
            return lambda state, answers: not negated(state, answers)
        case Observed(id=observation, value=expected):

            def observed(state: State, answers: Answers) -> bool:
                answer = answers.get(observation, MISSING)
                return answer is not MISSING and json_equal(answer, expected)

            return observed
        case Compare():
            return _comparison(node, set_paths)


def _comparison(node: Compare, set_paths: frozenset[str]) -> Evaluator:
    op, path, expected, tokens = node.op, node.path, node.value, node.tokens
    if tokens is None:
        return lambda state, answers: False  # not a JSON Pointer: never resolves
    equal = _set_equal if path in set_paths else json_equal
    if op in ("eq", "ne"):
        want = op == "eq"

        def compare_equal(state: State, answers: Answers) -> bool:
            actual = resolve(state, tokens)
            return actual is not MISSING and equal(actual, expected) is want

        return compare_equal
    if op == "contains":

        def contains(state: State, answers: Answers) -> bool:
            return _contains(resolve(state, tokens), expected)

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
