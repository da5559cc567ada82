"""Decide, for every goal, whether some sequence of turns reaches it: a proof or a witness.

Goals are achievements unlocking, endings being reached, rules being active, rules completing and
items being revealed. In order:

1. :mod:`~creatorpack.lint.reach._abstract` over-approximates every reachable state from each
   entry; a goal whose condition cannot hold there is proved unreachable, with the reason;
2. on a pack whose boxes allow more states than the exhaustive search's bound,
   :mod:`~creatorpack.lint.reach._cone` explores each goal's slice (its cone of influence) instead:
   exact proofs, and witnesses replayed on the whole pack;
3. the guided search (:mod:`~creatorpack.lint.reach._witness`) plays the runtime itself for
   witnesses, within at most :data:`WALK_TURNS` turns (a sweep of its that explores every state
   is a proof too);
4. the exhaustive search (:mod:`~creatorpack.lint.reach._exhaust`) takes the goals still open:
   bounded by a count of states, it proves what it never reaches once it has explored everything,
   and gives shortest witnesses on the way;
5. for what is still open, on a pack of at most :data:`TURN_RULES` rules,
   :mod:`~creatorpack.lint.reach._turns` over-approximates the reachable states again turn by
   turn, the rules of a turn sharing its answers, within a bound counted in branch-and-bound nodes;
6. for what is still open then, :mod:`~creatorpack.lint.reach._inductive` finds, per entry, a box
   that one turn from any of its states cannot leave (checked with z3, within counted queries):
   a goal that holds neither at the start nor in that box is unreachable. It is seeded with the
   states the guided search played by the end of its ``solve`` phase; on a pack of more than
   :data:`OVERLAP_RULES` rules it starts then, in a worker thread (:mod:`~creatorpack.lint.reach._beside`),
   and runs beside the rest of the searches (most of it is z3's C code, which releases the GIL);
7. with ``bmc=True`` (off by default: too slow on a big pack), for what is still open then,
   :mod:`~creatorpack.lint.reach._bmc` asks z3 for plays of a few turns from each start that
   reach it, and replays each with the runtime: a witness only if it does.

Every bound is a count, so the findings are the same on every machine; a wall-clock limit remains
only as a safety net, and a finding it causes says so.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import partial
from typing import TYPE_CHECKING, Any, Final

from creatorpack._json import JsonPath
from creatorpack.contract.conditions import Condition, Goal, Not, parse
from creatorpack.contract.findings import RawFinding
from creatorpack.lint.reach._abstract import (
    Abstract,
    Analysis,
    analyse,
    boxed,
    failing_part,
    holds,
    tree_of,
    why_not,
)
from creatorpack.lint.reach._beside import Beside
from creatorpack.lint.reach._cone import prove_in_cones
from creatorpack.lint.reach._exhaust import Exhaustion, explore, revealed_along, scaled_bound
from creatorpack.lint.reach._missing import (
    ANALYSIS_BOX,
    INDUCTIVE_BOX,
    MIXED_BOXES,
    TURN_BOXES,
    Played,
    missing_invariant,
    played,
)
from creatorpack.lint.reach._turns import WORK, Trace, by_turn
from creatorpack.lint.reach._witness import REVEALS, GoalKind, Reached, Search, Target
from creatorpack.play.conditions import compile_condition
from creatorpack.play.engine import Engine
from creatorpack.play.state import set_paths
from creatorpack.play.step import reward_assets

if TYPE_CHECKING:
    from creatorpack.lint.reach._inductive import Encoded, Inductive

__all__ = ["KINDS", "REVEAL_KINDS", "Outcome", "decide", "targets"]

KINDS: Final[Mapping[GoalKind, str]] = {
    "achievement": "achievement",
    "ending": "ending",
    "rule": "rule",
    "completion": "the completion of rule",
    "reader_card": "reader card",
    "avatar": "the avatar of reader card",
    "image": "the image of reader card",
    "relationship": "relationship",
    "asset": "asset",
    "visual_anchor": "visual anchor",
    "casting": "casting",
    "deed": "deed",
    "knowledge": "knowledge",
}
"""How a finding names each kind of goal."""

REVEAL_KINDS: Final = frozenset(REVEALS.values())
"""Goals that are an item being revealed. Lint reports those proved never revealed (``never-revealed``,
a warning: the item is shipped for nothing) and is silent about those it leaves undecided."""

NAMED_ENTRIES: Final = 3
"""Distinct reasons a finding gives, each with the entries it is theirs, when the entries' reasons differ."""

TURN_RULES: Final = 2_000
"""Rules a pack may have for the boxes turn by turn to run before the inductive box (milliseconds on a small
pack; 9 s on the 10,000-rule runtime benchmark pack, where the inductive box proves all they prove)."""

OVERLAP_RULES: Final = TURN_RULES
"""Rules a pack must have more of for its inductive box phase to run in a worker thread beside the guided
search, as well as more than ``turn_rules`` (where the boxes turn by turn do not run first). On the
runtime benchmark pack (10,000 rules) about 1.8 s of the phase's z3 queries then overlap the search
when a second core is free (the worker waits for the GIL most of the rest: docs/performance.md); a
small pack, which the exhaustive search decides in under a second, starts no thread."""

WALK_TURNS: Final = 2_000
"""Turns the guided search (after an exhaustive search that stopped at its bound) plays at most."""

SWEEP_SHARE: Final = 4
"""The breadth-first sweep first gets 1/SWEEP_SHARE of the budget, the goal-directed walk what it
needs of the rest, and the sweep resumes with whatever the walk leaves."""

HUNT_SHARE: Final = 8
"""What a sweep that tries one answer a turn (too many combinations to try them all) first gets
instead: 1/HUNT_SHARE. It cannot prove, and on the runtime benchmark pack its turns after the first
eighth witnessed 3 goals in 283 turns, which the solved turns and the plays then witness."""


@dataclass(frozen=True, slots=True)
class Outcome:
    """What was decided: witnesses and proofs (abstract or exhaustive) by goal, the findings, the turns played."""

    targets: tuple[Target, ...]
    witnesses: Mapping[Goal, Reached]
    proofs: Mapping[Goal, str]
    findings: tuple[RawFinding, ...]
    turns_played: int = 0
    timed_out: bool = False
    entries: tuple[str, ...] = field(default=())
    states: int = 0
    """Distinct states the exhaustive search explored."""
    exhausted: bool = False
    """Whether it explored every reachable state (its proofs say so)."""
    artless: Mapping[Goal, Reached] = field(default_factory=dict)
    """Achievements and endings reached by a play in which their artwork is not served yet, when one was met."""


def targets(engine: Engine) -> list[Target]:
    """Every goal of a pack, in document order: achievements, endings, rules, rule completions, reveals."""
    pack, program = engine.pack, engine.program
    progression = pack.get("progression") if isinstance(pack.get("progression"), Mapping) else {}
    assert isinstance(progression, Mapping)
    found: list[Target] = []
    for name, kind in (("achievements", "achievement"), ("endings", "ending")):
        items = progression.get(name)
        for position, item in enumerate(items if isinstance(items, list) else []):
            if isinstance(item, Mapping) and isinstance(item.get("id"), str) and isinstance(item.get("when"), Mapping):
                at: JsonPath = ("progression", name, position)
                found.append(Target(kind, item["id"], at, parse(item["when"], (*at, "when"))))  # type: ignore[arg-type]
    rules = pack["runtime"].get("rules", [])
    compiled = iter(program.rules)
    for position, raw in enumerate(rules):
        if not isinstance(raw, Mapping):
            continue
        rule = next(compiled)
        if not isinstance(raw.get("id"), str):
            continue
        found.append(Target("rule", rule.id, ("runtime", "rules", position), tree_of(program.conditions[rule.when])))
        if rule.completion is not None:
            where = ("runtime", "rules", position, "completion")
            found.append(Target("completion", rule.id, where, tree_of(program.conditions[rule.completion])))
    entries = engine.entry_ids()
    for reveal in program.reveals:
        scoped = (
            None if reveal.entries is None else frozenset(e for e in entries if program.in_scope(reveal.entries, e))
        )
        if scoped is not None and not scoped:
            continue  # scoped to no entry that is played: `unplayed-scope` says so
        condition = tree_of(program.conditions[reveal.when])
        found.append(Target(REVEALS[reveal.kind], reveal.ident, reveal.where, condition, scoped))
    return found


def decide(
    pack: Mapping[str, Any],
    max_states: int,
    max_seconds: float,
    clock: Callable[[], float],
    *,
    work: int = WORK,
    exhaustive: bool = True,
    engine: Engine | None = None,
    turn_rules: int = TURN_RULES,
    inductive: bool = True,
    overlap_rules: int | None = OVERLAP_RULES,
    bmc: bool = False,
    cones: bool = True,
) -> Outcome:
    """Prove or witness every goal of a valid 0.3-0.5 pack (see the module docstring).

    ``max_states`` bounds the exhaustive search in states, and the guided search that follows one
    that stopped at it in turns (at most :data:`WALK_TURNS`). ``work`` bounds the turn-by-turn
    proofs in branch-and-bound nodes (0: none). ``exhaustive=False`` leaves the exhaustive search
    out and gives the guided search all ``max_states`` turns: what lint did before it, for the
    tests of the guided search and for comparisons. ``engine``, when given, is the pack's, compiled
    already (lint shares it with the artwork check). ``turn_rules``: the most rules a pack may have
    for the boxes turn by turn to run (:data:`TURN_RULES`; 0: never). ``inductive=False`` leaves the
    inductive box out. ``overlap_rules``: the most rules a pack may have for the inductive box to run
    after the searches rather than beside them in a worker thread (:data:`OVERLAP_RULES`; ``None``:
    always after); the findings are the same either way. ``bmc=True`` adds the witnesses z3
    proposes for plays of a few turns (off by default: on the runtime benchmark pack its 48
    witnesses took 53 s, docs/performance.md). ``cones=False`` leaves the cones of influence out.
    """
    try:
        engine = Engine(pack) if engine is None else engine
    except Exception:  # noqa: BLE001 - an unplayable pack is reported by the other checks
        return Outcome((), {}, {}, ())
    goals = targets(engine)
    analyses = [
        analyse(engine.program, entry, name) for entry, name in zip(engine.entries, engine.entry_ids(), strict=False)
    ]
    proofs = {t.goal: reason for t in goals if (reason := _proof(t, analyses)) is not None}
    proofs.update(_unseen_pictures(engine, goals, proofs))
    deadline = clock() + max_seconds
    found: dict[Goal, Reached] = {}
    if cones and exhaustive and boxed(analyses) > scaled_bound(engine.program, max_states):
        # The whole pack is too big to explore whole, but the part a goal depends on may not be: exact
        # proofs (and witnesses) there first, so that the searches below go after the rest.
        open_ = [t for t in goals if t.goal not in proofs]
        decided = prove_in_cones(engine, analyses, open_, max_states, deadline, clock, targets)
        proofs.update(decided.proofs)
        found.update(decided.witnesses)
    unproved = [t for t in goals if t.goal not in proofs and t.goal not in found]
    search = Search(
        engine, unproved, min(max_states, WALK_TURNS) if exhaustive else max_states, deadline, clock, analyses
    )
    # On a big pack the inductive box phase runs in a worker thread beside the rest of the search and
    # the exhaustive search (most of it waits in z3, which releases the GIL), seeded, in either case,
    # with the states the guided search played by the end of its `solve` phase: the same box either way.
    threaded = inductive and overlap_rules is not None and len(engine.program.rules) > max(turn_rules, overlap_rules)
    seeds: list[list[Mapping[str, Any]]] = []
    beside: Beside[list[Inductive | None]] = Beside()

    def seeded() -> None:
        seeds[:] = _seeds(analyses, search)
        if threaded and search.open:
            # Encoded here: beside the search, each of the encoding's calls into z3 would wait for the GIL.
            beside.start(partial(_inductive_boxes, _encoded(analyses, _wanted(analyses, search.open)), list(seeds)))

    with beside:
        if unproved:
            _search(search, proofs, goals, found, seeded)
        left = [t for t in unproved if t.goal not in found and t.goal not in proofs]
        exhaustion = Exhaustion(skipped="the exhaustive search was left out")
        if exhaustive and left:
            exhaustion = _exhaust_left(engine, analyses, unproved, left, max_states, deadline, clock, found, proofs)
        left = [t for t in left if t.goal not in found and t.goal not in proofs]
        traces: list[Trace | None] | None = None
        # The boxes turn by turn cost more than a small pack's search.
        if left and len(engine.program.rules) <= turn_rules:
            traces = [by_turn(analysis, work) for analysis in analyses]
            proofs.update(_proved(left, partial(_turn_proof, analyses=analyses, traces=traces)))
            left = [t for t in left if t.goal not in proofs]
        boxes: list[Inductive | None] | None = None
        if left and inductive:
            wanted = _wanted(analyses, left)
            if beside.started:
                boxes = beside.result()
            else:
                boxes = _inductive_boxes(_encoded(analyses, wanted), seeds or _seeds(analyses, search))
            boxes = [box if analysis.entry in wanted else None for analysis, box in zip(analyses, boxes, strict=True)]
            proofs.update(_proved(left, partial(_box_proof, analyses=analyses, boxes=boxes)))
            left = [t for t in left if t.goal not in proofs]
    if left and bmc:  # bounded model checking: short plays z3 proposes, each replayed
        found.update(_bmc_witnesses(engine, analyses, boxes, left))
        left = [t for t in left if t.goal not in found]
    earliest, missing = _evidence(left, analyses, traces, boxes, search)

    def undecided(name: str, goal: Goal) -> str:
        return _undecided(name, exhaustion, search, max_states, max_seconds, earliest.get(goal), missing.get(goal))

    keys = {t.goal for t in goals}
    return Outcome(
        tuple(goals),
        {goal: reached for goal, reached in found.items() if goal in keys and goal not in proofs},
        proofs,
        tuple(_findings(goals, analyses, proofs, found, undecided)),
        exhaustion.turns + search.spent,
        exhaustion.timed_out or search.timed_out,
        tuple(engine.entry_ids()),
        exhaustion.states,
        exhaustion.complete,
        exhaustion.artless,
    )


def _evidence(
    left: Sequence[Target],
    analyses: Sequence[Analysis],
    traces: Sequence[Trace | None] | None,
    boxes: Sequence[Inductive | None] | None,
    search: Search,
) -> tuple[dict[Goal, int], dict[Goal, str]]:
    """For each goal left undecided: the fewest turns a play that reaches it takes, and the invariant a proof lacked."""
    plays = (
        [played(a, (s.state for s in search.played_states() if s.entry == a.entry)) for a in analyses] if left else []
    )
    earliest: dict[Goal, int] = {}
    missing: dict[Goal, str] = {}
    for target in left:
        if target.kind not in REVEAL_KINDS:
            if traces is not None and (turns := _earliest(target, analyses, traces)) is not None:
                earliest[target.goal] = turns
            missing[target.goal] = _missing(target, analyses, traces, boxes, plays)
    return earliest, missing


def _exhaust_left(
    engine: Engine,
    analyses: Sequence[Analysis],
    unproved: Sequence[Target],
    left: Sequence[Target],
    max_states: int,
    deadline: float,
    clock: Callable[[], float],
    found: dict[Goal, Reached],
    proofs: dict[Goal, str],
) -> Exhaustion:
    """The exhaustive search for the goals the guided search ``left`` (into ``found`` and ``proofs``).

    Every goal not proved (``unproved``) is tracked, so that the goals it reaches get a shortest
    witness; it stops once those in ``left`` are reached.
    """
    exhaustion = explore(engine, unproved, max_states, deadline, clock, boxed(analyses), {t.goal for t in left})
    # A goal that some play reaches before its artwork is served is witnessed by that play (the one
    # `artwork-not-revealed` names).
    found.update({**exhaustion.found, **exhaustion.artless})
    hidden = [t for t in left if t.kind in REVEAL_KINDS and t.goal not in found]
    if hidden and exhaustion.found and not exhaustion.complete:
        # The hunt for witnesses follows no reveal: the plays it found may show one on the way (the
        # guided search's plays were watched for reveals as they were played).
        hunted = list(exhaustion.found.values())
        found.update(revealed_along(engine, hunted, hidden, min(max_states, WALK_TURNS)))
    if exhaustion.complete:
        explored = f"no play reaches it: all {exhaustion.states:,} reachable states were explored"
        proofs.update({t.goal: explored for t in left if t.goal not in found})
    return exhaustion


def _proved(left: Sequence[Target], proof: Callable[[Target], str | None]) -> dict[Goal, str]:
    """The goals of ``left`` that ``proof`` gives a reason for, with it."""
    return {target.goal: reason for target in left if (reason := proof(target)) is not None}


def _findings(
    goals: Sequence[Target],
    analyses: Sequence[Analysis],
    proofs: Mapping[Goal, str],
    found: Mapping[Goal, Reached],
    undecided: Callable[[str, Goal], str],
) -> list[RawFinding]:
    """What lint reports of the goals: rules that never change the state, goals proved, goals left undecided."""
    findings = _rejected(goals, analyses)
    for target in goals:
        name = f"{KINDS[target.kind]} {target.ident!r}"
        if target.kind in REVEAL_KINDS:
            if target.goal in proofs:
                where = _failing_at(target, analyses)
                findings.append(RawFinding(where, "never-revealed", f"{name} is never revealed: {proofs[target.goal]}"))
        elif target.goal in proofs:
            where = _failing_at(target, analyses)
            findings.append(RawFinding(where, "unreachable", f"{name} is unreachable: {proofs[target.goal]}"))
        elif target.goal not in found:
            findings.append(RawFinding(target.where, "reachability-bound", undecided(name, target.goal)))
    return findings


def _search(
    search: Search,
    proofs: dict[Goal, str],
    goals: Sequence[Target],
    found: dict[Goal, Reached],
    solved: Callable[[], None] = lambda: None,
) -> None:
    """The guided search for witnesses (:mod:`~creatorpack.lint.reach._witness`); an exhausted sweep proves the rest.

    ``solved`` is called once its `solve` phase is over (when the sweep did not explore everything).
    """
    starts = search.starts()
    search.sweep(starts, search.budget // (SWEEP_SHARE if search.complete else HUNT_SHARE))
    if not search.exhausted:
        search.solve(starts)
        solved()
        search.scatter(starts)
        search.walk(starts)
    if not search.exhausted and search.open and not search.timed_out:
        search.sweep(starts, search.budget)  # resumed: the budget the walk left is not left unplayed
    if search.exhausted:
        explored = f"no sequence of turns reaches it (every reachable state explored, {search.spent:,} turns played)"
        proofs.update(
            {
                t.goal: explored
                for t in goals
                if t.goal not in proofs and t.goal not in search.found and t.goal not in found
            }
        )
    for goal, reached in search.found.items():
        if goal in search.targets:
            found.setdefault(goal, reached)


_PICTURES: Final = {"avatar": "avatars", "image": "images"}


def _unseen_pictures(engine: Engine, goals: Sequence[Target], proofs: Mapping[Goal, str]) -> dict[Goal, str]:
    """A card's avatar or image is shown only while readers can reach its asset: one they never can is never shown.

    That is a ``reward_only`` asset that no achievement's or ending's artwork and no badge gives, or
    an asset proved never revealed, whatever the picture's own ``reveal_when`` says.
    """
    program = engine.program
    rewards = reward_assets(program, (*program.achievements, *program.endings), program.badges)
    found: dict[Goal, str] = {}
    for target in goals:
        if target.kind not in _PICTURES or target.goal in proofs:
            continue
        asset = program.card_assets.get((_PICTURES[target.kind], target.ident))
        if asset is None or asset not in program.assets:
            found[target.goal] = f"it shows no asset the pack has ({asset!r}), so readers never see it"
        elif program.assets[asset].get("access") == "reward_only" and asset not in rewards:
            found[target.goal] = (
                f"its asset {asset!r} is reward_only, and no achievement or ending artwork and no badge gives "
                "it, so readers never reach it"
            )
        elif (reason := proofs.get(Goal("asset", asset))) is not None:
            found[target.goal] = f"its asset {asset!r} is never revealed: {reason}"
    return found


def _rejected(goals: Sequence[Target], analyses: Sequence[Analysis]) -> list[RawFinding]:
    """A ``rejected-rule`` finding for each rule that never changes the state from any entry (at its increment)."""
    found: list[RawFinding] = []
    for target in goals:
        if target.kind != "rule" or not analyses:
            continue
        refusals = [analysis.refused.get(target.ident) for analysis in analyses]
        first = refusals[0]
        if first is not None and all(r is not None for r in refusals):
            where = (*target.where, "effects", first.effect)
            message = f"rule {target.ident!r} never changes the state: {first.reason}"
            found.append(RawFinding(where, "rejected-rule", message))
    return found


def _undecided(
    name: str,
    exhaustion: Exhaustion,
    search: Search | None,
    max_states: int,
    max_seconds: float,
    earliest: int | None,
    missing: str | None = None,
) -> str:
    known = f"; no play of fewer than {earliest} turns reaches it (by the boxes turn by turn)" if earliest else ""
    known += f"; {missing}" if missing else ""
    turns = search.spent if search is not None else 0
    if exhaustion.timed_out or (search is not None and search.timed_out):
        return (
            f"{name} was not decided: the safety-net time limit ({max_seconds:g} s) stopped the search after "
            f"{exhaustion.states:,} states explored and {turns:,} turns played, so this finding depends on the "
            f"machine{known}; raise --max-seconds"
        )
    why = exhaustion.skipped or f"the exhaustive search stopped at its bound after {exhaustion.states:,} states"
    bound = f" (now {max_states:,})" if max_states else ""
    return (
        f"{name} was neither reached nor proven unreachable: the guided search played {turns:,} turns, and {why}"
        f"{known}; raise --max-states{bound} to search further"
    )


def _earliest(target: Target, analyses: Sequence[Analysis], traces: Sequence[Trace | None]) -> int | None:
    """The fewest turns a play that reaches ``target`` takes, by the boxes turn by turn (``None``: 1 or unknown).

    Each box before the tail holds every state after exactly that many turns, so a goal that holds
    in none of the first ``k`` boxes takes at least ``k`` turns (a rule is active in the turn after
    a state in which its `when` holds, so one more).
    """
    fewest: int | None = None
    for analysis, trace in zip(analyses, traces, strict=True):
        if trace is None:
            return None
        boxes = trace.before if target.kind == "rule" else trace.after
        first = next((i for i, box in enumerate(boxes) if holds(analysis, target.condition, box) is not None), None)
        if first is None:  # it holds in no box from this entry: the other entries decide
            continue
        turns = first + 1 if target.kind == "rule" else first
        fewest = turns if fewest is None else min(fewest, turns)
    return fewest if fewest is not None and fewest > 1 else None


def _missing(
    target: Target,
    analyses: Sequence[Analysis],
    traces: Sequence[Trace | None] | None,
    boxes: Sequence[Inductive | None] | None,
    plays: Sequence[Played | None],
) -> str:
    """The invariant a proof that ``target`` is unreachable lacked (:func:`missing_invariant`).

    Per entry it reads the boxes turn by turn where they were computed, else the start and the
    inductive box, else the analysis's own box; ``plays``, what the guided search's turns left.
    """
    mine = _in_scope(target, analyses)
    held: list[list[Abstract]] = []
    sources: set[str] = set()
    for at, analysis in enumerate(analyses):
        if target.entries is not None and analysis.entry not in target.entries:
            continue  # not among ``mine``
        trace = traces[at] if traces is not None else None
        found = boxes[at] if boxes is not None else None
        if trace is not None:
            held.append(list(trace.before if target.kind == "rule" else trace.after))
            sources.add(TURN_BOXES)
        elif found is not None:
            held.append(list(found.before) if target.kind == "rule" else [found.start, found.box])
            sources.add(INDUCTIVE_BOX)
        else:
            box = analysis.before if target.kind == "rule" else analysis.after
            held.append([] if box is None else [box])
            sources.add(ANALYSIS_BOX)
    scoped = len(mine) < len(analyses)
    source = sources.pop() if len(sources) == 1 else MIXED_BOXES
    ours = {id(analysis) for analysis in mine}
    mine_plays = [found for analysis, found in zip(analyses, plays, strict=True) if id(analysis) in ours]
    return missing_invariant(
        target.condition, mine, held, scoped=scoped, before=target.kind == "rule", source=source, plays=mine_plays
    )


def _seeds(analyses: Sequence[Analysis], search: Search) -> list[list[Mapping[str, Any]]]:
    """Each entry's states after the turns the guided search has played so far (what seeds its inductive box)."""
    played = search.played_states()
    return [[session.state for session in played if session.entry == analysis.entry] for analysis in analyses]


def _wanted(analyses: Sequence[Analysis], left: Sequence[Target]) -> frozenset[str]:
    """The entries some goal in ``left`` belongs to: those that get an inductive box."""
    return frozenset(a.entry for a in analyses if any(t.entries is None or a.entry in t.entries for t in left))


def _encoded(analyses: Sequence[Analysis], wanted: frozenset[str]) -> list[Encoded | None]:
    """Each ``wanted`` entry's turn encoded for z3 (:class:`~creatorpack.lint.reach._inductive.Encoded`).

    z3 is imported here, when the inductive box phase runs.
    """
    from creatorpack.lint.reach._inductive import Encoded  # noqa: PLC0415 - z3 only when the phase runs

    return [Encoded(analysis) if analysis.entry in wanted else None for analysis in analyses]


def _inductive_boxes(
    encoded: Sequence[Encoded | None],
    seeds: Sequence[Sequence[Mapping[str, Any]]],
    stop: Callable[[], bool] = lambda: False,
) -> list[Inductive | None]:
    """Each encoded entry's inductive box (:mod:`~creatorpack.lint.reach._inductive`), seeded with ``seeds``.

    ``seeds`` holds, per entry, states some play reached; ``stop``: see
    :func:`~creatorpack.lint.reach._inductive.inductive_box` (the worker thread's).
    """
    return [None if found is None else found.box(states, stop) for found, states in zip(encoded, seeds, strict=True)]


def _bmc_witnesses(
    engine: Engine, analyses: Sequence[Analysis], boxes: Sequence[Inductive | None] | None, left: Sequence[Target]
) -> dict[Goal, Reached]:
    """Witnesses of plays of a few turns for ``left`` (:mod:`~creatorpack.lint.reach._bmc`), each replayed."""
    from creatorpack.lint.reach._bmc import witnesses  # noqa: PLC0415 - z3 only when the phase runs

    inside = None if boxes is None else [None if b is None else b.box for b in boxes]
    return witnesses(engine, analyses, left, boxes=inside).found


def _box_proof(target: Target, analyses: Sequence[Analysis], boxes: Sequence[Inductive | None]) -> str | None:
    """Why no entry reaches ``target`` by the inductive boxes, or ``None`` if some box allows it."""
    member = _member(target)

    def reason(analysis: Analysis, at: int) -> str | None:
        found = boxes[at]
        if found is None:
            return None
        held = found.before if target.kind == "rule" else (found.start, found.box)
        if any(holds(analysis, target.condition, box) is not None for box in held):
            return None
        bounds = "; ".join(found.describe(analysis, i) for i in _named_reads(analysis, target.condition))
        states = "state a turn is taken from" if target.kind == "rule" else "reachable state"
        return (
            f"its `{member}` holds in no {states}: each lies at the start or in a box that no turn leads out of "
            "(an inductive invariant, checked with z3)" + (f" ({bounds})" if bounds else "")
        )

    return _by_boxes(target, analyses, reason)


def _by_boxes(
    target: Target, analyses: Sequence[Analysis], reason: Callable[[Analysis, int], str | None]
) -> str | None:
    """One reason for every entry in ``target``'s scope, each from ``reason``; ``None`` if an entry has none."""
    reasons: list[str] = []
    mine = _in_scope(target, analyses)
    for at, analysis in enumerate(analyses):
        if target.entries is not None and analysis.entry not in target.entries:
            continue  # not among ``mine``
        if (why := reason(analysis, at)) is None:
            return None
        reasons.append(why)
    return _every_entry(reasons, mine, scoped=len(mine) < len(analyses))


def _named_reads(analysis: Analysis, condition: Condition) -> list[int]:
    """The first three variables ``condition`` reads, whose bounds a proof names."""
    return [i for i in dict.fromkeys(analysis.reads(condition)) if i is not None][:3]


def _proof(target: Target, analyses: Sequence[Analysis]) -> str | None:
    """Why no entry reaches ``target``, or ``None`` when the over-approximation allows it."""
    reasons: list[str] = []
    mine = _in_scope(target, analyses)
    for analysis in mine:
        reason = _blocked(target, analysis)
        if reason is None:
            return None
        reasons.append(reason)
    return _every_entry(reasons, mine, scoped=len(mine) < len(analyses))


def _failing_at(target: Target, analyses: Sequence[Analysis]) -> JsonPath:
    """Where a finding about ``target`` points: the part of its condition that cannot hold, where one is known.

    That is where the fix goes (``/progression/achievements/3/when/conditions/1``, not the
    achievement's ``{``): known when, in every entry it may be reached from, the condition cannot
    hold at all and the same part of it is to blame. Otherwise (an ending that another one beats,
    an ending at the start, a proof by the search, entries that disagree) the item itself.
    """
    member = _member(target)
    base = target.where if target.where and target.where[-1] == member else (*target.where, member)
    parts: set[tuple[str | int, ...]] = set()
    for analysis in _in_scope(target, analyses):
        on = analysis.before if target.kind == "rule" else analysis.after
        if on is None or holds(analysis, target.condition, on) is not None:
            return target.where
        parts.add(failing_part(analysis, target.condition, on))
    if len(parts) != 1:
        return target.where
    return (*base, *parts.pop())


def _member(target: Target) -> str:
    """The member that holds ``target``'s condition: ``when``, ``completion`` or ``reveal_when``."""
    last = target.where[-1] if target.where else None
    return last if isinstance(last, str) and (target.kind == "completion" or target.kind in REVEAL_KINDS) else "when"


def _in_scope(target: Target, analyses: Sequence[Analysis]) -> list[Analysis]:
    """The analyses of the entries in whose sessions ``target`` can be reached at all (its ``entry_ids``)."""
    return [a for a in analyses if target.entries is None or a.entry in target.entries]


def _every_entry(reasons: Sequence[str], analyses: Sequence[Analysis], *, scoped: bool = False) -> str | None:
    """One reason for all entries: the common one, or each distinct reason with its entries (:data:`NAMED_ENTRIES`).

    ``scoped``: the analyses are those of the entries an entry-scoped goal belongs to, which the reason names.
    """
    if not reasons:
        return None
    groups: dict[str, list[str]] = {}  # each reason, with the entries it is theirs, in entry order
    for analysis, reason in zip(analyses, reasons, strict=True):
        groups.setdefault(reason, []).append(repr(analysis.entry))
    if len(groups) == 1:
        why = reasons[0]
    else:
        named = [
            f"from {'entry' if len(entries) == 1 else 'entries'} {', '.join(entries)}, {reason}"
            for reason, entries in list(groups.items())[:NAMED_ENTRIES]
        ]
        rest = sum(len(entries) for entries in list(groups.values())[NAMED_ENTRIES:])
        why = "; ".join(named) + (f" (and {rest} more entries, for reasons of their own)" if rest else "")
    if scoped:
        names = ", ".join(repr(a.entry) for a in analyses)
        where = f"entry {names}, the only one" if len(analyses) == 1 else f"entries {names}, the only ones"
        return f"in sessions of {where} it belongs to (its `entry_ids`), {why}"
    return why


def _turn_proof(target: Target, analyses: Sequence[Analysis], traces: Sequence[Trace | None]) -> str | None:
    """Why no entry reaches ``target`` by the boxes turn by turn, or ``None`` if some box allows it."""
    member = _member(target)

    def reason(analysis: Analysis, at: int) -> str | None:
        trace = traces[at]
        if trace is None:
            return None
        boxes = trace.before if target.kind == "rule" else trace.after
        if any(holds(analysis, target.condition, box) is not None for box in boxes):
            return None
        moves = "; ".join(trace.describe(analysis, i) for i in _named_reads(analysis, target.condition))
        back = "" if trace.tail else ", and a turn from there leads back into states already counted"
        return (
            f"its `{member}` holds in no state reachable turn by turn, every rule of a turn reading the same answers"
            + (f" ({moves}{back})" if moves else "")
        )

    return _by_boxes(target, analyses, reason)


def _ending_at_start(analysis: Analysis) -> str:
    """Which ending holds at the start of ``analysis``'s entry, said so that the creator can find it."""
    program = analysis.program
    held = [g.id for g in program.endings if program.evaluators[g.when](analysis.initial, {})]
    at = f"at the start of entry {analysis.entry!r} (on its initial_state)"
    if len(held) == 1:
        return f"ending {held[0]!r} holds {at}"
    return f"the endings {', '.join(repr(h) for h in held)} hold {at}" if held else f"an ending holds {at}"


def _at_start(analysis: Analysis, condition: Condition) -> bool:
    """Whether ``condition`` holds at the start of ``analysis``'s entry, before any answer is given."""
    sets = set_paths(analysis.program.schema)
    return compile_condition(condition, set_paths=sets).evaluate(analysis.initial, {})


def _blocked(target: Target, analysis: Analysis) -> str | None:
    if target.kind == "rule":
        if target.ident in analysis.completed:
            return "its completion already holds at the start, so it is completed before any turn and never active"
        if analysis.before is None:
            return f"{_ending_at_start(analysis)}, so the session takes no turn"
        if holds(analysis, target.condition, analysis.before) is None:
            return f"its `when` never holds before a turn: {why_not(analysis, target.condition, analysis.before)}"
        return None
    if analysis.before is None and not _at_start(analysis, target.condition):
        member = _member(target)
        return f"{_ending_at_start(analysis)}, so the session takes no turn, and its `{member}` does not hold there"
    on = holds(analysis, target.condition, analysis.after)
    if on is None:
        return f"its `{_member(target)}` never holds: {why_not(analysis, target.condition, analysis.after)}"
    if target.kind != "ending":
        return None
    program = analysis.program
    position = next(i for i, g in enumerate(program.endings) if g.id == target.ident)
    mine = program.endings[position]
    beaters = [
        g
        for i, g in enumerate(program.endings)
        if g.priority > mine.priority or (g.priority == mine.priority and i < position)
    ]
    current: Abstract | None = on
    winners: list[str] = []  # the endings that take away some of the states where it holds
    for goal in beaters:
        narrowed = holds(analysis, Not(tree_of(program.conditions[goal.when])), current)
        if narrowed != current:
            winners.append(goal.id)
        current = narrowed
        if current is None:
            named = (
                f"ending {winners[0]!r} holds too and wins"
                if len(winners) == 1
                else f"one of the endings {', '.join(repr(w) for w in winners)} holds too and wins"
            )
            return (
                f"whenever its `when` holds, {named} (a higher priority, or the same priority and earlier in the list)"
            )
    return None
