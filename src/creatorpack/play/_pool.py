"""One tuple of constants for all of a program's generated condition code: less memory read a call.

Each generated function's code object has a tuple of its own constants (``co_consts``: member
names, thresholds, answer values). A pack's conditions are called once each between turns, far
apart, so each call finds its code and that tuple outside the processor's cache. A pack has few
distinct literals (the runtime benchmark pack: 153 among 13,270 conditions), so all its code can
read them from one tuple, which stays in the cache: a call then reads one object fewer, and the
runtime benchmark's evaluations of every condition ran at 1.45-1.5x the rate (docs/performance.md).

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

from creatorpack.contract.conditions import Compare, Leaf, Observed

__all__ = ["ConstantPool", "pool_of"]

_CONSTANT_OPS: Final = frozenset(opcode.hasconst)
"""The opcodes whose operand indexes ``co_consts`` (Python 3.11: ``LOAD_CONST``, ``KW_NAMES``)."""
_EXTENDED_ARG: Final = opcode.opmap["EXTENDED_ARG"]
_SCALARS: Final = frozenset({str, int, bool, type(None)})
"""The scalars pooled by value (floats are by ``repr``)."""
_WIDEST: Final = 256
"""Indexes must fit the one-byte operand they replace."""


def _key(value: Any) -> tuple[type, Any] | None:
    """What tells two constants apart as code reads them (``1``, ``1.0`` and ``True`` are three); None: not pooled.

    Plain scalars (a float by its ``repr``: ``0.0`` and ``-0.0`` are equal), and tuples of
    strings (a step into a deeper path: ``_r(w, ('f1',))``).
    """
    kind = type(value)
    if kind is float:
        return (kind, repr(value))
    if kind in _SCALARS or (kind is tuple and all(type(item) is str for item in value)):
        return (kind, value)
    return None


class ConstantPool:
    """The constants a program's generated code reads, at most 256 of them, most used first."""

    def __init__(self, values: Iterable[Any]) -> None:
        pooled: list[Any] = [None]  # a lambda's first constant; a str first is a docstring to functions of the code
        index: dict[tuple[type, Any] | None, int] = {(type(None), None): 0}
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
        index = self._index
        moved = [index.get(_key(value), -1) for value in code.co_consts]
        if -1 in moved:
            return function
        raw = bytearray(code.co_code)
        ops = bytes(raw[::2])  # code units are two bytes, an opcode and its operand (inline caches: opcode 0)
        for op in _CONSTANT_OPS:
            at = ops.find(op)
            while at >= 0:
                if at and ops[at - 1] == _EXTENDED_ARG:  # an operand wider than a byte
                    return function
                raw[2 * at + 1] = moved[raw[2 * at + 1]]
                at = ops.find(op, at + 1)
        function.__code__ = code.replace(co_code=bytes(raw), co_consts=self.values)
        return function


def pool_of(found: Iterable[Leaf]) -> ConstantPool:
    """The pool for code generated from conditions with leaves ``found``: every literal in them, most frequent first.

    A leaf's literals are its member names (and, for a deeper path, each later step as a tuple,
    as generated code reads it), its observation id, and its value.
    """
    counts: Counter[tuple[type, Any]] = Counter({(bool, True): 1, (bool, False): 1})
    first: dict[tuple[type, Any], Any] = {(bool, True): True, (bool, False): False}
    for leaf in found:
        kind = type(leaf)
        if kind is Compare:
            tokens = leaf.tokens or ()  # type: ignore[union-attr]
            literals: tuple[Any, ...] = (*tokens, *((token,) for token in tokens[1:]), leaf.value)
        elif kind is Observed:
            literals = (leaf.id, leaf.value)  # type: ignore[union-attr]
        else:
            literals = (leaf.value,)
        for value in literals:
            if (key := _key(value)) is not None:
                counts[key] += 1
                first.setdefault(key, value)
    return ConstantPool(first[key] for key, _ in counts.most_common())
