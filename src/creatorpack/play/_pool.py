"""One tuple of constants for all of a program's generated condition code: less memory read a call.

Each generated function's code object has a tuple of its own constants (``co_consts``: member
names, thresholds, answer values). A pack's conditions are called once each between turns, far
apart, so each call finds its code and that tuple outside the processor's cache. A pack has few
distinct literals (the runtime benchmark pack: 133 among 13,270 conditions), so all its code can
read them from one tuple, which stays in the cache: a call then reads one object fewer, and the
runtime benchmark's evaluations of every condition ran at 1.3-1.5x the rate (docs/performance.md).

:meth:`ConstantPool.adopt` rewrites a code object's constant indexes (the operands of the
opcodes :data:`opcode.hasconst` lists for the running Python) to the pool's, and gives it the
pool as its constants. Code it cannot rewrite so keeps its own constants: one with a constant
not in the pool (nor a plain scalar), or with an index wider than a byte (after an
``EXTENDED_ARG``). The rewritten code reads the same values, so a function behaves exactly as
before (tests compare both on any JSON state).
"""

from __future__ import annotations

import opcode
from collections import Counter
from collections.abc import Iterable
from types import FunctionType
from typing import Any, Final

from creatorpack.contract.conditions import Compare, Condition, LiteralCond, Observed, leaves

__all__ = ["ConstantPool", "pool_of"]

_CONSTANT_OPS: Final = frozenset(opcode.hasconst)
"""The opcodes whose operand indexes ``co_consts`` (Python 3.11: ``LOAD_CONST``, ``KW_NAMES``)."""
_EXTENDED_ARG: Final = opcode.opmap["EXTENDED_ARG"]
_SCALARS: Final = (str, int, float, bool, type(None))
_WIDEST: Final = 256
"""Indexes must fit the one-byte operand they replace."""


def _key(value: Any) -> tuple[type, str] | None:
    """What tells two constants apart as code reads them (``1``, ``1.0`` and ``True`` are three); None: not pooled.

    Plain scalars, and tuples of strings (a step into a deeper path: ``_r(w, ('f1',))``).
    """
    kind = type(value)
    if kind in _SCALARS or (kind is tuple and all(type(item) is str for item in value)):
        return (kind, repr(value))
    return None


class ConstantPool:
    """The constants a program's generated code reads, at most 256 of them, most used first."""

    def __init__(self, values: Iterable[Any]) -> None:
        pooled: list[Any] = [None]  # a lambda's first constant; a str there would become a function's __doc__
        index: dict[tuple[type, str], int] = {(type(None), "None"): 0}
        for value in values:
            key = _key(value)
            if key is not None and key not in index and len(pooled) < _WIDEST:
                index[key] = len(pooled)
                pooled.append(value)
        self.values: tuple[Any, ...] = tuple(pooled)
        self._index = index

    def adopt(self, function: Any) -> Any:
        """``function`` with its code reading the pool's constants instead of its own; as it was when it cannot."""
        if type(function) is not FunctionType:
            return function
        code = function.__code__
        moved = []
        for value in code.co_consts:
            key = _key(value)
            if key is None or (found := self._index.get(key)) is None:
                return function
            moved.append(found)
        raw = bytearray(code.co_code)
        widened = False  # whether the instruction before was an EXTENDED_ARG (its operand is wider than a byte)
        for at in range(0, len(raw), 2):
            op = raw[at]
            if op in _CONSTANT_OPS:
                if widened:
                    return function
                raw[at + 1] = moved[raw[at + 1]]
            widened = op == _EXTENDED_ARG
        function.__code__ = code.replace(co_code=bytes(raw), co_consts=self.values)
        return function


def pool_of(trees: Iterable[Condition]) -> ConstantPool:
    """The pool for code generated from ``trees``: every literal they hold (names, ids, values), most frequent first."""
    counts: Counter[tuple[type, str]] = Counter()
    first: dict[tuple[type, str], Any] = {}
    for value in (True, False):
        first[(bool, repr(value))] = value
        counts[(bool, repr(value))] += 1
    for tree in trees:
        for leaf in leaves(tree):
            found: tuple[Any, ...]
            match leaf:
                case Compare(tokens=tokens, value=value):
                    found = (*(tokens or ()), *((token,) for token in (tokens or ())[1:]), value)
                case Observed(id=ident, value=value):
                    found = (ident, value)
                case LiteralCond(value=value):
                    found = (value,)
            for value in found:
                if (key := _key(value)) is not None:
                    counts[key] += 1
                    first.setdefault(key, value)
    return ConstantPool(first[key] for key, _ in counts.most_common())
