"""The rules a session has not completed, kept so that a turn finds its active rules in C, not in Python.

A turn's active rules are those whose ``when`` holds and that are not completed, in document
order. Filtering ten thousand rule ids against the completed set cost more than applying every
effect; :class:`OpenRules` holds the open rules' ids and ``when`` indices (and those of the open
guidance rules with an instruction) with an ``operator.itemgetter`` over them, so that the active
rules are one ``itemgetter`` call and one ``itertools.compress``. The completed set changes on
few turns: :meth:`OpenRules.without` drops the newly completed rules by slicing.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from itertools import compress
from operator import itemgetter
from typing import Any

__all__ = ["Held", "OpenRules", "open_rules", "picker"]


def picker(indices: Sequence[int]) -> Callable[[Sequence[bool]], Sequence[bool]]:
    """A function from condition values to those at ``indices``, in order (``operator.itemgetter``, as a sequence)."""
    if len(indices) >= 2:  # itemgetter of one index returns the item, not a tuple
        return itemgetter(*indices)
    return lambda values: [values[i] for i in indices]


@dataclass(frozen=True, slots=True)
class _Open:
    """Rules by position in document order, with their ids, texts and ``when`` indices (parallel tuples)."""

    positions: tuple[int, ...]
    items: tuple[Any, ...]
    whens: tuple[int, ...]
    pick: Callable[[Sequence[bool]], Sequence[bool]]

    def held(self, values: Sequence[bool]) -> tuple[Any, ...]:
        return tuple(compress(self.items, self.pick(values)))

    def without(self, removed: Iterable[int]) -> _Open:
        positions = self.positions
        cuts = sorted(i for r in removed if (i := bisect_left(positions, r)) < len(positions) and positions[i] == r)
        if not cuts:
            return self
        spans = list(zip([0, *(cut + 1 for cut in cuts)], [*cuts, len(positions)], strict=True))
        whens = _spliced(self.whens, spans)
        return _Open(_spliced(positions, spans), _spliced(self.items, spans), whens, picker(whens))


def _spliced(items: tuple[Any, ...], spans: Iterable[tuple[int, int]]) -> tuple[Any, ...]:
    """The ``items[a:b]`` of ``spans``, one after the other (slices copied whole, not item by item)."""
    kept: list[Any] = []
    for start, stop in spans:
        kept.extend(items[start:stop])
    return tuple(kept)


@dataclass(frozen=True, slots=True)
class OpenRules:
    """The rules not in ``completed``: their ids, and the instructions of the guidance rules among them."""

    completed: frozenset[str]
    rules: _Open
    instructed: _Open
    listed: tuple[str, ...] = ()
    """The completed rules with a completion, in document order (what a turn result lists)."""

    def fits(self, completed: frozenset[str]) -> bool:
        """Whether these are the open rules of a session that completed ``completed``."""
        return self.completed is completed or self.completed == completed

    def active(self, values: Sequence[bool]) -> tuple[Any, ...]:
        """The ids of the open rules whose ``when`` holds, in document order."""
        return self.rules.held(values)

    def instructions(self, values: Sequence[bool]) -> tuple[str, ...]:
        """The instructions of the open guidance rules whose ``when`` holds, in document order."""
        return self.instructed.held(values)

    def without(
        self,
        newly: Iterable[Any],
        completed: frozenset[str],
        at: Mapping[Any, Sequence[int]],
        completable: Sequence[str],
    ) -> OpenRules:
        """These rules once ``newly`` completed too (``at``: each rule id's positions); ``completed`` is the new set.

        ``completable`` are the ids of the rules with a completion, in document order.
        """
        removed = sorted({p for ident in newly for p in at.get(ident, ())})
        listed = tuple(compress(completable, map(completed.__contains__, completable)))
        return OpenRules(completed, self.rules.without(removed), self.instructed.without(removed), listed)


def _take(items: Sequence[Any], indices: Sequence[int]) -> tuple[Any, ...]:
    """``items`` at ``indices``, as a tuple (``itemgetter`` in C; of one index it gives the item itself)."""
    if len(indices) >= 2:
        taken: tuple[Any, ...] = itemgetter(*indices)(items)
        return taken
    return tuple(items[i] for i in indices)


def open_rules(
    completed: frozenset[str],
    ids: Sequence[Any],
    whens: Sequence[int],
    instructions: Sequence[str | None],
    completable: Sequence[str],
    at: Mapping[Any, Sequence[int]],
    instructed: frozenset[int] | None = None,
) -> OpenRules:
    """The :class:`OpenRules` of a session that completed ``completed`` (rules given as parallel sequences).

    ``completable`` are the ids of the rules with a completion, in document order; ``at`` maps a
    rule id to the positions of the rules with that id; ``instructed``, the positions of the rules
    with an instruction (found when not given). Sets and ``itemgetter`` do the work in C: a session
    loaded from a save builds these on its first turn.
    """
    if instructed is None:
        instructed = frozenset(p for p, text in enumerate(instructions) if text is not None)
    gone: set[int] = set()
    for ident in completed:
        gone.update(at.get(ident, ()))
    kept = sorted(set(range(len(ids))).difference(gone))
    told = sorted(instructed.difference(gone))
    kept_whens, told_whens = _take(whens, kept), _take(whens, told)
    return OpenRules(
        completed,
        _Open(tuple(kept), _take(ids, kept), kept_whens, picker(kept_whens)),
        _Open(tuple(told), _take(instructions, told), told_whens, picker(told_whens)),
        tuple(compress(completable, map(completed.__contains__, completable))) if completed else (),
    )


@dataclass(frozen=True, slots=True)
class Held:
    """Which rules are active on a session's values: a byte per rule, and a byte per rule with an instruction.

    ``rules[p]`` is 1 when rule ``p`` (document order) is open and its ``when`` holds;
    ``told[i]`` the same for the ``i``-th rule with an instruction. A turn changes only the bytes
    of the rules whose ``when`` flipped or that completed (:meth:`after`), so the active rules are
    one ``itertools.compress`` over the rule ids, not a look at every rule's ``when``.
    """

    rules: bytes
    told: bytes
    basis: tuple[Any, Any] = (None, None)
    """The values and the completed set these bytes are of (compared by identity: see :meth:`fits`)."""

    def fits(self, values: Any, completed: Any) -> bool:
        """Whether these are the bytes of ``values`` and ``completed`` (the very objects they were made of)."""
        return self.basis[0] is values and self.basis[1] is completed

    @classmethod
    def of(
        cls,
        values: Sequence[bool],
        pick: Callable[[Sequence[bool]], Sequence[bool]],
        closed: Iterable[int],
        told: Sequence[int],
        basis: tuple[Any, Any],
    ) -> Held:
        """The bytes of ``values``: ``pick`` gives each rule's ``when``; ``closed`` are the completed rules' positions.

        ``told`` are the positions of the rules with an instruction; ``basis`` the values and completed set.
        """
        rules = bytearray(pick(values))
        for position in closed:
            rules[position] = 0
        return cls(bytes(rules), bytes(_take(rules, told)) if told else b"", basis)

    def after(
        self,
        values: Sequence[bool],
        flipped: Iterable[int],
        by_when: Mapping[int, Sequence[int]],
        told_at: Mapping[int, int],
        is_open: Callable[[int], bool],
        basis: tuple[Any, Any],
        closed: Iterable[int] = (),
    ) -> Held:
        """These bytes once the conditions ``flipped`` took their ``values`` and the rules at ``closed`` completed.

        ``by_when`` maps a condition to the rules whose ``when`` it is, ``told_at`` a rule with an
        instruction to its place among them, and ``is_open`` tells whether a rule is not completed.
        """
        rules: bytearray | None = None
        told: bytearray | None = None
        for index in flipped:
            for position in by_when.get(index, ()):
                if rules is None:
                    rules, told = bytearray(self.rules), bytearray(self.told)
                value = 1 if values[index] and is_open(position) else 0
                rules[position] = value
                if (at := told_at.get(position)) is not None and told is not None:
                    told[at] = value
        for position in closed:
            if rules is None:
                rules, told = bytearray(self.rules), bytearray(self.told)
            rules[position] = 0
            if (at := told_at.get(position)) is not None and told is not None:
                told[at] = 0
        if rules is None or told is None:
            return Held(self.rules, self.told, basis)
        return Held(bytes(rules), bytes(told), basis)
