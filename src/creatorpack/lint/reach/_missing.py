"""For a goal left undecided, the invariant a proof lacked: the states its condition needs, named.

Lint proves a goal unreachable when its condition holds in no state of an over-approximation (the
boxes turn by turn). When it may hold there and no play reached it, a creator wants to know what
a proof would have to show. Narrowing each box to where the condition may hold gives exactly that:
every state in which the goal holds has those members in those ranges, so the invariant "no
reachable state has them there at once" would prove it, and is what the boxes could not state
(usually because it needs a relation between members, which no box expresses).

Where the guided search's own plays never came near the states the condition needs (a member
outside what every turn it played left), the finding says so too: either that is the invariant,
or the plays that break it are longer or rarer than the search's. On the runtime benchmark pack
it is said of 507 of the 583 goals left undecided, mostly a counter that every play kept high.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

from creatorpack._json import pointer
from creatorpack.contract.conditions import Condition, Observed, leaves
from creatorpack.lint.reach._abstract import Abstract, Analysis, IntRange, Members, Value, holds
from creatorpack.play.conditions import resolve

__all__ = ["ANALYSIS_BOX", "INDUCTIVE_BOX", "MIXED_BOXES", "TURN_BOXES", "Played", "missing_invariant", "played"]

TURN_BOXES: Final = "the boxes turn by turn"
INDUCTIVE_BOX: Final = "the inductive box"
ANALYSIS_BOX: Final = "the analysis's box"
MIXED_BOXES: Final = "the boxes of the entries"
"""What the boxes a finding names are (each entry's may differ: then :data:`MIXED_BOXES`)."""


@dataclass(frozen=True, slots=True)
class Played:
    """What the turns the guided search played from one entry left: the smallest box holding those states."""

    box: Abstract
    turns: int


def played(analysis: Analysis, states: Iterable[Mapping[str, Any]]) -> Played | None:
    """The smallest box holding ``states`` (those after the turns played from ``analysis``'s entry); None: none."""
    found = list(states)
    if not found:
        return None
    made: list[Value] = []
    for tokens, domain in zip(analysis.variables, analysis.after, strict=True):
        values = [resolve(state, tokens) for state in found]
        if isinstance(domain, IntRange):
            made.append(IntRange(min(values), max(values)))
        else:
            sets = [frozenset(m for m in value if isinstance(m, str)) for value in values]
            made.append(Members(frozenset.intersection(*sets), frozenset.union(*sets)))
    return Played(tuple(made), len(found))


def missing_invariant(
    condition: Condition,
    analyses: Sequence[Analysis],
    boxes: Sequence[Sequence[Abstract]],
    *,
    scoped: bool,
    before: bool,
    source: str = TURN_BOXES,
    plays: Sequence[Played | None] = (),
) -> str:
    """What a proof that ``condition`` never holds lacks, said for a finding (see the module docstring).

    ``boxes`` are, for each analysis, the boxes (turn by turn, or the analysis's own) that hold every
    state the condition is read in. ``scoped``: ``analyses`` are only some of the pack's entries.
    ``before``: the condition is read before a turn (a rule's ``when``), not after one. ``source``
    names the boxes (:data:`TURN_BOXES`, :data:`INDUCTIVE_BOX`, ...). ``plays``, for each analysis
    when given, what the guided search's turns from its entry left (:func:`played`).
    """
    plural = source not in (INDUCTIVE_BOX, ANALYSIS_BOX)
    allow = "allow" if plural else "allows"
    states = "state a turn is taken from" if before else "reachable state"
    for at, (analysis, held) in enumerate(zip(analyses, boxes, strict=True)):
        needs = _needs(analysis, condition, held)
        if needs is None:
            continue
        entry = f"in sessions of entry {analysis.entry!r}, " if scoped or len(analyses) > 1 else ""
        if not needs:
            return (
                f"{entry}no bound on the state's members rules it out: the states {source} {allow} "
                "include some in which it may hold, so it waits on answers and on what rules did, and a longer "
                "search may reach it"
            )
        wanted = " and ".join(f"`{pointer(analysis.variables[i])}` {_said(value, whole)}" for i, value, whole in needs)
        allowed = ", ".join(f"`{pointer(analysis.variables[i])}` {_show(whole)}" for i, _, whole in needs)
        asked = list(dict.fromkeys(leaf.id for leaf in leaves(condition) if isinstance(leaf, Observed)))
        if asked:
            together = " together with the answers it reads (" + ", ".join(f"`{a}`" for a in asked) + ")"
        else:
            together = " at once" if len(needs) > 1 else ""
        seen = _unseen(analysis, needs, plays[at] if at < len(plays) else None)
        return (
            f"a proof that it is unreachable would need the invariant that {entry}no {states} has "
            f"{wanted}{together}, which {source} {'do' if plural else 'does'} not give "
            f"({'they allow' if plural else 'it allows'} {allowed}){seen}"
        )
    if source == TURN_BOXES:
        return "the boxes turn by turn did not settle, so no invariant was looked for"
    return "no box that holds every reachable state was found, so no invariant was looked for"


def _unseen(analysis: Analysis, needs: Sequence[tuple[int, Value, Value]], plays: Played | None) -> str:
    """The members the search's plays never took where the condition needs them, said as evidence ("" if none)."""
    if plays is None:
        return ""
    apart = [(i, value, plays.box[i]) for i, value, _ in needs if _disjoint(value, plays.box[i])]
    if not apart:
        return ""
    kept = " and ".join(f"`{pointer(analysis.variables[i])}` {_kept(value, seen)}" for i, value, seen in apart)
    turns = f"all {plays.turns:,} turns" if plays.turns > 1 else "the one turn"
    return (
        f"; {turns} the guided search played left {kept}: either every play does (an invariant no box here "
        "could prove) or the plays that do not are beyond this search"
    )


def _disjoint(needed: Value, seen: Value) -> bool:
    """Whether no value the condition needs (``needed``) is among those the plays left (``seen``)."""
    if isinstance(needed, IntRange) and isinstance(seen, IntRange):
        return needed.high < seen.low or needed.low > seen.high
    assert isinstance(needed, Members)
    assert isinstance(seen, Members)
    return bool(needed.must - seen.may) or bool(seen.must - needed.may)


def _kept(needed: Value, seen: Value) -> str:
    """What every play left a member at, against what the condition needs: ``in 18..20``, ``= 20``, ``without 'b'``."""
    if isinstance(seen, IntRange):
        return f"= {seen.low}" if seen.low == seen.high else f"in {seen.low}..{seen.high}"
    assert isinstance(needed, Members)
    parts = [f"without {m!r}" for m in sorted(needed.must - seen.may)]
    parts += [f"holding {m!r}" for m in sorted(seen.must - needed.may)]
    return " and ".join(parts)


def _needs(analysis: Analysis, condition: Condition, held: Sequence[Abstract]) -> list[tuple[int, Value, Value]] | None:
    """Each member the condition narrows: its values where the condition may hold, and in the boxes it may hold in.

    ``None`` when the condition holds in none of the boxes. Only the boxes it may hold in are
    compared, so a member that merely differs between turns (a set empty at the start and holding
    a member from the first turn on) is not taken for one the condition needs.
    """
    narrowed: Abstract | None = None
    whole: Abstract | None = None
    for box in held:
        where = holds(analysis, condition, box)
        if where is not None:
            narrowed = where if narrowed is None else _join(narrowed, where)
            whole = box if whole is None else _join(whole, box)
    if narrowed is None or whole is None:
        return None
    return [(i, value, all_) for i, (value, all_) in enumerate(zip(narrowed, whole, strict=True)) if value != all_]


def _join(left: Abstract, right: Abstract) -> Abstract:
    return tuple(a.join(b) for a, b in zip(left, right, strict=True))  # type: ignore[arg-type]


def _said(value: Value, whole: Value) -> str:
    """The narrowed values said against the box's: ``at most 5``, ``at least 15``, ``holding 'a'``, ``without 'b'``."""
    if isinstance(value, IntRange) and isinstance(whole, IntRange):
        if value.low == value.high:
            return f"= {value.low}"
        if value.low == whole.low:
            return f"at most {value.high}"
        if value.high == whole.high:
            return f"at least {value.low}"
        return f"in {value.low}..{value.high}"
    assert isinstance(value, Members)
    assert isinstance(whole, Members)
    parts = [f"holding {m!r}" for m in sorted(value.must - whole.must)]
    parts += [f"without {m!r}" for m in sorted(whole.may - value.may)]
    return " and ".join(parts)


def _show(value: Value) -> str:
    if isinstance(value, IntRange):
        return value.show()
    return "{" + ", ".join(sorted(value.may)) + "}"
