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

__all__ = ["OpenRules", "open_rules", "picker"]


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


def _open(positions: Sequence[int], items: Sequence[Any], whens: Sequence[int]) -> _Open:
    return _Open(tuple(positions), tuple(items), tuple(whens), picker(whens))


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


def open_rules(
    completed: frozenset[str],
    ids: Sequence[Any],
    whens: Sequence[int],
    instructions: Sequence[str | None],
    completable: Sequence[str],
) -> OpenRules:
    """The :class:`OpenRules` of a session that completed ``completed`` (rules given as parallel sequences).

    ``completable`` are the ids of the rules with a completion, in document order.
    """
    kept = [p for p, ident in enumerate(ids) if ident not in completed]
    told = [p for p in kept if instructions[p] is not None]
    return OpenRules(
        completed,
        _open(kept, [ids[p] for p in kept], [whens[p] for p in kept]),
        _open(told, [instructions[p] for p in told], [whens[p] for p in told]),
        tuple(compress(completable, map(completed.__contains__, completable))) if completed else (),
    )
