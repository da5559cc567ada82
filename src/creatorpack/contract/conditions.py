"""The condition grammar as a typed tree: parsed once from a pack's JSON, read by ``match`` everywhere after.

Grammar (a condition is a JSON object discriminated by ``op``; contract 0.3 to 0.5)::

    condition  := literal | comparison | observed | group | not
    literal    := {"op": "literal", "value": <boolean>}
    comparison := {"op": "eq"|"ne"|"gt"|"gte"|"lt"|"lte"|"contains", "path": <pointer>, "value": <json>}
    observed   := {"op": "observed", "id": <Id>, "value": <boolean or choice key>}
    group      := {"op": "all"|"any", "conditions": [<condition>, ...]}     (at least one)
    not        := {"op": "not", "condition": <condition>}

:func:`parse` turns one such object into a tree of frozen nodes (:class:`LiteralCond`,
:class:`Compare`, :class:`Observed`, :class:`AllOf`, :class:`AnyOf`, :class:`Not`; the union is
:data:`Condition`), each keeping where it stands in the pack (``at``, a JSON path, for findings).
:func:`to_json` gives the JSON back, :func:`describe` says it in plain words on one line and
:func:`outline` in the same words a part a line, nested as the groups are (what the language
server's hover shows). Nothing here
evaluates a condition: that is the play layer's (``creatorpack.play.conditions``), which compiles
these nodes. A :class:`Goal` names something a play can reach (``achievement:a1``), the
``kind:id`` strings that findings and the command line use.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Final, Literal, TypeAlias, TypeGuard, get_args

from creatorpack._json import JsonPath, parse_pointer
from creatorpack.errors import ConditionError

__all__ = [
    "COMPARISON_OPS",
    "CONDITION_OPS",
    "ORDER_OPS",
    "AllOf",
    "AnyOf",
    "Compare",
    "ComparisonOp",
    "Condition",
    "ConditionOp",
    "Glossary",
    "Goal",
    "Leaf",
    "LiteralCond",
    "Not",
    "Observed",
    "OrderOp",
    "describe",
    "leaves",
    "outline",
    "parse",
    "to_json",
]

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


@dataclass(frozen=True, slots=True)
class LiteralCond:
    """``{"op": "literal"}``: holds when ``value`` is ``true`` (anything else never holds)."""

    value: Any
    at: JsonPath = field(default=(), compare=False)

    def __str__(self) -> str:
        return describe(self)


@dataclass(frozen=True, slots=True)
class Compare:
    """A comparison of the state value at ``path`` with ``value``.

    ``tokens`` are the pointer's reference tokens (``()`` for the whole state), or ``None`` when
    ``path`` is no JSON Pointer: such a comparison never resolves, so it never holds.
    """

    op: ComparisonOp
    path: Any
    value: Any
    at: JsonPath = field(default=(), compare=False)
    tokens: tuple[str, ...] | None = field(default=None, compare=False)

    def __str__(self) -> str:
        return describe(self)


@dataclass(frozen=True, slots=True)
class Observed:
    """Holds when the narrator's latest answer to observation ``id`` equals ``value``."""

    id: str
    value: Any
    at: JsonPath = field(default=(), compare=False)

    def __str__(self) -> str:
        return describe(self)


@dataclass(frozen=True, slots=True)
class AllOf:
    """``{"op": "all"}``: holds when every one of ``conditions`` holds."""

    conditions: tuple[Condition, ...]
    at: JsonPath = field(default=(), compare=False)

    def __str__(self) -> str:
        return describe(self)


@dataclass(frozen=True, slots=True)
class AnyOf:
    """``{"op": "any"}``: holds when at least one of ``conditions`` holds."""

    conditions: tuple[Condition, ...]
    at: JsonPath = field(default=(), compare=False)

    def __str__(self) -> str:
        return describe(self)


@dataclass(frozen=True, slots=True)
class Not:
    """``{"op": "not"}``: holds when ``condition`` does not."""

    condition: Condition
    at: JsonPath = field(default=(), compare=False)

    def __str__(self) -> str:
        return describe(self)


Condition: TypeAlias = LiteralCond | Compare | Observed | AllOf | AnyOf | Not
"""A parsed condition: one of the six node types."""
Leaf: TypeAlias = LiteralCond | Compare | Observed
"""A condition with no conditions inside: what :func:`leaves` yields."""
Glossary: TypeAlias = Mapping[str, Mapping[str, Any]]
"""A pack's observations by id (as ``runtime.observations`` lists them): what :func:`describe` quotes of them."""


def _is_comparison(op: object) -> TypeGuard[ComparisonOp]:
    return op in COMPARISON_OPS  # a tuple: an op that is no string (unhashable, even) is simply not one


_tokens: Final = functools.lru_cache(maxsize=4096)(parse_pointer)
""":func:`parse_pointer`, remembered: a pack's conditions name the same few paths thousands of times."""


def parse(raw: Any, at: JsonPath = ()) -> Condition:
    """The tree of a condition's JSON; ``at`` is where it stands in the pack.

    Raises :class:`~creatorpack.errors.ConditionError` for what is no condition: not an object, an
    unknown ``op``, a group whose ``conditions`` is not a list. A valid pack has none of these;
    members the grammar does not read are ignored, and a missing one reads as JSON ``null``.
    The most common ops are tested first and a ``dict`` before the abstract ``Mapping``: compiling
    a pack parses every condition (81,000 nodes on the runtime benchmark pack).
    """
    if type(raw) is not dict and not isinstance(raw, Mapping):
        raise ConditionError(f"a condition must be an object, not {raw!r}")
    op = raw.get("op")
    if _is_comparison(op):
        path = raw.get("path")
        tokens = _tokens(path) if isinstance(path, str) else None
        return Compare(op, path, raw.get("value"), at, tokens)
    if op in ("all", "any"):  # a tuple: an unhashable op is simply none of them
        children = raw.get("conditions", [])
        if not isinstance(children, list | tuple):
            raise ConditionError(f"a group's conditions must be a list, not {children!r}")
        parsed = tuple([parse(child, (*at, "conditions", i)) for i, child in enumerate(children)])
        return AllOf(parsed, at) if op == "all" else AnyOf(parsed, at)
    if op == "observed":
        return Observed(str(raw.get("id")), raw.get("value"), at)
    if op == "literal":
        return LiteralCond(raw.get("value"), at)
    if op == "not":
        return Not(parse(raw.get("condition"), (*at, "condition")), at)
    raise ConditionError(f"unknown condition op {op!r}")


def to_json(node: Condition) -> dict[str, Any]:
    """The condition's JSON, as :func:`parse` read it (members the grammar does not read are gone)."""
    match node:
        case LiteralCond(value=value):
            return {"op": "literal", "value": value}
        case Compare(op=op, path=path, value=value):
            return {"op": op, "path": path, "value": value}
        case Observed(id=ident, value=value):
            return {"op": "observed", "id": ident, "value": value}
        case AllOf(conditions=children):
            return {"op": "all", "conditions": [to_json(child) for child in children]}
        case AnyOf(conditions=children):
            return {"op": "any", "conditions": [to_json(child) for child in children]}
        case Not(condition=inner):
            return {"op": "not", "condition": to_json(inner)}


def leaves(node: Condition) -> list[Leaf]:
    """The literals, comparisons and observed tests of a condition, in document order."""
    found: list[Leaf] = []
    stack: list[Condition] = [node]
    while stack:  # a stack, not recursion: compiling a pack walks every condition's leaves
        top = stack.pop()
        if isinstance(top, AllOf | AnyOf):
            stack.extend(reversed(top.conditions))
        elif isinstance(top, Not):
            stack.append(top.condition)
        else:
            found.append(top)
    return found


_WORDS: Final[Mapping[ComparisonOp, str]] = {
    "eq": "is",
    "ne": "is not",
    "gt": "is more than",
    "gte": "is at least",
    "lt": "is less than",
    "lte": "is at most",
    "contains": "contains",
}


def _shown(value: Any) -> str:
    """A JSON value as a reader of the pack writes it (``true``, ``"key"``, ``3``, ``["a"]``)."""
    if value is None or isinstance(value, bool):
        return {None: "null", True: "true", False: "false"}[value]
    if isinstance(value, float) and not math.isfinite(value):
        return repr(value)
    if isinstance(value, str):
        return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'
    if isinstance(value, list | tuple):
        return "[" + ", ".join(_shown(item) for item in value) + "]"
    if isinstance(value, Mapping):
        return "{" + ", ".join(f"{_shown(str(k))}: {_shown(v)}" for k, v in value.items()) + "}"
    return repr(value)


def describe(node: Condition, observations: Glossary | None = None) -> str:
    """The condition in plain words: ``/trust is at least 3 and not (helped was answered false)``.

    A group of two or more inside another, and what a ``not`` negates, are put in parentheses, so
    the words read one way only. With ``observations`` (a pack's, by id), an ``observed`` test also
    quotes the question and the words of the answer it names:
    ``lamp (What about the lamp?) was answered "relit" (Relit it)``.
    """
    match node:
        case LiteralCond(value=value):
            return "always" if value is True else "never"
        case Compare(op=op, path=path, value=value):
            where = "the whole state" if path == "" else path if isinstance(path, str) else _shown(path)
            return f"{where} {_WORDS[op]} {_shown(value)}"
        case Observed(id=ident, value=value):
            observation = observations.get(ident) if observations is not None else None
            if not isinstance(observation, Mapping):
                return f"{ident} was answered {_shown(value)}"
            question = observation.get("question")
            choices = observation.get("choices")
            label = choices.get(value) if isinstance(choices, Mapping) and isinstance(value, str) else None
            asked = f" ({question})" if isinstance(question, str) else ""
            said = f" ({label})" if isinstance(label, str) else ""
            return f"{ident}{asked} was answered {_shown(value)}{said}"
        case AllOf(conditions=children) | AnyOf(conditions=children):
            if not children:
                return "(no conditions)"
            joiner = " and " if isinstance(node, AllOf) else " or "
            return joiner.join(_grouped(child, observations) for child in children)
        case Not(condition=inner):
            return f"not ({describe(inner, observations)})"


def _grouped(node: Condition, observations: Glossary | None) -> str:
    """A group's member in words: in parentheses when it is itself a group of two or more."""
    text = describe(node, observations)
    return f"({text})" if _opens(node) else text


def _opens(node: Condition) -> bool:
    """Whether ``node`` is a group of two or more: a list in :func:`outline`, in parentheses in :func:`describe`."""
    return isinstance(node, AllOf | AnyOf) and len(node.conditions) > 1


def outline(node: Condition, observations: Glossary | None = None) -> list[tuple[int, str]]:
    """The condition as nested lines ``(depth, words)``, in the words of :func:`describe`.

    A group of two or more opens a list of its parts, one deeper (``all of these hold:``, ``any of
    these holds:``), and so does a ``not`` of one (``this does not hold:``); every other part is one
    line, as :func:`describe` says it (a group of one reads as its part). Top level is depth 0.
    """
    lines: list[tuple[int, str]] = []
    stack: list[tuple[int, Condition]] = [(0, node)]
    while stack:
        depth, top = stack.pop()
        inner = top.condition if isinstance(top, Not) and _opens(top.condition) else None
        if inner is not None:
            lines.append((depth, "this does not hold:"))
            stack.append((depth + 1, inner))
        elif isinstance(top, AllOf | AnyOf) and _opens(top):
            lines.append((depth, "all of these hold:" if isinstance(top, AllOf) else "any of these holds:"))
            stack.extend((depth + 1, child) for child in reversed(top.conditions))
        elif isinstance(top, AllOf | AnyOf) and top.conditions:
            stack.append((depth, top.conditions[0]))
        else:
            lines.append((depth, describe(top, observations)))
    return lines


@dataclass(frozen=True, slots=True)
class Goal:
    """Something a play may reach, named ``kind:id``: ``achievement:a1``, ``rule:r3``, ``reader_cards:c``.

    ``kind`` has no colon; ``id`` is anything after the first one. Goals key what lint's
    reachability search finds, looked up in its loops: the hash is computed once, when the goal
    is made (and made again when it is unpickled, since a string's hash differs between processes).
    """

    kind: str
    id: str
    _hash: int = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "_hash", hash((self.kind, self.id)))

    def __hash__(self) -> int:
        return self._hash

    def __reduce__(self) -> tuple[type[Goal], tuple[str, str]]:
        return (Goal, (self.kind, self.id))

    @classmethod
    def parse(cls, text: str) -> Goal:
        """The goal ``text`` names; ``ValueError`` when it has no ``kind:`` before the id."""
        kind, colon, ident = text.partition(":")
        if not colon or not kind:
            raise ValueError(f"a goal is named kind:id (say achievement:a1), not {text!r}")
        return cls(kind, ident)

    def __str__(self) -> str:
        return f"{self.kind}:{self.id}"
