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
from dataclasses import dataclass, field
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
    """The active rules on a session's values: their positions and ids, and those with an instruction.

    ``positions`` are the open rules whose ``when`` holds (document order) and ``ids`` their ids;
    ``told`` and ``texts`` the same for the rules with an instruction. A turn changes only the
    rules whose ``when`` flipped or that completed (:meth:`after`): the new tuples are the old
    ones spliced where those rules stand (slices copied whole), not a look at every rule's ``when``.
    """

    positions: tuple[int, ...]
    ids: tuple[Any, ...]
    told: tuple[int, ...]
    texts: tuple[str, ...]
    basis: tuple[Any, Any] = (None, None)
    """The values and the completed set these are of (compared by identity: see :meth:`fits`)."""
    pending: Mapping[int, bool] = field(default_factory=dict)
    """Rules (by position) put in (True) or out of the tuples by a deferred :meth:`after`, not spliced in yet."""
    listed: tuple[str, ...] = ()
    """The completed rules with a completion, in document order (what a turn result lists), of ``basis[1]``."""

    def fits(self, values: Any, completed: Any) -> bool:
        """Whether these are the active rules of ``values`` and ``completed`` (the very objects they were made of)."""
        return self.basis[0] is values and self.basis[1] is completed

    @classmethod
    def of(
        cls,
        values: Sequence[bool],
        pick: Callable[[Sequence[bool]], Sequence[bool]],
        closed: Iterable[int],
        table: Sequence[Any],
        instructions: Sequence[str | None],
        basis: tuple[Any, Any],
        listed: tuple[str, ...] = (),
    ) -> Held:
        """The active rules on ``values``: ``pick`` gives each rule's ``when``; ``closed``, the completed ones.

        ``table`` are the rules' ids and ``instructions`` their instructions (None: none), by position;
        ``basis`` the values and completed set; ``listed`` the completed rules that have a completion,
        in document order.
        """
        mask = bytearray(pick(values))
        for position in closed:
            mask[position] = 0
        positions = tuple(compress(range(len(mask)), mask))
        told = tuple(p for p in positions if instructions[p] is not None)
        ids = _take(table, positions)
        texts: tuple[str, ...] = _take(instructions, told)
        return cls(positions, ids, told, texts, basis, {}, listed)

    def after(
        self,
        values: Sequence[bool],
        flipped: Iterable[int],
        by_when: Mapping[int, Sequence[int]],
        table: Sequence[Any],
        instructions: Sequence[str | None],
        is_open: Callable[[int], bool],
        basis: tuple[Any, Any],
        closed: Iterable[int] = (),
        *,
        defer: bool = False,
        listed: tuple[str, ...] | None = None,
    ) -> Held:
        """These once the conditions ``flipped`` took their ``values`` and the rules at ``closed`` completed.

        ``by_when`` maps a condition to the rules whose ``when`` it is, ``table`` and
        ``instructions`` are the rules' ids and instructions by position, and ``is_open`` tells
        whether a rule is not completed. With ``defer``, the changes are kept in :attr:`pending`
        and spliced in by the next ``after`` without it, together with its own (a turn ends with
        one and starts with another: one splice a turn instead of two). ``listed``: that of the
        new completed set, when it changed (see :attr:`listed`).
        """
        if listed is None:
            listed = self.listed
        now: dict[int, bool] = dict(self.pending)
        for index in flipped:
            for position in by_when.get(index, ()):
                now[position] = bool(values[index]) and is_open(position)
        for position in closed:
            now[position] = False
        if defer or not now:
            return Held(self.positions, self.ids, self.told, self.texts, basis, now, listed)
        positions, ids = _spliced_by(self.positions, self.ids, now, table)
        told = {p: held for p, held in now.items() if instructions[p] is not None}
        if told:
            kept, texts = _spliced_by(self.told, self.texts, told, instructions)
            return Held(positions, ids, kept, texts, basis, {}, listed)
        return Held(positions, ids, self.told, self.texts, basis, {}, listed)


def _spliced_by(
    positions: tuple[int, ...], items: tuple[Any, ...], now: Mapping[int, bool], table: Sequence[Any]
) -> tuple[tuple[int, ...], tuple[Any, ...]]:
    """``positions`` and their ``items``, each position of ``now`` put in (True) or out; ``table[p]``: its item."""
    new_positions: list[int] = []
    new_items: list[Any] = []
    start = 0
    for position in sorted(now):
        at = bisect_left(positions, position, start)
        present = at < len(positions) and positions[at] == position
        if present is now[position]:
            continue
        new_positions.extend(positions[start:at])
        new_items.extend(items[start:at])
        if now[position]:
            new_positions.append(position)
            new_items.append(table[position])
            start = at
        else:
            start = at + 1
    if not new_positions and start == 0:
        return positions, items
    new_positions.extend(positions[start:])
    new_items.extend(items[start:])
    return tuple(new_positions), tuple(new_items)
