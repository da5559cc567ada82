"""Witnesses: turns that reach a goal, found by playing the runtime itself.

Two phases share one budget, counted in turns played (never in seconds, so that the same pack
gives the same witnesses on any machine):

1. a breadth-first sweep from every entry's start, which gives the shortest witnesses for the
   goals near the start (when every combination of answers per turn is few enough it tries them
   all, and a sweep that runs out of states is itself a proof);
2. one turn from each start per goal still open, its answers chosen by a branch and bound over
   the answers every rule of the turn shares (:func:`~creatorpack.lint.reach._bnb.solve`), for goals
   a single turn reaches only with the right combination of many answers;
3. a few short plays from each start whose every observation is answered, or left, by a
   pseudo-random draw fixed by the play's and turn's numbers (:meth:`Search.scatter`), each state
   harvested: a turn that changes many answers at once reaches states the sweep's one-answer moves
   and the walk's goal-by-goal turns do not (on the runtime benchmark pack, 29 more rules and
   achievements witnessed in the same 2,000 turns, most of them 2 or 3 such turns away);
4. a goal-directed walk for the goals still open, nearest first: each turn answers the goal's own
   observations, makes the rules whose effects bring its unmet parts closer active, and keeps the
   rules that would undo them inactive, as far as answers can (:class:`Walk`); it stops once
   :data:`PATIENCE` turns in a row witness nothing new;
5. the sweep again, resumed where it stopped (its queue and seen states are kept), with whatever
   budget the walk left, so that a small pack's budget is not left unplayed; a sweep that tries
   only one answer a turn (too many combinations to try them all, so it cannot prove) keeps the
   walk's patience, and a big pack's budget is not spent on turns that find nothing.

No state is expanded twice: the sweep keeps the states it has seen, and a turn already played
from a state (by the sweep or a walk) is looked up rather than played and counted again.
"""

from __future__ import annotations

import itertools
import math
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Final, Literal, TypeAlias

import orjson

from creatorpack._json import JsonPath
from creatorpack.contract.conditions import AllOf, AnyOf, Compare, Condition, Goal, LiteralCond, Not, Observed, leaves
from creatorpack.lint.reach import _bnb
from creatorpack.lint.reach._abstract import Analysis, answerable, holds, tree_of
from creatorpack.play.conditions import MISSING, compile_condition, json_equal, resolve
from creatorpack.play.engine import Engine, SessionState, Turn
from creatorpack.play.program import Program
from creatorpack.play.state import set_paths
from creatorpack.play.step import shown
from creatorpack.play.views import RevealKind

__all__ = [
    "FULL_BRANCHING",
    "PATIENCE",
    "REVEALS",
    "SCATTER_PLAYS",
    "SCATTER_TURNS",
    "SOLVE_NODES",
    "SOLVE_WORK",
    "GoalKind",
    "Move",
    "Reached",
    "Search",
    "Stop",
    "Target",
    "Walk",
    "may_show_more",
    "mentioned",
    "program_goals",
]

FULL_BRANCHING: Final = 512
"""Most answer combinations per turn that the sweep tries exhaustively."""

REVEALS: Final[Mapping[RevealKind, GoalKind]] = {
    RevealKind.READER_CARDS: "reader_card",
    RevealKind.AVATARS: "avatar",
    RevealKind.IMAGES: "image",
    RevealKind.RELATIONSHIPS: "relationship",
    RevealKind.ASSETS: "asset",
    RevealKind.VISUAL_ANCHORS: "visual_anchor",
    RevealKind.CASTINGS: "casting",
    RevealKind.DEEDS: "deed",
    RevealKind.KNOWLEDGE: "knowledge",
}
"""The goal kind of each kind of reveal: an item is revealed (its ``reveal_when``, or a casting's ``when``, holds)."""

SOLVE_NODES: Final = 300
"""Branch-and-bound nodes per goal and start when choosing one turn's answers for it."""

SOLVE_WORK: Final = 200_000
"""Branch-and-bound nodes the whole phase of one-turn answers may take (a count, so the same everywhere)."""

SUBGOALS: Final = 3
"""How many rules deep a walk goes after prerequisites (a rule's ``when`` before the rule) when stuck."""

PREREQUISITES: Final = 3
"""Rules whose ``when`` a stuck walk tries to bring about, per stuck turn (the nearest to firing first)."""

DETOURS: Final = 12
"""Walks towards prerequisites that a walk towards one target may take in all."""

SCATTER_PLAYS: Final = 100
"""Plays of pseudo-random answers from each start (:meth:`Search.scatter`)."""

SCATTER_TURNS: Final = 3
"""Turns of each such play (each state on the way is harvested, which may take a turn more)."""

MAX_WALK: Final = 32
"""A walk longer than this starts over from the start, so that witnesses stay short."""

PATIENCE: Final = 200
"""Turns in a row that witness no new target after which the walk stops, and the resumed sweep with
it unless that sweep tries every move (and so may prove). A count, so the same everywhere: on the
runtime benchmark pack the walk's last 620 of 725 turns witnessed nothing."""

GoalKind: TypeAlias = Literal[
    "achievement",
    "ending",
    "rule",
    "completion",
    "reader_card",
    "avatar",
    "image",
    "relationship",
    "asset",
    "visual_anchor",
    "casting",
    "deed",
    "knowledge",
]
Move: TypeAlias = dict[str, Any]
_INF: Final = math.inf
_NONE: Final[frozenset[str]] = frozenset()
_REVEAL_KINDS: Final = frozenset(REVEALS.values())


@dataclass(frozen=True, slots=True)
class Target:
    """A goal: an achievement unlocks, an ending is reached, a rule is active, a rule completes, an item is revealed.

    ``condition`` is the tree of its ``when`` (``completion``, ``reveal_when``), parsed once with the
    program. ``entries``: the runtime entries in whose sessions it can be reached at all (``None``:
    every one); an item scoped by ``entry_ids`` is revealed only in sessions of its entries.
    ``goal`` is its :class:`Goal` (``kind``, ``ident``), made once: the searches key what they
    find by it, and look it up in their loops.
    """

    kind: GoalKind
    ident: str
    where: JsonPath
    condition: Condition
    entries: frozenset[str] | None = None
    goal: Goal = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "goal", Goal(self.kind, self.ident))


def program_goals(program: Program) -> Mapping[GoalKind, Mapping[str, Goal]]:
    """The goals of ``program``'s rules, completions, achievements and endings, by kind and id.

    Made once a search, so that its loops look goals up rather than make one per turn; an id the
    program does not list (an entry's start may name one) gets its goal on first use, kept.
    """
    found: dict[GoalKind, Mapping[str, Goal]] = {
        "rule": _Goals("rule", (rule.id for rule in program.rules)),
        "completion": _Goals("completion", (ident for ident, _ in program.completable)),
        "achievement": _Goals("achievement", (g.id for g in program.achievements)),
        "ending": _Goals("ending", (g.id for g in program.endings)),
    }
    return found


class _Goals(dict[str, Goal]):
    """The goals of one kind by id, each made once (on first use for an id not given)."""

    __slots__ = ("kind",)

    def __init__(self, kind: GoalKind, idents: Iterable[str]) -> None:
        super().__init__((ident, Goal(kind, ident)) for ident in idents)
        self.kind = kind

    def __missing__(self, ident: str) -> Goal:
        goal = self[ident] = Goal(self.kind, ident)
        return goal


class Stop(Exception):  # noqa: N818 - a control-flow signal, not an error
    """The budget (or the safety-net deadline) is spent."""


@dataclass(slots=True)
class Reached:
    """A witness: the entry it starts from and the turns."""

    entry: str
    turns: list[Move]


@dataclass(slots=True)
class _Node:
    """A state on the sweep's frontier, and how far its expansion has got."""

    session: SessionState
    path: Reached
    next: int = 0  # the next move to play from it
    harvested: bool = False


class Search:
    """Plays turns for witnesses; :attr:`found` maps the goals reached (targets or not) to them."""

    def __init__(
        self,
        engine: Engine,
        targets: Sequence[Target],
        budget: int,
        deadline: float,
        clock: Callable[[], float],
        analyses: Sequence[Analysis] = (),
    ) -> None:
        self.engine = engine
        self.analyses = {analysis.entry: analysis for analysis in analyses}
        self.targets = {t.goal: t for t in targets}
        self.found: dict[Goal, Reached] = {}
        self._open = dict(self.targets)  # the targets without a witness, in document order
        self._unsettled = {rule.id for rule in engine.program.rules}  # rules active in no default-entry witness
        self.budget = budget
        self.spent = 0
        self.deadline = deadline
        self.clock = clock
        self.timed_out = False
        self.exhausted = False  # the sweep explored every reachable state
        self.default = engine.entry_ids()[0] if engine.entries else ""
        self.options = _options(engine)
        self.sets = set_paths(engine.schema)
        self._atoms: dict[int, tuple[Compare, Callable[[Any, Any], bool]]] = {}
        self._free: dict[Goal, Callable[[Any, Any], bool]] = {}
        self._code: dict[str, Any] = {}  # generated code -> its function, shared by the targets' free conditions
        self._played: dict[tuple[bytes, bytes], SessionState] = {}  # (state, move) -> the state after
        self._queue: deque[_Node] | None = None  # the sweep's frontier, kept so that it can resume
        self._seen: set[bytes] = set()
        self._reveals = {t.goal for t in targets if t.kind in _REVEAL_KINDS}  # those not yet witnessed
        self._value_at = _value_indices(engine.program, targets)
        self._indexed: list[tuple[Target, int | None]] = []
        self._indexed_for = -1  # how many targets were open when ``_indexed`` was made
        self.patience: int | None = None  # when set: turns without a new target witnessed before play stops
        self._last_new = 0  # the turns spent when a target was last witnessed (or patience was set)

    @property
    def complete(self) -> bool:
        """Whether the sweep tries every combination of answers (at most :data:`FULL_BRANCHING`), so may prove."""
        return math.prod(len(choices) + 1 for choices in self.options) <= FULL_BRANCHING

    @property
    def open(self) -> list[Target]:
        """Targets without a witness, in document order."""
        return list(self._open.values())

    def _open_indexed(self) -> list[tuple[Target, int | None]]:
        """The open targets, each with the index of the condition whose value says it (``None``: none does).

        Made again only when a target was witnessed since (targets only leave): a harvest looks at
        every open target, thousands on a big pack, and looking each one's index up was most of it.
        """
        if self._indexed_for != len(self._open):
            at = self._value_at
            self._indexed = [(target, at.get(target.goal)) for target in self._open.values()]
            self._indexed_for = len(self._open)
        return self._indexed

    def played_states(self) -> list[SessionState]:
        """The session after every distinct turn played so far (from every entry), in the order played."""
        return list(self._played.values())

    # --- playing ------------------------------------------------------------------------------

    def starts(self) -> list[SessionState]:
        """Every entry's start (entries whose initial state does not fit are skipped)."""
        found = []
        for entry in self.engine.entry_ids():
            try:
                start, _ = self.engine.start(entry)
            except Exception:  # noqa: BLE001, S112 - an unplayable entry is reported by the other checks
                continue
            self._record(None, start, (), Reached(start.entry, []))
            found.append(start)
        return found

    def play(self, session: SessionState, move: Move, path: Reached) -> tuple[SessionState, Reached]:
        """One turn, counted against the budget; records every target it reaches.

        A turn already played from the same state is not played (nor counted) again: what it
        reaches was recorded the first time.
        """
        steps = Reached(path.entry, [*path.turns, move])
        # The achievements unlocked so far are part of the key: what a turn newly unlocks depends on them.
        memo = (_key(session) + orjson.dumps(session.achievements), orjson.dumps(move, option=orjson.OPT_SORT_KEYS))
        known = self._played.get(memo)
        if known is not None:
            return known, steps
        if self.spent >= self.budget:
            raise Stop
        if self.patience is not None and self.spent - self._last_new >= self.patience:
            raise Stop
        if self.clock() > self.deadline:
            self.timed_out = True
            raise Stop
        self.spent += 1
        after, active = self.engine.advance(session, Turn(move))
        self._played[memo] = after
        self._record(session, after, active, steps)
        return after, steps

    def _record(self, before: SessionState | None, after: SessionState, active: Sequence[str], steps: Reached) -> None:
        # A rule active in a witness from the default entry keeps it: most of a big pack's active
        # rules are, so they are skipped before any key is made.
        unsettled = self._unsettled
        fresh = unsettled.intersection(active)
        keys = [Goal("rule", ident) for ident in active if ident in fresh] if fresh else []
        keys += [
            Goal("achievement", ident) for ident in after.achievements[len(before.achievements) if before else 0 :]
        ]
        keys += [Goal("ending", after.ending)] if after.ending is not None else []
        keys += [
            Goal("completion", ident) for ident in sorted(after.completed - (before.completed if before else set()))
        ]
        if self._reveals and may_show_more(before, after):  # reveals without a default-entry witness yet
            # What the reader is shown, as play shows it: a reward_only asset once its reward unlocks,
            # a card's avatar, image or relationship once the card is revealed.
            now = shown(self.engine.program, after)
            then = shown(self.engine.program, before) if before is not None else {}
            for kind, goal in REVEALS.items():
                keys += [Goal(goal, ident) for ident in sorted(now.get(kind, _NONE) - then.get(kind, _NONE))]
        default = steps.entry == self.default
        for key in keys:
            known = self.found.get(key)
            # The first witness wins, except that one from the default entry replaces one from another.
            if known is None or (known.entry != self.default and default):
                self.found[key] = steps
                if self._open.pop(key, None) is not None:
                    self._last_new = self.spent
            if default and key.kind == "rule":
                unsettled.discard(key.id)
            if default:
                self._reveals.discard(key)

    # --- phase 1: the sweep -------------------------------------------------------------------

    def sweep(self, starts: Sequence[SessionState], budget: int) -> None:
        """Breadth first until ``budget`` more turns are played or nothing is open; a later call resumes.

        The frontier and the seen states are kept between calls, and a state half expanded when
        the budget ran out is expanded on from the move it stopped at.
        """
        complete = self.complete
        single = _single_moves(self.options)
        if self._queue is None:
            self._seen = {_key(s) for s in starts}
            self._queue = deque(_Node(s, Reached(s.entry, [])) for s in starts)
        queue, seen = self._queue, self._seen
        limit = min(self.budget, self.spent + budget)
        saved, self.budget = self.budget, limit
        patience = self.patience
        if complete:
            self.patience = None  # a sweep that tries every move may prove: it plays its whole budget
        try:
            while queue and self._open:
                node = queue[0]
                if node.session.ending is not None:
                    queue.popleft()
                    continue
                if not complete and not node.harvested:
                    harvested = self.harvest(node.session, node.path)
                    node.harvested = True
                    if harvested is not None and _key(harvested[0]) not in seen:
                        seen.add(_key(harvested[0]))
                        queue.append(_Node(*harvested))
                moves = _moves(self.options, node.session.answers) if complete else single
                while node.next < len(moves):
                    after, steps = self.play(node.session, moves[node.next], node.path)
                    node.next += 1
                    key = _key(after)
                    if key not in seen:
                        seen.add(key)
                        queue.append(_Node(after, steps))
                queue.popleft()
            self.exhausted = complete and not queue
        except Stop:
            pass
        finally:
            self.budget, self.patience = saved, patience

    # --- phases 2 and 3: one turn solved per goal, then the goal-directed walk -----------------

    def solve(self, starts: Sequence[SessionState]) -> None:
        """From each start, one turn per open goal whose answers a branch and bound chose for it.

        A rule's goal is its ``when`` with the answers left free: the turn reaches a state where
        answers alone make it hold, and :meth:`harvest` plays the turn that does. The phase ends
        when its :data:`SOLVE_WORK` nodes are spent.
        """
        work = SOLVE_WORK
        try:
            for start in starts:
                analysis = self.analyses.get(start.entry)
                if analysis is None or not analysis.variables or start.ending is not None:
                    continue
                effects = _bnb.Effects(analysis)
                on = effects.box(start.state)
                formulas = _bnb.Formulas(analysis, on, start.answers)
                writers = effects.writers(formulas, start.completed)
                for target in self.open:
                    if target.goal in self.found or (target.entries is not None and start.entry not in target.entries):
                        continue
                    late = self.clock() > self.deadline
                    if work <= 0 or late:
                        self.timed_out = late
                        return
                    rule = target.kind == "rule"
                    whole = target.condition
                    node = _free(whole, self.engine.observations, want=True) if rule else whole
                    move, nodes = _bnb.solve(effects, formulas, writers, node, on, SOLVE_NODES)
                    work -= nodes
                    if move is None:
                        continue
                    after, steps = self.play(start, move, Reached(start.entry, []))
                    if rule and target.goal not in self.found:
                        self.harvest(after, steps)
        except Stop:
            pass

    def scatter(self, starts: Sequence[SessionState], plays: int = SCATTER_PLAYS, turns: int = SCATTER_TURNS) -> None:
        """From each start, ``plays`` plays of ``turns`` turns of pseudo-random answers; each state harvested.

        Each play keeps, per observation, a leaning: how often it answers it, and which answer class
        (:func:`_options`) it mostly gives, so that a play repeats itself the way a reader does and
        drives the state one way (answers drawn afresh each turn average out). The draws are a
        function of the play's, turn's and observation's numbers alone (:func:`_draw`), so the
        plays are the same on every machine and every run.
        """
        try:
            for start in starts:
                if start.ending is not None:
                    continue
                for play in range(plays):
                    if not self._open:
                        return
                    leanings = [_draw(play, turns, i) for i in range(len(self.options))]
                    session, path = start, Reached(start.entry, [])
                    for turn in range(turns):
                        move: Move = {}
                        for i, choices in enumerate(self.options):
                            draw, leaning = _draw(play, turn, i), leanings[i]
                            if not choices or draw & 0xFF >= leaning & 0xFF:
                                continue  # left as it was
                            pick = leaning >> 8 if draw >> 8 & 0b111 else draw >> 11
                            move[choices[pick % len(choices)][0]] = choices[pick % len(choices)][1]
                        session, path = self.play(session, move, path)
                        if session.ending is not None:
                            break
                        if (harvested := self.harvest(session, path)) is not None and harvested[0].ending is not None:
                            break
        except Stop:
            pass

    def walk(self, starts: Sequence[SessionState]) -> None:
        """Walk towards each open target, nearest first, while budget lasts.

        A walk starts from the first start that takes turns and from which the target is not out of
        reach (for a target scoped to other entries, the first of its entries' starts that is so).
        It stops once :data:`PATIENCE` turns in a row witness no new target, and the patience stays
        set for the sweep resumed after it (:meth:`sweep` sets it aside when it tries every move).
        """
        playable = [s for s in starts if s.ending is None]
        if not playable:
            return
        self.patience, self._last_new = PATIENCE, self.spent
        walks: dict[str, Walk] = {}
        order = sorted(self.open, key=lambda t: self.distance(t.condition, playable[0].state, want=True))
        try:
            for target in order:
                start = next((s for s in playable if self._within_reach(target, s)), None)
                if start is None or target.goal in self.found:
                    continue
                walk = walks.get(start.entry) or walks.setdefault(start.entry, Walk(self, start))
                walk.towards(target)
                if target.goal not in self.found and walk.path.turns:
                    walk.restart()
                    walk.towards(target)
        except Stop:
            pass

    def _within_reach(self, target: Target, start: SessionState) -> bool:
        """Whether a walk from ``start`` may reach ``target``: its entry's, and not out of reach from there.

        Out of reach: a distance without end, or a condition the entry's over-approximation rules out
        (a member only another entry sets, say).
        """
        if target.entries is not None and start.entry not in target.entries:
            return False
        if math.isinf(self.distance(target.condition, start.state, want=True)):
            return False
        analysis = self.analyses.get(start.entry)
        return analysis is None or holds(analysis, target.condition, analysis.after) is not None

    def harvest(self, session: SessionState, path: Reached) -> tuple[SessionState, Reached] | None:
        """Play one turn whose answers reach every open target that answers alone can reach from ``session``."""
        if session.ending is not None:
            return None
        fixed: Move = {}
        hits = 0
        values = session.values
        for target, index in self._open_indexed():
            if not (values[index] if index is not None else self.free(target)(session.state, {})):
                continue
            trial = dict(fixed)
            if self.satisfy(target.condition, session, trial, want=True):
                fixed = trial
                hits += 1
        return self.play(session, fixed, path) if hits else None

    def free(self, target: Target) -> Callable[[Any, Any], bool]:
        """``target``'s condition with its observations free: whether answers alone can make it hold."""
        found = self._free.get(target.goal)
        if found is None:
            found = self._free[target.goal] = compile_condition(
                _free(target.condition, self.engine.observations, want=True), set_paths=self.sets, shared=self._code
            ).evaluate
        return found

    # --- conditions on concrete states --------------------------------------------------------

    def atom(self, node: Compare, state: Any) -> bool:
        """The runtime's own value of a comparison on ``state``."""
        known = self._atoms.get(id(node))
        if known is None:
            # A comparison is called a few times here: its closure is cheaper than generating its code
            known = self._atoms[id(node)] = (
                node,
                compile_condition(node, set_paths=self.sets, generate=False).evaluate,
            )
        return known[1](state, {})

    def distance(self, node: Condition, state: Any, *, want: bool) -> float:
        """How far ``state`` is from ``node`` being ``want``: 0 when answers alone can make it so."""
        match node:
            case LiteralCond(value=value):
                return 0 if (value is True) == want else _INF
            case Not(condition=inner):
                return self.distance(inner, state, want=not want)
            case AllOf(conditions=children) if want:
                return sum(self.distance(c, state, want=want) for c in children)
            case AnyOf(conditions=children) if not want:
                return sum(self.distance(c, state, want=want) for c in children)
            case AllOf(conditions=children) | AnyOf(conditions=children):
                return min((self.distance(c, state, want=want) for c in children), default=_INF)
            case Observed() as observed:
                return 0 if not want or self._answerable(observed) else _INF
            case Compare() as atom:
                if self.atom(atom, state) == want:
                    return 0
                return _gap(atom, resolve(state, _tokens(atom)), want=want)

    def needs(self, node: Condition, state: Any, *, want: bool) -> Iterator[tuple[tuple[str, ...], Any]]:
        """The changes that would bring ``node`` closer to ``want``: ``(path, "+"|"-"|("add"|"remove", m))``."""
        match node:
            case Not(condition=inner):
                yield from self.needs(inner, state, want=not want)
            case AllOf(conditions=children) | AnyOf(conditions=children) as group:
                if isinstance(group, AllOf) == want:
                    for child in children:
                        yield from self.needs(child, state, want=want)
                elif children:
                    best = min(children, key=lambda c: self.distance(c, state, want=want))
                    yield from self.needs(best, state, want=want)
            case Compare() as atom if self.atom(atom, state) != want:
                tokens = _tokens(atom)
                current = resolve(state, tokens)
                value = atom.value
                if atom.op == "contains" and isinstance(current, list) and isinstance(value, str):
                    yield tokens, ("add" if want else "remove", value)
                elif type(current) is int and isinstance(value, int | float) and not isinstance(value, bool):
                    yield tokens, "+" if _gap_sign(atom.op, current, value, want=want) > 0 else "-"
            case _:  # a literal, an observation, or a comparison that already is `want`
                return

    def satisfy(self, node: Condition, session: SessionState, fixed: Move, *, want: bool) -> bool:
        """Extend ``fixed`` (this turn's answers) so that ``node`` is ``want`` on ``session``; False if it cannot."""
        match node:
            case LiteralCond(value=value):
                return (value is True) == want
            case Not(condition=inner):
                return self.satisfy(inner, session, fixed, want=not want)
            case AllOf(conditions=children) | AnyOf(conditions=children) as group:
                if isinstance(group, AllOf) == want:
                    return all(self.satisfy(c, session, fixed, want=want) for c in children)
                for child in children:
                    trial = dict(fixed)
                    if self.satisfy(child, session, trial, want=want):
                        fixed.update(trial)
                        return True
                return False
            case Observed() as observed:
                return self._answer(observed, session, fixed, want=want)
            case Compare() as atom:
                return self.atom(atom, session.state) == want

    def _answer(self, node: Observed, session: SessionState, fixed: Move, *, want: bool) -> bool:
        ident, value = node.id, node.value
        current = fixed.get(ident, session.answers.get(ident, MISSING))
        if (current is not MISSING and json_equal(current, value)) == want:
            return True
        if ident in fixed:
            return False
        observation = self.engine.observations.get(ident)
        if observation is None:
            return False
        if want:
            if not self._answerable(node):
                return False
            fixed[ident] = value
            return True
        other = _another_answer(observation, value)
        if other is MISSING:
            return False
        fixed[ident] = other
        return True

    def _answerable(self, node: Observed) -> bool:
        return answerable(self.engine.observations, node)


class Walk:
    """A session walked towards one target after another; it starts over when it gets long or ends."""

    def __init__(self, search: Search, start: SessionState) -> None:
        self.search = search
        self.start = start
        self.session = start
        self.path = Reached(start.entry, [])
        self.visited = {_key(start)}  # the states this walk has stood on since it last started over
        self.detours = DETOURS  # walks towards prerequisites left to the current target
        program = search.engine.program
        self.helpers: dict[tuple[tuple[str, ...], Any], list[Any]] = {}
        for rule in program.rules:
            for effect in rule.effects:
                if effect.error is not None:
                    continue
                if effect.op == "increment" and effect.by:
                    change: Any = "+" if effect.by > 0 else "-"
                elif effect.op in ("add", "remove"):
                    change = (effect.op, effect.value)
                else:
                    continue
                rules = self.helpers.setdefault((effect.tokens, change), [])
                if not rules or rules[-1] is not rule:
                    rules.append(rule)
        self.conditions = program.conditions

    def towards(self, target: Target, depth: int = 0) -> None:
        """Play greedy turns towards ``target`` while they bring it closer.

        When no turn does, the walk first brings closer the ``when`` of a rule that would (a
        prerequisite: the firewood before the fire), at most :data:`SUBGOALS` rules deep; at
        ``depth`` > 0 ``target`` is such a rule's ``when``, met once answers alone can make it hold.
        """
        search = self.search
        if not depth:
            self.detours = DETOURS
        if len(self.path.turns) >= MAX_WALK or self.session.ending is not None:
            self.restart()
        stalls = 0
        self.harvest()
        while target.goal not in search.found and stalls < 2:
            before = search.distance(target.condition, self.session.state, want=True)
            if depth and before == 0:
                return
            best: tuple[float, SessionState, Reached] | None = None
            for move in self._moves(target):
                after, steps = search.play(self.session, move, self.path)
                if target.goal in search.found:
                    return
                if after.ending is not None or _key(after) in self.visited:
                    continue  # an ending, or back where the walk has been: no way forward
                score = search.distance(target.condition, after.state, want=True)
                if best is None or score < best[0]:
                    best = (score, after, steps)
                if score < before:
                    break
            if (best is None or best[0] >= before) and depth < SUBGOALS and self._prerequisite(target, depth):
                stalls = 0
                continue
            if best is None:
                return
            stalls = stalls + 1 if best[0] >= before else 0
            if best[0] <= before:
                _, self.session, self.path = best
                self.visited.add(_key(self.session))
                self.harvest()
            if len(self.path.turns) >= 2 * MAX_WALK:
                return

    def _prerequisite(self, target: Target, depth: int) -> bool:
        """Walk towards the ``when`` of a rule that would bring ``target`` closer; whether one now holds.

        The rules nearest to firing are tried first, :data:`PREREQUISITES` of them, and a walk takes
        at most :data:`DETOURS` such detours per target, so that a big pack's walk stays bounded by
        work, not only by the turns it plays.
        """
        search, state = self.search, self.session.state
        candidates: list[tuple[float, int, Any]] = []
        for tokens, change in dict.fromkeys(search.needs(target.condition, state, want=True)):
            for rule in self.helpers.get((tokens, change), ()):
                if rule.id in self.session.completed:
                    continue
                gap = search.distance(tree_of(self.conditions[rule.when]), state, want=True)
                if 0 < gap < _INF:
                    candidates.append((gap, len(candidates), rule))
        for _, _, rule in sorted(candidates)[:PREREQUISITES]:
            if self.detours <= 0:
                return False
            self.detours -= 1
            when = tree_of(self.conditions[rule.when])
            self.towards(Target("rule", f"~{rule.id}", (), when), depth + 1)
            if search.distance(when, self.session.state, want=True) == 0:
                return True
        return False

    def restart(self) -> None:
        """Go back to the start."""
        self.session, self.path = self.start, Reached(self.start.entry, [])
        self.visited = {_key(self.start)}

    def harvest(self) -> None:
        """One turn that answers for every open target that answers alone can reach from here."""
        self.search.harvest(self.session, self.path)

    def _moves(self, target: Target) -> Iterator[Move]:
        """This turn's candidate answers: all helpers at once, then each helper alone."""
        search, session = self.search, self.session
        own: Move = {}
        search.satisfy(target.condition, session, own, want=True)
        helpers, spoilers = [], []
        for tokens, change in dict.fromkeys(search.needs(target.condition, session.state, want=True)):
            helpers += [r for r in self.helpers.get((tokens, change), ()) if r.id not in session.completed]
            spoilers += [r for r in self.helpers.get((tokens, _opposite(change)), ()) if r.id not in session.completed]
        combined = dict(own)
        singles: list[Move] = []
        for rule in dict.fromkeys(helpers):
            trial = dict(combined)
            if search.satisfy(tree_of(self.conditions[rule.when]), session, trial, want=True):
                combined = trial
                if len(singles) < 3:
                    alone = dict(own)
                    if search.satisfy(tree_of(self.conditions[rule.when]), session, alone, want=True):
                        singles.append(alone)
        for rule in dict.fromkeys(spoilers):
            trial = dict(combined)
            if search.satisfy(tree_of(self.conditions[rule.when]), session, trial, want=False):
                combined = trial
        yielded: list[Move] = []
        for move in (combined, *singles, own):
            if move not in yielded:
                yielded.append(move)
                yield move


# --- helpers -------------------------------------------------------------------------------------


def _value_indices(program: Program, targets: Sequence[Target]) -> dict[Goal, int]:
    """For each target whose condition reads no answer: the index of that condition in ``program``.

    Answers alone cannot change such a condition, so whether they can make it hold is its value on
    the state, which a session keeps for every condition (``SessionState.values``, kept up to date
    by the runtime's turn): :meth:`Search.harvest` reads it there rather than evaluating it again
    (on the runtime benchmark pack, about 2,000,000 evaluations and 13,000 generated functions).
    A target gets an index only when the program's condition is the target's, node for node.
    """
    known: dict[Goal, int] = {}
    for rule in program.rules:
        known[Goal("rule", rule.id)] = rule.when
        if rule.completion is not None:
            known[Goal("completion", rule.id)] = rule.completion
    known.update((Goal("achievement", goal.id), goal.when) for goal in program.achievements)
    known.update((Goal("ending", goal.id), goal.when) for goal in program.endings)
    known.update((Goal(REVEALS[reveal.kind], reveal.ident), reveal.when) for reveal in program.reveals)
    found: dict[Goal, int] = {}
    for target in targets:
        index = known.get(target.goal)
        if index is None or any(isinstance(leaf, Observed) for leaf in leaves(target.condition)):
            continue
        if tree_of(program.conditions[index]) == target.condition:
            found[target.goal] = index
    return found


def may_show_more(before: SessionState | None, after: SessionState) -> bool:
    """Whether a turn may have shown the reader more: a reveal, or a reward that lets one show (reveals are sticky)."""
    if before is None:
        return True
    grew = any(len(after.revealed.get(k, _NONE)) != len(before.revealed.get(k, _NONE)) for k in REVEALS)
    rewarded = len(after.achievements) != len(before.achievements) or len(after.badges) != len(before.badges)
    return grew or rewarded or after.ending != before.ending


def _free(node: Condition, observations: Mapping[str, Mapping[str, Any]], *, want: bool) -> Condition:
    """A condition that holds where ``node`` can be made ``want`` by this turn's answers alone."""
    match node:
        case LiteralCond(value=value):
            return LiteralCond((value is True) == want)
        case Not(condition=inner):
            return _free(inner, observations, want=not want)
        case AllOf(conditions=children) | AnyOf(conditions=children):
            freed = tuple(_free(c, observations, want=want) for c in children)
            every = isinstance(node, AllOf)
            if not freed:
                return LiteralCond(every == want)
            return AllOf(freed) if every == want else AnyOf(freed)
        case Observed(id=ident, value=value):
            return LiteralCond(_answers_can(observations.get(ident), value, want=want))
        case Compare():
            return node if want else Not(node)


def _answers_can(observation: Mapping[str, Any] | None, value: Any, *, want: bool) -> bool:
    """Whether some answer to ``observation`` makes its being answered ``value`` be ``want``."""
    if observation is None:
        return not want
    if want:
        return observation.get("type") not in ("boolean", "choice") or (
            isinstance(value, bool)
            if observation.get("type") == "boolean"
            else isinstance(value, str) and value in observation.get("choices", {})
        )
    return _another_answer(observation, value) is not MISSING


def _opposite(change: Any) -> Any:
    if change == "+":
        return "-"
    if change == "-":
        return "+"
    op, member = change
    return ("remove" if op == "add" else "add", member)


def _tokens(node: Compare) -> tuple[str, ...]:
    return node.tokens if node.tokens is not None else ("\0",)


_FLIP: Final = {"gt": "lte", "gte": "lt", "lt": "gte", "lte": "gt", "eq": "ne", "ne": "eq"}


def _gap_sign(op: str, current: int, value: float, *, want: bool) -> float:
    """Positive when ``current`` must grow for ``current op value`` to be ``want``."""
    op = op if want else _FLIP.get(op, op)
    if op in ("gt", "gte"):
        return 1
    if op in ("lt", "lte"):
        return -1
    if op == "eq":
        return value - current
    return 1  # ne: either way


def _gap(node: Compare, current: Any, *, want: bool) -> float:
    op: str = node.op
    value = node.value
    if type(current) is not int or not isinstance(value, int | float) or isinstance(value, bool):
        return 1
    op = op if want else _FLIP.get(op, op)
    if op == "gt":
        return max(1, math.floor(value) + 1 - current)
    if op == "gte":
        return max(1, math.ceil(value) - current)
    if op == "lt":
        return max(1, current - math.ceil(value) + 1)
    if op == "lte":
        return max(1, current - math.floor(value))
    if op == "eq":
        return max(1, abs(value - current))
    return 1


def _another_answer(observation: Mapping[str, Any], value: Any) -> Any:
    if observation.get("type") == "boolean":
        return (not value) if isinstance(value, bool) else True
    for choice in observation.get("choices", {}) if observation.get("type") == "choice" else ():
        if choice != value:
            return choice
    return MISSING


def mentioned(program: Program, found: dict[str, list[Any]]) -> None:
    """Add to ``found`` the values that the ``observed`` conditions of ``program`` name, by observation id."""
    for compiled in program.conditions:
        for leaf in leaves(tree_of(compiled)):
            if isinstance(leaf, Observed):
                values = found.setdefault(leaf.id, [])
                if not any(json_equal(leaf.value, v) for v in values):
                    values.append(leaf.value)


def _options(engine: Engine) -> list[list[tuple[str, Any]]]:
    # Answers that no condition tells apart are one class: the values some `observed` condition
    # names, plus one representative of the rest (which also stands for "unanswered").
    named_values: dict[str, list[Any]] = {}
    mentioned(engine.program, named_values)
    options: list[list[tuple[str, Any]]] = []
    for ident, observation in engine.observations.items():
        answers: list[Any] = (
            [True, False] if observation.get("type") == "boolean" else list(observation.get("choices", {}))
        )
        named = [a for a in answers if any(json_equal(a, m) for m in named_values.get(ident, []))]
        rest = [a for a in answers if a not in named]
        options.append([(ident, answer) for answer in named + rest[:1]])
    return options


def _moves(options: list[list[tuple[str, Any]]], answers: Mapping[str, Any]) -> list[Move]:
    # "Leave it unanswered" is a move only while the observation is unanswered: afterwards it
    # equals answering the same value again.
    per: list[list[tuple[str | None, Any]]] = [
        [*choices] if choices and choices[0][0] in answers else [(None, None), *choices] for choices in options
    ]
    return [{ident: value for ident, value in combo if ident is not None} for combo in itertools.product(*per)]


def _single_moves(options: list[list[tuple[str, Any]]]) -> list[Move]:
    moves: list[Move] = [{}]
    moves += [{ident: value} for choices in options for ident, value in choices]
    return moves


def _draw(play: int, turn: int, observation: int) -> int:
    """A pseudo-random 32-bit number for one observation of one turn of one play (splitmix64 of the three).

    Integer arithmetic alone, so it is the same on every machine and Python version.
    """
    mask = (1 << 64) - 1
    z = ((((play * 1_000_003 + turn) * 1_000_003 + observation) + 1) * 0x9E3779B97F4A7C15) & mask
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & mask
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & mask
    return (z ^ (z >> 31)) >> 32


def _key(session: SessionState) -> bytes:
    return orjson.dumps(
        [session.entry, session.state, session.answers, sorted(session.completed)], option=orjson.OPT_SORT_KEYS
    )
