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
from itertools import chain
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
    pushes: tuple[int, ...] = ()
    """Parallel to ``at``: 1 when the member going up across the point can only make the condition
    true (an order test outside a ``not``, or a ``lt``/``lte`` inside one), -1 only false, 0 either."""

    def stale(self, old: Any, new: Any, values: Sequence[bool] | None = None) -> Iterable[int]:
        """The conditions that may have changed value when the member went from ``old`` to ``new``.

        With ``values``, the conditions' values before, a condition whose crossed thresholds all
        push it towards the value it has is left out (see :meth:`Heard.stale`).
        """
        if type(old) is int and type(new) is int:
            low, high = (old, new) if old < new else (new, old)
            start, stop = bisect_right(self.points, low), bisect_right(self.points, high)
            if values is None or not self.pushes:
                return chain(self.every, self.membership, self.at[start:stop])
            up = 1 if new > old else -1
            pushes: dict[int, int] = {}
            for index, sign in zip(self.at[start:stop], self.pushes[start:stop], strict=True):
                push = up * sign
                pushes[index] = push if pushes.get(index, push) == push else 0
            stale = [*self.every, *self.membership]
            stale.extend(i for i, push in pushes.items() if push == 0 or values[i] is not (push > 0))
            return stale
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
    signs: Mapping[tuple[bool, Any], tuple[int, ...]] = field(default_factory=dict)
    """Parallel to ``by_answer``: 1 when the condition reads that test only outside a ``not`` (or
    under an even number of them), -1 only inside, 0 both ways or unknown."""

    def stale(self, old: Any, new: Any, values: Sequence[bool] | None = None) -> Iterable[int]:
        """The conditions that may have changed value when the answer went from ``old`` to ``new``.

        With ``values``, the conditions' values before, a condition is left out when every test
        that changed pushes it towards the value it has: a condition is monotone in a test it reads
        with one sign (``all``, ``any`` and ``not`` are), so the test of the old answer going false
        cannot make true a condition that reads it only outside a ``not`` and is false, and the
        test of the new answer going true cannot make it false.
        """
        keys = [_answer_key(value) for value in (old, new) if value is not UNANSWERED]
        if any(key is None for key in keys):
            return iter(self.readers)
        if values is None or not self.signs:
            return chain(self.every, *(self.by_answer.get(key, ()) for key in keys if key is not None))
        pushes: dict[int, int] = {}
        for key, rising in ((_answer_key(old), -1), (_answer_key(new), 1)):
            if key is None or key not in self.by_answer:
                continue
            for index, sign in zip(self.by_answer[key], self.signs[key], strict=True):
                push = rising * sign
                pushes[index] = push if pushes.get(index, push) == push else 0
        stale = list(self.every)
        stale.extend(i for i, push in pushes.items() if push == 0 or values[i] is not (push > 0))
        return stale


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
            {key: tuple(found_signs) for key, found_signs in by_sign.items()} if signs is not None else {},
        )
    return built


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
        pushes=tuple(push for _, _, push in pairs),
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
