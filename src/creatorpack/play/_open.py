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
from collections.abc import Callable, Container, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from itertools import chain, compress
from operator import itemgetter
from typing import Any, Final

__all__ = ["Held", "OpenRules", "open_rules", "picker", "rule_kinds"]


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


_OUT: Final = 0
"""A rule's mark in :attr:`Held.marks` when it is not active."""
_ACTIVE: Final = 1
"""The mark of an active rule with no instruction: its id is in :attr:`Held.ids`."""
_TOLD: Final = 2
"""The mark of an active rule with an instruction: its id is in :attr:`Held.ids`, its text in :attr:`Held.texts`."""


def rule_kinds(instructions: Sequence[str | None]) -> tuple[bytes, int]:
    """Each rule's mark when active (:data:`_ACTIVE`, or :data:`_TOLD` if it has an instruction); those told, as bits.

    The bits are an ``int`` with a byte a rule (1 for a rule with an instruction), so that
    :meth:`Held.of` marks ten thousand rules with two operations on integers, not a call a rule.
    A program makes them once (:class:`~creatorpack.play.program.RuleTable`): a session loaded from
    a save makes its :class:`Held` on its first turn, which the service does on every turn it plays.
    """
    told = bytes(text is not None for text in instructions)
    return told.translate(_KIND_OF), int.from_bytes(told, "little")


_KIND_OF: Final = bytes([_ACTIVE, _TOLD]) + bytes(254)
"""A rule told or not (1 or 0) -> its mark when active (for ``bytes.translate``)."""


@dataclass(frozen=True, slots=True)
class Held:
    """The active rules on a session's values: their ids, and the instructions of those that have one.

    ``marks`` has a byte a rule (by position): 0 for a rule that is not active (its ``when`` does
    not hold, or it completed), else :data:`_ACTIVE` or :data:`_TOLD`. ``ids`` are the ids of the
    rules marked, in document order, and ``texts`` the instructions of those marked :data:`_TOLD`.
    A turn changes only the rules whose ``when`` flipped or that completed (:meth:`after`): the new
    tuples are the old ones spliced where those rules stand (slices copied whole), and where that is
    in the old tuples is counted in the marks (``bytes.count``, in C), not looked up in a tuple of positions.
    """

    marks: bytes
    ids: tuple[Any, ...]
    texts: tuple[str, ...]
    basis: tuple[Any, Any] = (None, None)
    """The values and the completed set these are of (compared by identity: see :meth:`fits`)."""
    pending: tuple[int, ...] = ()
    """Conditions that flipped since ``ids`` were made (a deferred :meth:`after`): their rules are looked at next."""
    closing: tuple[int, ...] = ()
    """Rules (by position) that completed since ``ids`` were made (a deferred :meth:`after`)."""
    listed: tuple[str, ...] = ()
    """The completed rules with a completion, in document order (what a turn result lists), of ``basis[1]``."""
    kinds: bytes = b""
    """Each rule's mark when active (see :func:`rule_kinds`): made once, shared by every :class:`Held` after it."""
    spare: list[list[bool]] = field(default_factory=list)
    """The values of ``basis`` as a list, for the next turn to take (:meth:`take`) and change in place; at most one."""

    def fits(self, values: Any, completed: Any) -> bool:
        """Whether these are the active rules of ``values`` and ``completed`` (the very objects they were made of)."""
        return self.basis[0] is values and self.basis[1] is completed

    def take(self, values: Sequence[bool]) -> list[bool]:
        """``values`` (those of :attr:`basis`) as a list of the caller's own, to change in place.

        The turn that made these values left the list it made them from (:attr:`spare`); the first
        to take it has it (``list.pop`` is atomic: a session stepped twice, by two threads or one,
        gets it once), any later caller a copy. That saves copying the 13,270 values of the runtime
        benchmark pack a turn, and keeps no more than one list a session.
        """
        try:
            return self.spare.pop()
        except IndexError:
            return list(values)

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
        made: tuple[bytes, int] | None = None,
    ) -> Held:
        """The active rules on ``values``: ``pick`` gives each rule's ``when``; ``closed``, the completed ones.

        ``table`` are the rules' ids and ``instructions`` their instructions (None: none), by position;
        ``basis`` the values and completed set; ``listed`` the completed rules that have a completion,
        in document order; ``made``, :func:`rule_kinds` of ``instructions`` when the caller keeps them.
        """
        mask = bytearray(pick(values))
        for position in closed:
            mask[position] = 0
        kinds, told_bits = rule_kinds(instructions) if made is None else made
        positions = tuple(compress(range(len(mask)), mask))
        active = int.from_bytes(mask, "little")  # a byte a rule, 0 or 1: adding the told ones makes them 2
        marks = (active + (active & told_bits)).to_bytes(len(mask), "little")
        told = tuple(p for p in positions if kinds[p] == _TOLD)
        ids = _take(table, positions)
        texts: tuple[str, ...] = _take(instructions, told)
        return cls(marks, ids, texts, basis, (), (), listed, kinds)

    def after(
        self,
        values: Sequence[bool],
        flipped: Iterable[int],
        by_when: Mapping[int, Sequence[int]],
        table: Sequence[Any],
        instructions: Sequence[str | None],
        completed: Container[Any],
        basis: tuple[Any, Any],
        closed: Iterable[int] = (),
        *,
        defer: bool = False,
        listed: tuple[str, ...] | None = None,
        spare: list[bool] | None = None,
    ) -> Held:
        """These once the conditions ``flipped`` took their ``values`` and the rules at ``closed`` completed.

        ``by_when`` maps a condition to the rules whose ``when`` it is, ``table`` and
        ``instructions`` are the rules' ids and instructions by position, and ``completed`` the
        ids of the completed rules (a rule whose id is in it is not active). With ``defer``, the
        flipped conditions and closed rules are kept in :attr:`pending` and :attr:`closing` and
        looked at by the next ``after`` without it, together with its own (a turn ends with one and
        starts with another: one splice a turn instead of two). A rule's mark is found from the
        values and ``completed`` at that time, so a rule looked at twice is marked once.
        ``listed``: that of the new completed set, when it changed (see :attr:`listed`); ``spare``,
        the values of ``basis`` as a list the caller is done with (see :meth:`take`), with ``defer``.
        """
        if listed is None:
            listed = self.listed
        if defer:
            pending, closing = (*self.pending, *flipped), (*self.closing, *closed)
            kept = [spare] if spare is not None else []
            return Held(self.marks, self.ids, self.texts, basis, pending, closing, listed, self.kinds, kept)
        marks, kinds = self.marks, self.kinds
        changes: dict[int, int] = {}
        for position in chain(self.closing, closed):
            if marks[position]:
                changes[position] = _OUT
        for index in chain(self.pending, flipped):
            for position in by_when.get(index, ()):
                if values[index] and table[position] not in completed:
                    if marks[position] != (mark := kinds[position]):
                        changes[position] = mark
                elif marks[position]:
                    changes[position] = _OUT
        if not changes:
            return Held(marks, self.ids, self.texts, basis, (), (), listed, kinds)
        return self._spliced(changes, table, instructions, basis, listed)

    def _spliced(
        self,
        changes: Mapping[int, int],
        table: Sequence[Any],
        instructions: Sequence[str | None],
        basis: tuple[Any, Any],
        listed: tuple[str, ...],
    ) -> Held:
        """These with each rule of ``changes`` (position -> its new mark, never its old one) marked anew."""
        marks, ids, texts = self.marks, self.ids, self.texts
        new_ids: list[Any] = []
        new_texts: list[str] = []
        new_marks = bytearray(marks)
        at = told = start = 0  # where ``start`` (a position) stands in ``ids`` and in ``texts``
        count = marks.count
        for position in sorted(changes):
            if position > start:  # the rules between the last change and this one, as they were
                if kept := position - start - count(_OUT, start, position):
                    new_ids += ids[at : at + kept]
                    at += kept
                if spoken := count(_TOLD, start, position):
                    new_texts += texts[told : told + spoken]
                    told += spoken
            old = marks[position]
            if old:  # out of the old tuples
                at += 1
                if old == _TOLD:
                    told += 1
            new = new_marks[position] = changes[position]
            if new:
                new_ids.append(table[position])
                if new == _TOLD:
                    new_texts.append(instructions[position])  # type: ignore[arg-type]
            start = position + 1
        new_ids += ids[at:]
        new_texts += texts[told:]
        return Held(bytes(new_marks), tuple(new_ids), tuple(new_texts), basis, (), (), listed, self.kinds)
