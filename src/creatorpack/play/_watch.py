"""Which conditions a change to one top-level state member can flip: the thresholds and members they test.

A condition that reads member ``/k`` only through comparisons with a number (``gte /k 5``) can
change its value, while ``/k`` holds integers, only when ``/k`` crosses one of its thresholds; one
that reads it only through ``contains`` of a string, while ``/k`` holds strings, only when that
string joins or leaves it. :func:`watches` indexes both, so a turn that moves a counter from 18 to
19 evaluates again only the conditions with a threshold between the two. Any other read of ``/k``
(a nested path, ``eq`` of a set, a value of another kind) makes the condition evaluated again on
every change of ``/k``, and so does any change this index cannot follow (say, an integer that
becomes a string).
"""

from __future__ import annotations

import math
from bisect import bisect_right
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from itertools import chain, filterfalse
from typing import Any, Final, NamedTuple

from creatorpack.contract.conditions import Compare, Condition, Leaf, Observed, leaves, parse
from creatorpack.errors import ConditionError

__all__ = ["UNANSWERED", "Heard", "Watch", "heard", "watches"]

_ORDERED: Final = ("gt", "gte", "lt", "lte", "eq", "ne")


@dataclass(frozen=True, slots=True)
class Watch:
    """The conditions reading one top-level member, indexed by what they test of it.

    ``points[i]`` is a threshold of condition ``at[i]``: its value may differ between the integers
    ``points[i] - 1`` and ``points[i]``. ``members`` maps a string to the conditions that test
    whether the member contains it. ``every`` are read some other way; ``readers`` are all of them.
    """

    readers: tuple[int, ...]
    every: tuple[int, ...]
    points: tuple[int, ...]
    at: tuple[int, ...]
    numeric: tuple[int, ...]
    members: Mapping[str, tuple[int, ...]]
    membership: tuple[int, ...]
    signed: tuple[tuple[tuple[int, ...], tuple[int, ...]], ...] = ()
    """``points`` and ``at`` split three ways: the thresholds the member going up across can only
    make their condition true (an order test outside a ``not``, a ``lt``/``lte`` inside one), only
    false, or either (``eq``, ``ne``, a test read both ways); empty when signs were not given."""

    def stale(self, old: Any, new: Any, values: Sequence[bool] | None = None) -> Iterable[int]:
        """The conditions that may have changed value when the member went from ``old`` to ``new``.

        With ``values``, the conditions' values before, a condition whose crossed thresholds all
        push it towards the value it has is left out (see :meth:`Heard.stale`): the tests run in C
        (``filter`` on ``values.__getitem__``), not in a Python loop, or they would cost what they save.
        """
        if type(old) is int and type(new) is int:
            low, high = (old, new) if old < new else (new, old)
            if values is None or not self.signed:
                crossed = self.at[bisect_right(self.points, low) : bisect_right(self.points, high)]
                return chain(self.every, self.membership, crossed)
            (up_points, up), (down_points, down), (either_points, either) = self.signed
            rising = up[bisect_right(up_points, low) : bisect_right(up_points, high)]
            falling = down[bisect_right(down_points, low) : bisect_right(down_points, high)]
            if new < old:
                rising, falling = falling, rising
            held = values.__getitem__
            return chain(
                self.every,
                self.membership,
                either[bisect_right(either_points, low) : bisect_right(either_points, high)],
                filterfalse(held, rising),
                filter(held, falling),
            )
        if type(old) is list and type(new) is list and all(type(m) is str for m in chain(old, new)):
            moved = set(old).symmetric_difference(new)
            return chain(self.every, self.numeric, *(self.members.get(m, ()) for m in moved))
        return iter(self.readers)


@dataclass(frozen=True, slots=True)
class Heard:
    """The conditions reading one observation, by the answer they test for.

    An ``observed`` test can change only when the old or the new answer is the one it tests for
    (an unanswered observation passes none). ``every`` test for a value that is not a plain scalar.
    """

    readers: tuple[int, ...]
    every: tuple[int, ...]
    by_answer: Mapping[tuple[bool, Any], tuple[int, ...]]
    signed: Mapping[tuple[bool, Any], tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...]]] = field(
        default_factory=dict
    )
    """``by_answer`` split three ways: the conditions that read that test only outside a ``not``
    (or under an even number of them), only inside, or both ways; empty when signs were not given."""

    def stale(self, old: Any, new: Any, values: Sequence[bool] | None = None) -> Iterable[int]:
        """The conditions that may have changed value when the answer went from ``old`` to ``new``.

        With ``values``, the conditions' values before, a condition is left out when every test
        that changed pushes it towards the value it has: a condition is monotone in a test it reads
        with one sign (``all``, ``any`` and ``not`` are), so the test of the old answer going false
        cannot make true a condition that reads it only outside a ``not`` and is false, and the
        test of the new answer going true cannot make it false. A condition pushed both ways is
        kept by one of the two filters, whatever its value.
        """
        keys = [_answer_key(value) for value in (old, new) if value is not UNANSWERED]
        if any(key is None for key in keys):
            return iter(self.readers)
        if values is None or not self.signed:
            return chain(self.every, *(self.by_answer.get(key, ()) for key in keys if key is not None))
        held = values.__getitem__
        parts: list[Iterable[int]] = [self.every]
        for key, rising in ((_answer_key(old), False), (_answer_key(new), True)):
            if key is None or (split := self.signed.get(key)) is None:
                continue
            positive, negative, both = split
            parts.append(both)
            parts.append(filterfalse(held, positive) if rising else filter(held, positive))
            parts.append(filter(held, negative) if rising else filterfalse(held, negative))
        return chain.from_iterable(parts)


UNANSWERED: Final = object()
"""What :meth:`Heard.stale` takes for an observation not answered yet."""


def heard(
    sources: Sequence[Condition | Mapping[str, Any] | tuple[Leaf, ...]],
    signs: Sequence[Sequence[int]] | None = None,
) -> dict[str, Heard]:
    """The :class:`Heard` of every observation some condition (a tree, its JSON or its leaves) reads.

    ``signs``, parallel to the leaves of each condition, are each leaf's sign (1 outside a
    ``not``, -1 inside one); without them no condition is left out for its value.
    """
    found: dict[str, dict[int, dict[tuple[bool, Any], int] | None]] = {}
    for index, source in enumerate(sources):
        leaf_signs = signs[index] if signs is not None else ()
        for at, node in enumerate(_leaves(source)):
            if not isinstance(node, Observed):
                continue
            tests = found.setdefault(node.id, {})
            key = _answer_key(node.value)
            sign = leaf_signs[at] if at < len(leaf_signs) else 0
            if key is None:
                tests[index] = None
            elif index not in tests:
                tests[index] = {key: sign}
            elif (kept := tests[index]) is not None:
                kept[key] = sign if kept.get(key, sign) == sign else 0
    built: dict[str, Heard] = {}
    for ident, tests in found.items():
        by_answer: dict[tuple[bool, Any], list[int]] = {}
        by_sign: dict[tuple[bool, Any], list[int]] = {}
        for index, keys in tests.items():
            for key, sign in (keys or {}).items():
                by_answer.setdefault(key, []).append(index)
                by_sign.setdefault(key, []).append(sign)
        built[ident] = Heard(
            tuple(tests),
            tuple(i for i, keys in tests.items() if keys is None),
            {key: tuple(indices) for key, indices in by_answer.items()},
            {key: _split(by_answer[key], found) for key, found in by_sign.items()} if signs is not None else {},
        )
    return built


def _split(indices: Sequence[int], signs: Sequence[int]) -> tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...]]:
    """``indices`` split by their ``signs``: 1, -1, and 0 (both ways)."""
    return tuple(tuple(i for i, sign in zip(indices, signs, strict=True) if sign == wanted) for wanted in (1, -1, 0))  # type: ignore[return-value]


def _answer_key(value: Any) -> tuple[bool, Any] | None:
    """An answer as a key equal for the answers the runtime calls equal (``true`` is not ``1``, ``1`` is ``1.0``)."""
    if isinstance(value, bool):
        return (True, value)
    if isinstance(value, str | int) or (isinstance(value, float) and math.isfinite(value)):
        return (False, value)
    return None


def watches(
    sources: Sequence[Condition | Mapping[str, Any] | tuple[Leaf, ...]],
    signs: Sequence[Sequence[int]] | None = None,
) -> dict[str, Watch]:
    """The :class:`Watch` of every top-level member some condition reads with a one-token path.

    A condition is given as a tree, as its JSON or as its leaves; ``signs`` as for :func:`heard`.
    """
    found: dict[str, dict[int, list[Any] | None]] = {}  # key -> condition -> its tests, or None: any change
    for index, source in enumerate(sources):
        leaf_signs = signs[index] if signs is not None else ()
        for position, atom in enumerate(_leaves(source)):
            if not isinstance(atom, Compare) or not (tokens := atom.tokens):
                continue
            tests = found.setdefault(tokens[0], {})
            test: Any = _test(atom) if len(tokens) == 1 else None
            if isinstance(test, tuple):
                sign = leaf_signs[position] if position < len(leaf_signs) else 0
                test = _Points(test, sign * _UPWARD.get(atom.op, 0))
            if test is None:
                tests[index] = None
            elif index not in tests:
                tests[index] = [test]
            elif (kept := tests[index]) is not None:
                kept.append(test)
    return {key: _watch(tests) for key, tests in found.items()}


def _watch(tests: Mapping[int, list[Any] | None]) -> Watch:
    every: list[int] = []
    numeric: list[int] = []
    pairs: list[tuple[int, int, int]] = []
    members: dict[str, list[int]] = {}
    membership: list[int] = []
    for index, kept in tests.items():
        if kept is None or len({type(test) for test in kept}) > 1:  # read some other way, or both ways
            every.append(index)
        elif isinstance(kept[0], str):
            membership.append(index)
            for member in dict.fromkeys(kept):
                members.setdefault(member, []).append(index)
        else:
            numeric.append(index)
            pushes: dict[int, int] = {}
            for test in kept:
                for point in test.points:
                    pushes[point] = test.push if pushes.get(point, test.push) == test.push else 0
            pairs.extend((point, index, push) for point, push in sorted(pushes.items()))
    pairs.sort()
    return Watch(
        readers=tuple(tests),
        every=tuple(every),
        points=tuple(p for p, _, _ in pairs),
        at=tuple(i for _, i, _ in pairs),
        numeric=tuple(numeric),
        members={m: tuple(indices) for m, indices in members.items()},
        membership=tuple(membership),
        signed=tuple(
            (tuple(p for p, _, push in pairs if push == wanted), tuple(i for _, i, push in pairs if push == wanted))
            for wanted in (1, -1, 0)
        ),
    )


class _Points(NamedTuple):
    """An order or equality test's thresholds, and how the member going up across them pushes its condition."""

    points: tuple[int, ...]
    push: int


_UPWARD: Final[Mapping[str, int]] = {"gt": 1, "gte": 1, "lt": -1, "lte": -1}
"""How a member going up pushes an order test (``eq`` and ``ne`` either way: absent)."""


def _test(atom: Compare) -> tuple[int, ...] | str | None:
    """What a one-token comparison tests: its thresholds on an integer, a string's membership, or ``None``."""
    op, value = atom.op, atom.value
    if op == "contains":
        return value if isinstance(value, str) else None
    if op not in _ORDERED or isinstance(value, bool) or not isinstance(value, int | float):
        return None
    if isinstance(value, float) and not math.isfinite(value):
        return None
    floor, ceil = math.floor(value), math.ceil(value)
    if op in ("gte", "lt"):  # holds (or not) from ceil(value) up
        return (ceil,)
    if op in ("gt", "lte"):  # from floor(value) + 1 up
        return (floor + 1,)
    return (floor, floor + 1) if floor == ceil else ()  # eq/ne: only an integral value is ever equal


def _leaves(source: Condition | Mapping[str, Any] | tuple[Leaf, ...]) -> Sequence[Leaf]:
    """The leaves of a condition given as a tree, as its JSON (what does not parse has none) or as its leaves."""
    if isinstance(source, tuple):
        return source
    if isinstance(source, Mapping):
        try:
            source = parse(source)
        except ConditionError:
            return []
    return leaves(source)
