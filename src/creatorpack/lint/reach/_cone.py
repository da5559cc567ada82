"""Proofs in a goal's cone of influence: the exhaustive search run on the part of the pack a goal depends on.

A goal reads some state members. The rules whose effects write one of them read others (their
``when`` and ``completion``) and write others too (a rule applies all its effects or none, so an
effect refused on another member holds this one back). Closed under both, those members are the
goal's *cone*; the rules that write them are its rules.

No rule outside the cone writes a member inside it, so every play of the pack, seen on the cone's
members, is a play of the *slice*: the pack with only the cone's rules, the goal, and the endings
whose conditions read nothing outside the cone. (The other endings may stop a play of the pack
sooner; without them the slice plays on, which only adds plays.) No other member is read, so the
slice's state leaves them out (or, when its schema is not a plain object's, keeps their starts).
So when :func:`~creatorpack.lint.reach._exhaust.explore` explores every reachable state of the
slice and never meets the goal, no play of the pack meets it either.

That explored set is the exact relation between the cone's members, the answers and the rules
completed, so a slice decides what needs a relation no box states ("mood falls only on a turn the
ending stops"; "two counters every rule moves together") in a pack far too big to explore whole.
A slice's play is the pack's only if no ending it left out stops it: each goal a slice reaches is
played again on the whole pack, and is witnessed only if that play reaches it there too.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Final

import orjson

from creatorpack.contract.conditions import Compare, Condition, Goal, leaves
from creatorpack.lint.reach._abstract import Analysis, analyse, boxed, tree_of
from creatorpack.lint.reach._exhaust import FAST, explore
from creatorpack.lint.reach._witness import Reached, Target
from creatorpack.play.engine import Engine, Turn
from creatorpack.play.program import Program

__all__ = ["CONE_SHARE", "CONE_SLICES", "Cone", "Cones", "Decided", "condition_reads", "cone_of", "prove_in_cones"]

CONE_SHARE: Final = 1
"""The states all the slices of one lint may explore, as a multiple of the exhaustive search's bound.

Each slice gets at most that bound too (scaled to its size as the whole pack's search is); the
slices go smallest first, so the budget goes where it decides the most goals."""

CONE_SLICES: Final = 2_048
"""The most slices one lint cuts: each is compiled as a pack of its own, so a pack of thousands of
small, separate parts costs a bounded number of compilations (the story pack has 100; a pack of
1,000 separate pairs of counters, 1,001, in 2.9 s)."""


@dataclass(frozen=True, slots=True)
class Cone:
    """A goal's cone of influence: the top-level state members it depends on, and the rules that write them.

    ``rules`` are the positions, in ``runtime.rules``, of the rules whose effects write a member.
    """

    members: frozenset[str]
    rules: frozenset[int]


@dataclass(frozen=True, slots=True)
class Decided:
    """What the slices decided: proofs (with their reason) and witnesses (replayed on the whole pack), by goal."""

    proofs: Mapping[Goal, str]
    witnesses: Mapping[Goal, Reached]


class _Reads:
    """The top-level state members each compiled condition of a program reads (``None``: the whole state)."""

    def __init__(self, program: Program) -> None:
        self._program = program
        self._cache: dict[int, frozenset[str] | None] = {}

    def of(self, index: int | None) -> frozenset[str] | None:
        if index is None:
            return frozenset()
        if index not in self._cache:
            self._cache[index] = condition_reads(tree_of(self._program.conditions[index]))
        return self._cache[index]


def condition_reads(condition: Condition) -> frozenset[str] | None:
    """The top-level state members ``condition`` compares (``None`` when it compares the whole state)."""
    found: set[str] = set()
    for leaf in leaves(condition):
        if isinstance(leaf, Compare) and leaf.tokens is not None:
            if not leaf.tokens:
                return None
            found.add(leaf.tokens[0])
    return frozenset(found)


class Cones:
    """The cones of a program's goals, each member's made once (a cone is the union of its members' cones)."""

    def __init__(self, program: Program, reads: _Reads | None = None) -> None:
        self.program = program
        self.reads = _Reads(program) if reads is None else reads
        self._writers: dict[str, list[int]] = {}
        self.named: dict[str, list[int]] = {}
        """A rule id -> the positions of the rules with it."""
        for position, rule in enumerate(program.rules):
            self.named.setdefault(rule.id, []).append(position)
            for key in rule.keys:
                self._writers.setdefault(key, []).append(position)
        self._members: dict[str, Cone | None] = {}
        self.writers = sum(1 for rule in program.rules if rule.keys)
        """How many rules have effects: a cone with as many rules is the whole pack."""

    def of(self, target: Target) -> Cone | None:
        """``target``'s cone (``None`` when it is the whole pack, or something on the way compares the whole state).

        For a rule's activity or completion, both its ``when`` and its ``completion`` count (a
        completed rule is no longer active).
        """
        start = condition_reads(target.condition)
        if start is None:
            return None
        members = set(start)
        if target.kind in ("rule", "completion"):
            for position in self.named.get(target.ident, ()):
                rule = self.program.rules[position]
                for part in (rule.when, rule.completion):
                    if (more := self.reads.of(part)) is None:
                        return None
                    members |= more
        found_members: set[str] = set()
        found_rules: set[int] = set()
        cones = [self._member(member) for member in sorted(members)]
        if any(cone is None or len(cone.rules) == self.writers for cone in cones):
            return None
        for cone in cones:
            assert cone is not None
            found_members |= cone.members
            found_rules |= cone.rules
        return Cone(frozenset(found_members | members), frozenset(found_rules))

    def _member(self, member: str) -> Cone | None:
        """One member's cone: breadth first over the rules that write what is in it so far."""
        if member in self._members:
            return self._members[member]
        members, rules = {member}, set()
        queue = [member]
        while queue:
            for position in self._writers.get(queue.pop(), ()):
                if position in rules:
                    continue
                rules.add(position)
                rule = self.program.rules[position]
                more: set[str] = set(rule.keys)
                for part in (rule.when, rule.completion):
                    read = self.reads.of(part)
                    if read is None:
                        self._members[member] = None
                        return None
                    more |= read
                for name in more - members:
                    members.add(name)
                    queue.append(name)
        cone = Cone(frozenset(members), frozenset(rules))
        self._members[member] = cone
        return cone


def cone_of(program: Program, target: Target) -> Cone | None:
    """``target``'s cone in ``program`` (see :meth:`Cones.of`)."""
    return Cones(program).of(target)


def prove_in_cones(
    engine: Engine,
    analyses: Sequence[Analysis],
    open_targets: Sequence[Target],
    max_states: int,
    deadline: float,
    clock: Callable[[], float],
    goals_of: Callable[[Engine], Sequence[Target]],
) -> Decided:
    """Proofs for the goals of ``open_targets`` whose slice the exhaustive search explores whole.

    Goals with the same cone share a slice. A cone that holds every rule with effects is the whole
    pack, which the exhaustive search has had already; one whose members the analyses' boxes give
    more values than the bound could never be explored whole, and is not started. The slices go
    smallest first, within :data:`CONE_SHARE` times ``max_states`` states in all. ``goals_of`` lists
    a pack's goals (a slice's, here) as the caller lists the pack's.
    """
    program = engine.program
    positions = _positions(engine)
    if positions is None:
        return Decided({}, {})
    cones = Cones(program)
    replays: dict[bytes, Any] = {}  # the whole pack's starts and turns, for the replays
    groups: dict[Cone, list[Target]] = {}
    for target in open_targets:
        if target.kind not in FAST:
            continue
        cone = cones.of(target)
        if cone is not None and len(cone.rules) < cones.writers:
            groups.setdefault(cone, []).append(target)
    sized = sorted(
        ((boxed(analyses, cone.members), order, cone) for order, cone in enumerate(groups)),
        key=lambda item: (item[0], item[1]),
    )
    budget = CONE_SHARE * max_states
    proofs: dict[Goal, str] = {}
    witnesses: dict[Goal, Reached] = {}
    for size, _, cone in sized[:CONE_SLICES]:
        if size > min(max_states, budget) or clock() > deadline:  # the deadline: only the safety net
            break
        found = _explore_slice(
            engine, positions, cones, cone, groups[cone], min(max_states, budget), deadline, clock, goals_of
        )
        budget -= max(1, found.states)
        witnesses.update(_replayed(engine, found.reached, replays))
        if not found.complete:
            continue
        states, proved = found.states, found.never
        shown = ", ".join(f"/{member}" for member in sorted(cone.members)) or "none"
        explored = (
            f"no play reaches it: all {states:,} reachable states of the part of the pack it depends on "
            f"(state members {shown}; {len(cone.rules):,} rules) were explored"
        )
        proofs.update(dict.fromkeys(proved, explored))
        if budget <= 0:
            break
    return Decided(proofs, witnesses)


@dataclass(frozen=True, slots=True)
class _Explored:
    """One slice's search: the states it took, whether it explored the slice whole, the goals never met, its plays."""

    states: int = 0
    complete: bool = False
    never: tuple[Goal, ...] = ()
    reached: Mapping[Goal, Reached] = field(default_factory=dict)


def _explore_slice(
    engine: Engine,
    positions: Mapping[int, int],
    cones: Cones,
    cone: Cone,
    group: Sequence[Target],
    bound: int,
    deadline: float,
    clock: Callable[[], float],
    goals_of: Callable[[Engine], Sequence[Target]],
) -> _Explored:
    """Explore ``cone``'s slice for ``group`` (nothing explored when the slice cannot be cut)."""
    program = engine.program
    keep_rules = {positions[i] for i in cone.rules}
    # A goal's own rule outside the cone: whether it is active or completes depends on its `when` and
    # `completion` only, and its effects write nothing the cone reads, so the slice keeps it without them.
    muted = {
        positions[i]
        for target in group
        if target.kind in ("rule", "completion")
        for i in cones.named.get(target.ident, ())
        if i not in cone.rules
    }
    wanted: set[tuple[str, str]] = {(t.kind, t.ident) for t in group}
    endings = {
        i
        for i, ending in enumerate(program.endings)
        if (read := cones.reads.of(ending.when)) is not None and read <= cone.members
    }
    sliced = _slice(engine.pack, keep_rules, muted, wanted, endings)
    _narrow_state(sliced, cone.members)
    try:
        part = Engine(sliced)
    except Exception:  # noqa: BLE001 - a slice the engine will not compile proves nothing
        return _Explored()
    # Every ending the slice kept reads only the cone (so it stops the slice's plays exactly where it
    # stops the pack's); a pack whose endings live elsewhere (an older version) is not sliced.
    part_reads = _Reads(part.program)
    if len(part.program.endings) != len(endings) or any(
        (read := part_reads.of(ending.when)) is None or not read <= cone.members for ending in part.program.endings
    ):
        return _Explored()
    goals = [t for t in goals_of(part) if (t.kind, t.ident) in wanted]
    if not goals:
        return _Explored()
    part_analyses = [
        analyse(part.program, entry, name) for entry, name in zip(part.entries, part.entry_ids(), strict=False)
    ]
    held = boxed(part_analyses, cone.members)
    exhaustion = explore(part, goals, bound, deadline, clock, held, {t.goal for t in goals})
    never = tuple(t.goal for t in goals if t.goal not in exhaustion.found)
    reached = {t.goal: exhaustion.found[t.goal] for t in goals if t.goal in exhaustion.found}
    return _Explored(exhaustion.states, exhaustion.complete, never, reached)


def _replayed(engine: Engine, plays: Mapping[Goal, Reached], cache: dict[bytes, Any]) -> dict[Goal, Reached]:
    """The plays that reach their goal on the whole pack too (an ending the slice left out may stop one sooner).

    ``cache`` keeps, across slices, each entry's start and each turn played from a play's prefix:
    slices' plays share their first turns (on a pack of many separate parts, most are one turn of
    the same few answers), and a turn of the whole pack is its most costly step here.
    """
    kept: dict[Goal, Reached] = {}
    for goal, play in plays.items():
        key = orjson.dumps(play.entry)
        if key not in cache:
            cache[key] = engine.start(play.entry)[0]
        session = cache[key]
        for turn, move in enumerate(play.turns, 1):
            if session.ending is not None:
                break
            key += b"\x00" + orjson.dumps(move, option=orjson.OPT_SORT_KEYS)
            if key not in cache:
                before = session
                try:
                    after, active = engine.advance(session, Turn(move))
                except Exception:  # noqa: BLE001 - answers the runtime refuses reach nothing
                    cache[key] = None
                else:
                    cache[key] = (before, after, active)
            if cache[key] is None:
                break
            before, session, active = cache[key]
            if _reaches(goal, before, session, active):
                kept[goal] = Reached(play.entry, [dict(m) for m in play.turns[:turn]])
                break
    return kept


def _reaches(goal: Goal, before: Any, after: Any, active: Sequence[str]) -> bool:
    """Whether the turn from ``before`` to ``after`` (with ``active`` rules) reaches ``goal``."""
    if goal.kind == "rule":
        return goal.id in active
    if goal.kind == "achievement":
        return goal.id in after.achievements[len(before.achievements) :]
    if goal.kind == "ending":
        return bool(after.ending == goal.id)
    return goal.id in after.completed - before.completed


def _positions(engine: Engine) -> dict[int, int] | None:
    """Each compiled rule's position in ``runtime.rules`` (``None`` when they do not line up one to one)."""
    raw = engine.pack.get("runtime", {}).get("rules", [])
    if not isinstance(raw, list):
        return None
    at = [position for position, rule in enumerate(raw) if isinstance(rule, Mapping)]
    if len(at) != len(engine.program.rules):
        return None
    return dict(enumerate(at))


def _slice(
    pack: Mapping[str, Any], rules: Iterable[int], muted: set[int], wanted: set[tuple[str, str]], endings: set[int]
) -> dict[str, Any]:
    """``pack`` with only the given rules (``muted`` ones without effects) and endings, the wanted achievements.

    Nothing shown to readers is kept.
    """
    keep = set(rules)
    runtime = dict(pack["runtime"])
    runtime["rules"] = [
        rule if position not in muted else {**rule, "effects": []}
        for position, rule in enumerate(pack["runtime"]["rules"])
        if position in keep or position in muted
    ]
    sliced: dict[str, Any] = {**pack, "runtime": runtime}
    progression = pack.get("progression")
    if isinstance(progression, Mapping):
        kept = dict(progression)
        if isinstance(progression.get("achievements"), list):
            kept["achievements"] = [
                item
                for item in progression["achievements"]
                if isinstance(item, Mapping) and ("achievement", item.get("id")) in wanted
            ]
        if isinstance(progression.get("endings"), list):
            kept["endings"] = [item for position, item in enumerate(progression["endings"]) if position in endings]
        kept.pop("badges", None)
        sliced["progression"] = kept
    for name in ("reader_cards", "content", "illustrations", "character_castings"):
        if isinstance(sliced.get(name), list):
            sliced[name] = []
    if isinstance(sliced.get("presentation"), Mapping):
        sliced["presentation"] = {**sliced["presentation"], "illustration_rules": []}
    return sliced


_PLAIN: Final = frozenset({"type", "properties", "required", "additionalProperties", "title", "description"})
"""The keywords of a state schema whose members a slice may leave out (any other: the slice keeps them all)."""


def _narrow_state(sliced: dict[str, Any], members: frozenset[str]) -> None:
    """Leave out of ``sliced``'s state the members outside the cone, when its schema is a plain object's.

    Nothing the slice plays reads them, but every state of its search would carry them: on a pack of
    1,000 separate pairs of counters, the slices' states were 2,001 members long, and the slices
    took 55 s instead of a few.
    """
    runtime = sliced["runtime"]
    state = runtime.get("state")
    schema = state.get("schema") if isinstance(state, Mapping) else None
    if (
        not isinstance(schema, Mapping)
        or not set(schema) <= _PLAIN
        or not isinstance(schema.get("properties"), Mapping)
    ):
        return
    entries = runtime.get("entries")
    if not isinstance(entries, list) or not all(
        isinstance(e, Mapping) and isinstance(e.get("initial_state"), Mapping) for e in entries
    ):
        return
    narrowed = {**schema, "properties": {k: v for k, v in schema["properties"].items() if k in members}}
    if isinstance(schema.get("required"), list):
        narrowed["required"] = [k for k in schema["required"] if k in members]
    runtime["state"] = {**state, "schema": narrowed}
    runtime["entries"] = [
        {**e, "initial_state": {k: v for k, v in e["initial_state"].items() if k in members}} for e in entries
    ]
