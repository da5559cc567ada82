"""Exhaustive search: every reachable state, breadth first, as a decision procedure for reachability.

Explicit-state search over distinct (state, answers, completed rules, ending) tuples, with
hashing, bounded by a count of such states (never by turns or seconds, so the same pack gives
the same findings on any machine). When the frontier empties, every goal not reached is proved
unreachable, and every goal reached has a shortest witness (breadth first), which replays in the
runtime because it was played by the runtime.

What keeps the space small is what the runtime reads, and nothing more:

- **Answers by class.** Conditions read an answer only through ``observed`` equalities, so the
  answers of one observation fall into classes: each value some condition names, and one class
  for the rest (which also holds "unanswered"). An observation no condition names has one class
  and is never answered.
- **Answers are inputs, not state.** A turn records its answers before any rule reads them, and a
  kept answer is the same as answering it again, so what a turn does depends on the state, the
  completed rules and this turn's answers, not on the answers before it. The only exception is an
  observation whose every value some condition names: its "unanswered" class is available only
  until it is first answered. So a state is expanded once per (entry, state, completed rules,
  observations still unanswered of that kind), and the tuples it leads to (with this turn's answer
  classes) are what the bound counts.
- **Reveals that combine sticky facts.** A card's avatar, image or relationship shows once the
  card is revealed too, and a ``reward_only`` asset once a reward that gives it unlocked: facts
  from different turns of a play. When such goals are searched for, the revealed items and the
  rewards given are part of the state, so that no combination of them is merged away.
"""

from __future__ import annotations

import hashlib
import itertools
import math
from collections import deque
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Final, TypeAlias

import orjson

from creatorpack.contract.conditions import Condition, Goal, Observed, leaves
from creatorpack.lint.reach._abstract import tree_of
from creatorpack.lint.reach._classes import MoveTable, Outcome, Turns
from creatorpack.lint.reach._successor import Evaluators, Successor
from creatorpack.lint.reach._witness import REVEALS, Move, Reached, Target, may_show_more, mentioned, program_goals
from creatorpack.play._paused import collector_paused
from creatorpack.play.conditions import json_equal
from creatorpack.play.engine import Engine, SessionState, Turn
from creatorpack.play.program import Program
from creatorpack.play.step import reachable_assets, reward_assets, shown

__all__ = ["COMBINED", "PACK_SIZE", "Exhaustion", "explore", "revealed_along", "scaled_bound"]

COMBINED: Final = frozenset({"avatar", "image", "relationship", "asset"})
FAST: Final = frozenset({"achievement", "ending", "rule", "completion"})
"""Goal kinds a turn's state, completions, ending and active rules decide: what :class:`Successor` gives."""
"""Goal kinds whose being shown combines sticky facts from different turns (see the module docstring)."""

PACK_SIZE: Final = 400
"""Compiled conditions and effects of a pack up to which a state counts as one against the bound.

A bigger pack's states cost more to play, so each counts as ``size / PACK_SIZE`` states: the
bound stays a count (the same on every machine) while the time it allows stays about the same.
"""

HUNT_SHARE: Final = 10
"""When the analysis allows more states than the bound, the search hunts for witnesses only, in 1/HUNT_SHARE of it."""

BEAM: Final = 50
"""States a turn the beam keeps (see :meth:`_Fast.beam`)."""

_OTHER: Final = object()  # the class of the answers no condition names, "unanswered" among them
_HISTORY_KINDS: Final = ("reader_cards", "avatars", "images", "relationships", "assets")


def scaled_bound(program: Program, max_states: int) -> int:
    """The states :func:`explore` counts to on ``program`` for ``max_states`` (fewer on a big pack)."""
    size = len(program.conditions) + sum(len(rule.effects) for rule in program.rules)
    return max_states if size <= PACK_SIZE else max(1, max_states * PACK_SIZE // size)


@dataclass(frozen=True, slots=True)
class Exhaustion:
    """What the exhaustive search found: shortest witnesses by goal, the states it counted, whether it finished.

    ``complete``: the frontier emptied, so every state reachable from every playable entry was
    explored and a goal not in :attr:`found` is unreachable. ``skipped``: why it did not start
    (the boxes allow more states than the bound, or one turn alone has more answer combinations),
    or ``""``. ``turns``: the runtime steps it played.
    """

    found: Mapping[Goal, Reached] = field(default_factory=dict)
    artless: Mapping[Goal, Reached] = field(default_factory=dict)
    """Achievements and endings, each with a play that reaches it while its artwork is not served."""
    states: int = 0
    complete: bool = False
    timed_out: bool = False
    skipped: str = ""
    turns: int = 0


@dataclass(frozen=True, slots=True)
class _Observation:
    ident: str
    named: tuple[Any, ...]  # the values some condition names
    other: Any  # a value no condition names (``_OTHER`` when every value is named)


_Outcome: TypeAlias = tuple[SessionState, Sequence[str]]  # a turn's session after it, and its active rules


@dataclass(frozen=True, slots=True)
class _Node:
    session: SessionState
    parent: int  # index of the node it was reached from (-1: a start)
    move: Move


@dataclass(frozen=True, slots=True)
class _Light:
    """A node of the fast search: what a state's future depends on, and how it was reached."""

    entry: str
    state: Mapping[str, Any]
    completed: frozenset[str]
    fresh: frozenset[str]  # the observations whose every value is named that are still unanswered
    parent: int
    move: Move
    index: int = -1  # the state's ``int`` in the search's :class:`~creatorpack.lint.reach._classes.Turns`


def _playing(engine: Engine) -> Program:
    """The program whose condition functions the search calls: the typed twin when every entry's start fits its shape.

    As the engine's own turns (``Engine.advance``, the guided search's) call them: a turn from a
    state that fits makes one that fits, so every state met does, and the functions the guided
    search made are called again instead of a generic set being generated (1.4 s on the runtime
    benchmark pack). An entry whose initial state does not fit as written gets the generic code.
    """
    program = engine.program
    shape = program.shape
    starts = [entry.get("initial_state", {}) for entry in engine.entries]
    if shape is None or not starts or not all(shape.fits(start) for start in starts):
        return program
    return program.fitted(starts[0])


class _Explorer:
    """One breadth-first pass from every entry's start; ``history``: the sticky facts that are part of a state."""

    def __init__(
        self,
        engine: Engine,
        targets: Sequence[Target],
        bound: int,
        deadline: float,
        clock: Callable[[], float],
        history: Sequence[Target] = (),
        pending: set[Goal] | None = None,
    ) -> None:
        self.engine = engine
        self.program = engine.program
        self.bound = bound
        self.deadline = deadline
        self.clock = clock
        self.targets = {t.goal for t in targets}
        self.named = program_goals(engine.program)
        self.default = engine.entry_ids()[0] if engine.entries else ""
        self.observations = _observations(engine)
        self.states = 0  # distinct (state, answers, completed rules, ending) tuples met
        self.turns = 0  # runtime steps played
        self.timed_out = False
        self.nodes: list[_Node] = []
        self.found_at: dict[Goal, tuple[str, int, Move | None]] = {}  # goal -> (entry, node, move)
        self.artless_at: dict[Goal, tuple[str, int, Move | None]] = {}  # goals reached before their artwork shows
        self.reveals = any(t.kind in REVEALS.values() for t in targets)
        # The targets whose witness (from the default entry) ends the search; the others are tracked for shorter ones.
        self.pending = set(self.targets) if pending is None else pending & self.targets
        self.pending_reveals = {t.goal for t in targets if t.kind in REVEALS.values() and t.goal in self.pending}
        self.facts = _facts(self.program, history) if history else None
        self.goals = {g.id: g for g in self.program.achievements}
        self.artworks = {  # the art each achievement and ending shows, for `artwork-not-revealed`
            goal: g.artwork
            for named, goals in (
                (self.named["achievement"], self.program.achievements),
                (self.named["ending"], self.program.endings),
            )
            for g in goals
            if g.artwork and (goal := named[g.id]) in self.targets
        }
        self._moves: dict[frozenset[str], list[tuple[Move, bytes]]] = {}
        program = self.program
        reading = [_reads_answers(tree_of(condition)) for condition in program.conditions]
        # Which rules fire (on the state before the turn's effects), then what is read after them.
        # Rules with effects change the state; a rule without is a goal only while it is open.
        self.changing = [rule.when for rule in program.rules if reading[rule.when] and rule.effects]
        self.idle = {
            self.named["rule"][rule.id]: rule.when for rule in program.rules if reading[rule.when] and not rule.effects
        }
        self._firing: tuple[int, list[Callable[[Any, Any], bool]]] = (-1, [])
        self.steering = [r.completion for r in program.rules if r.completion is not None and reading[r.completion]]
        self.steering += [g.when for g in program.endings if reading[g.when]]
        self.goal_conditions = {
            self.named["achievement"][g.id]: g.when for g in program.achievements if reading[g.when]
        }
        self.reveal_conditions = [r.when for r in program.reveals if reading[r.when]]
        self._settled: tuple[int, list[Callable[[Any, Any], bool]]] = (-1, [])
        # Each condition's function, generated once (the program's stand-ins, kept, would generate it on every call).
        self.playing = _playing(engine)
        self.evaluators = Evaluators(self.playing)

    # --- answers -------------------------------------------------------------------------------

    def branching(self) -> int:
        """Answer combinations a turn has at most (every observation unanswered)."""
        return math.prod(len(o.named) + 1 for o in self.observations)

    def moves(self, session: SessionState) -> list[tuple[Move, bytes]]:
        """This state's moves: one per combination of answer classes available, with the classes' key."""
        return self.moves_from(
            frozenset(o.ident for o in self.observations if o.other is _OTHER and o.ident not in session.answers)
        )

    def moves_from(self, fresh: frozenset[str]) -> list[tuple[Move, bytes]]:
        """The moves of a state whose observations ``fresh`` (every value named) are still unanswered."""
        known = self._moves.get(fresh)
        if known is not None:
            return known
        per: list[list[tuple[str, Any, int]]] = []
        for o in self.observations:
            options = [(o.ident, value, i) for i, value in enumerate(o.named)]
            if o.other is not _OTHER:
                options.append((o.ident, o.other, -1))
            elif o.ident in fresh:
                options.append((o.ident, _OTHER, -1))  # left unanswered: only while it still is
            per.append(options)
        found: list[tuple[Move, bytes]] = []
        for combo in itertools.product(*per):
            move = {ident: value for ident, value, _ in combo if value is not _OTHER}
            found.append((move, bytes(c + 1 for _, _, c in combo)))
        self._moves[fresh] = found
        return found

    # --- states --------------------------------------------------------------------------------

    def key(self, session: SessionState, answers: Mapping[str, Any] | None = None) -> bytes:
        """What the future of ``session`` depends on (see the module docstring); ``answers``: instead of its own."""
        answers = session.answers if answers is None else answers
        fresh = sorted(o.ident for o in self.observations if o.other is _OTHER and o.ident not in answers)
        parts: list[Any] = [session.entry, session.state, sorted(session.completed), fresh]
        if self.facts is not None:
            revealed, (kinds, assets) = session.revealed, self.facts
            parts.append([sorted(revealed.get(kind, frozenset()) & wanted) for kind, wanted in kinds.items()])
            earned = [self.goals[a] for a in session.achievements if a in self.goals]
            parts.append(sorted(reward_assets(self.program, earned, session.badges) & assets))
        return orjson.dumps(parts, option=orjson.OPT_SORT_KEYS)

    def record(
        self, before: SessionState | None, after: SessionState, active: Sequence[str], at: int, move: Move | None
    ) -> None:
        """Note the goals the turn from node ``at`` with ``move`` reached (``move`` ``None``: node ``at`` itself)."""
        if not self.pending:
            return
        named = self.named
        keys = [named["rule"][ident] for ident in active]
        keys += [named["achievement"][i] for i in after.achievements[len(before.achievements) if before else 0 :]]
        keys += [named["ending"][after.ending]] if after.ending is not None else []
        keys += [named["completion"][i] for i in after.completed - (before.completed if before else frozenset())]
        if self.reveals and self.pending_reveals and may_show_more(before, after):
            now = shown(self.program, after)
            then = shown(self.program, before) if before is not None else {}
            for kind, goal in REVEALS.items():
                keys += [Goal(goal, ident) for ident in now.get(kind, frozenset()) - then.get(kind, frozenset())]
        default = after.entry == self.default
        if self.artworks and (
            after.ending is not None or len(after.achievements) != len(before.achievements if before else ())
        ):
            served = set(reachable_assets(self.program, after))
            for key in keys:
                art = self.artworks.get(key)
                known = self.artless_at.get(key)
                if art is not None and art not in served and (known is None or (known[0] != self.default and default)):
                    self.artless_at[key] = (after.entry, at, move)
        for key in keys:
            if key not in self.targets:
                continue
            known = self.found_at.get(key)
            # The first (shortest) witness wins, except that one from the default entry replaces one from another.
            if known is None or (known[0] != self.default and default):
                self.found_at[key] = (after.entry, at, move)
                if default:
                    self.pending.discard(key)
                    self.pending_reveals.discard(key)

    def firing(self) -> list[Callable[[Any, Any], bool]]:
        """The ``when`` conditions that read answers and matter now: turns that agree on them change the state alike.

        Those of the rules with effects, and those of the rules without while they are open goals.
        """
        if self._firing[0] != len(self.pending):
            indices = self.changing + [i for key, i in self.idle.items() if key in self.pending]
            evaluators = self.evaluators
            self._firing = (len(self.pending), [evaluators[i] for i in dict.fromkeys(indices)])
        return self._firing[1]

    def settled(self) -> list[Callable[[Any, Any], bool]]:
        """The conditions read after a turn's effects that read answers and matter now.

        Two turns from one state that fire the same rules agree on everything else when they agree
        on these: rule completions and endings (what the turn does), and the conditions of the goals
        not yet reached (what the turn reaches): an achievement's, or every reveal's while one is open.
        """
        if self._settled[0] != len(self.pending):
            indices = list(self.steering)
            indices += [i for key, i in self.goal_conditions.items() if key in self.pending]
            indices += self.reveal_conditions if self.pending_reveals else []
            evaluators = self.evaluators
            self._settled = (len(self.pending), [evaluators[i] for i in dict.fromkeys(indices)])
        return self._settled[1]

    def _done(self) -> bool:
        """Every goal reached, from the default entry (where it can be): nothing is left to prove."""
        return not self.pending

    def run(self) -> Exhaustion:
        """Breadth first until the frontier empties, the bound is reached, or every goal is."""
        if self.branching() > self.bound:
            return Exhaustion(
                skipped=f"the exhaustive search did not start (one turn has {self.branching():,} combinations of "
                f"answers, more than its bound of {self.bound:,} states)"
            )
        seen: set[bytes] = set()
        tuples: set[bytes] = set()
        queue: deque[int] = deque()
        for entry in self.engine.entry_ids():
            try:
                start, _ = self.engine.start(entry)
            except Exception:  # noqa: BLE001, S112 - an unplayable entry is reported by the other checks
                continue
            self.nodes.append(_Node(start, -1, {}))
            self.record(None, start, (), len(self.nodes) - 1, None)
            self.states += 1
            key = self.key(start)
            if start.ending is None and key not in seen:
                seen.add(key)
                queue.append(len(self.nodes) - 1)
        while queue:
            if self._done():
                return self._finish()
            at = queue.popleft()
            session = self.nodes[at].session
            state, answers = session.state, session.answers
            settled = self.settled()
            fires = self.firing()
            # By the rules that fire: the state after the turn; by what conditions read there: the turn.
            outcomes: dict[tuple[bool, ...], tuple[Any, dict[tuple[bool, ...], _Outcome]]] = {}
            for move, classes in self.moves(session):
                if self.clock() > self.deadline:
                    self.timed_out = True
                    return self._finish()
                given = {**answers, **move}
                firing = tuple(evaluate(state, given) for evaluate in fires)
                known = outcomes.get(firing)
                after_state = None if known is None else known[0]
                reads = None if known is None else tuple(evaluate(after_state, given) for evaluate in settled)
                hit = None if known is None or reads is None else known[1].get(reads)
                if hit is not None:
                    # The same rules fire as on a turn already played from here, and every condition read after
                    # it reads the same: the same state, completions, ending and goals; only the answers differ.
                    after, active = hit
                    key = self.key(after, given)
                    if after.ending is None and key not in seen:
                        after, active = self.engine.advance(session, Turn(move))  # a new state: its own session
                        self.turns += 1
                else:
                    after, active = self.engine.advance(session, Turn(move))
                    self.turns += 1
                    self.record(session, after, active, at, move)
                    if known is None:
                        known = outcomes[firing] = (after.state, {})
                        reads = tuple(evaluate(after.state, given) for evaluate in settled)
                    assert reads is not None
                    known[1][reads] = (after, active)
                    key = self.key(after)
                whole = key + b"\0" + classes if after.ending is None else key + b"\1" + str(after.ending).encode()
                if whole not in tuples:
                    tuples.add(whole)
                    self.states += 1
                    if self.states >= self.bound:
                        return self._finish()
                if after.ending is None and key not in seen:
                    seen.add(key)
                    self.nodes.append(_Node(after, at, move))
                    queue.append(len(self.nodes) - 1)
        return self._finish(complete=True)

    def _finish(self, *, complete: bool = False) -> Exhaustion:
        """The outcome: each goal's witness rebuilt from the nodes' parents."""
        return _outcome(
            self.nodes,
            self.found_at,
            self.artless_at,
            self.states,
            complete=complete,
            timed_out=self.timed_out,
            turns_played=self.turns,
        )


class _Fast(_Explorer):
    """The same search over :class:`_Light` nodes, each turn played by a :class:`Successor` instead of the runtime.

    For the goals a turn's state, completions, ending and active rules decide (achievements,
    endings, rules, completions): reveals need the runtime's revealed items, which it does not
    keep. It counts the same states, in the same order, as :class:`_Explorer`.
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.targets = {t for t in self.targets if t.kind in FAST}
        self.pending &= self.targets
        self.reveals, self.pending_reveals = False, set()
        self.successor = Successor(self.playing, self.achievements())
        self.open: dict[str, set[str]] = {kind: set() for kind in FAST}
        for goal in self.targets:
            self.open[goal.kind].add(goal.id)
        self.light: list[_Light] = []

    def key_of(self, entry: str, state: Mapping[str, Any], completed: frozenset[str], fresh: frozenset[str]) -> bytes:
        """:meth:`_Explorer.key` of a light node."""
        return orjson.dumps([entry, state, sorted(completed), sorted(fresh)], option=orjson.OPT_SORT_KEYS)

    def achievements(self) -> set[str]:
        """The ids of the achievements searched for."""
        return {t.id for t in self.targets if t.kind == "achievement"}

    def note(self, keys: Sequence[Goal], entry: str, at: int, move: Move) -> None:
        """Record the goals ``keys`` reached by the turn ``move`` from node ``at`` (as :meth:`_Explorer.record`)."""
        default = entry == self.default
        for key in keys:
            if key not in self.targets:
                continue
            known = self.found_at.get(key)
            if known is None or (known[0] != self.default and default):
                self.found_at[key] = (entry, at, move)
                if default:
                    self.pending.discard(key)
                    self.open[key.kind].discard(key.id)  # its witness cannot get shorter

    def run(self) -> Exhaustion:
        """Breadth first until the frontier empties, the bound is reached, or every goal is.

        Each state's moves are played at once, as bits (:class:`~creatorpack.lint.reach._classes.Turns`):
        a tuple (state, answers, completed rules, ending) is a state's key and a move's bit, and
        the moves of a key met so far one ``int``. What it counts, notes and queues is what
        playing the moves one by one, in order, would (a goal's witness is its first move, a new
        state's node is made at the first move that reaches it); the state that reaches the
        bound is played so, move by move.

        Python's cyclic collector is paused meanwhile: the search makes hundreds of thousands of
        objects that live on (states, tuples, memos) and no cycle, and each collection they
        trigger walked them all again (a quarter of the CPU time of 200,000 states of
        ``tests/packs/survival.json``).
        """
        with collector_paused():
            return self._search()

    def _search(self) -> Exhaustion:
        """:meth:`run`, with the collector paused."""
        if self.branching() > self.bound:
            return Exhaustion(
                skipped=f"the exhaustive search did not start (one turn has {self.branching():,} combinations of "
                f"answers, more than its bound of {self.bound:,} states)"
            )
        turns = Turns(self.program, self.achievements(), [o.ident for o in self.observations])
        radices = [len(o.named) + 1 for o in self.observations]
        tables: dict[frozenset[str], MoveTable] = {}
        entries = {entry: i for i, entry in enumerate(self.engine.entry_ids())}
        width = len(entries)
        # A tuple's key: its (state, completed rules, fresh) as an int (Turns.tuples), and its entry.
        seen: set[int] = set()
        heard: dict[int, int] = {}  # a key not ended -> the moves (their bits) that reached it
        ended: set[tuple[int, str]] = set()
        queue: deque[int] = deque()
        nodes = self.light
        every = frozenset(o.ident for o in self.observations if o.other is _OTHER)
        for entry, which in entries.items():
            try:
                start, _ = self.engine.start(entry)
            except Exception:  # noqa: BLE001, S112 - an unplayable entry is reported by the other checks
                continue
            at = turns.intern(start.state)
            nodes.append(_Light(entry, start.state, start.completed, every, -1, {}, at))
            self.nodes = nodes  # type: ignore[assignment]  # record() only indexes them
            self.record(None, start, (), len(nodes) - 1, None)
            self.states += 1
            key = turns.tuple_of(at, start.completed, every) * width + which
            if start.ending is None and key not in seen:
                seen.add(key)
                queue.append(len(nodes) - 1)
        targets, pending = self.targets, self.pending
        while queue:
            if not pending:
                return self._end()
            if self.clock() > self.deadline:
                self.timed_out = True
                return self._end()
            at = queue.popleft()
            node = nodes[at]
            entry, completed, which = node.entry, node.completed, entries[node.entry]
            table = tables.get(node.fresh)
            if table is None:
                table = tables[node.fresh] = MoveTable(len(tables), self.moves_from(node.fresh), radices, node.fresh)
            outcomes, goals = turns.expand(node.index, completed, table, pending)
            # What the turns add: the tuples not met before, and the states not expanded yet (at their first move).
            added = 0
            firsts: dict[int, int] = {}
            fresh_ends: set[tuple[int, str]] = set()
            grown: dict[int, int] = {}  # each key not ended -> the moves that reach it, with this state's
            for moves, ident, ending in outcomes:
                key = ident * width + which
                if ending is not None:
                    if (key, ending) not in ended and (key, ending) not in fresh_ends:
                        fresh_ends.add((key, ending))
                        added += 1
                    continue
                before = grown.get(key)
                if before is None:
                    before = heard.get(key, 0)
                added += (moves & ~before).bit_count()
                grown[key] = before | moves
                if key not in seen:
                    first = moves & -moves
                    firsts[key] = min(firsts.get(key, first), first)
            if self.states + added >= self.bound:
                return self._last(node, at, table, outcomes, goals, heard, ended)
            self.turns += len(table.moves)
            for goal, moves in goals.items():
                if goal in targets:
                    self.note([goal], entry, at, table.move((moves & -moves).bit_length() - 1))
            self.states += added
            ended |= fresh_ends
            heard.update(grown)
            for key, first in sorted(firsts.items(), key=lambda pair: pair[1]):
                seen.add(key)
                state, now, fresh = turns.tuples[key // width]
                move = table.move(first.bit_length() - 1)
                nodes.append(_Light(entry, turns.states[state], now, fresh, at, move, state))
                queue.append(len(nodes) - 1)
        return self._end(complete=True)

    def _last(
        self,
        node: _Light,
        at: int,
        table: MoveTable,
        outcomes: Sequence[Outcome],
        goals: Mapping[Goal, int],
        heard: dict[int, int],
        ended: set[tuple[int, str]],
    ) -> Exhaustion:
        """The state whose turns reach the bound, played move by move: the search stops at the move that does."""
        width = len(self.engine.entry_ids())
        which = self.engine.entry_ids().index(node.entry)
        for move, bit in zip(table.moves, table.bits, strict=True):
            one = 1 << bit
            self.turns += 1
            self.note([goal for goal, moves in goals.items() if moves & one], node.entry, at, move)
            ident, ending = next((i, e) for moves, i, e in outcomes if moves & one)
            key = ident * width + which
            if ending is not None:
                fresh = (key, ending) not in ended
                ended.add((key, ending))
            else:
                fresh = not heard.get(key, 0) & one
                heard[key] = heard.get(key, 0) | one
            if fresh:
                self.states += 1
                if self.states >= self.bound:
                    return self._end()
        raise AssertionError("the bound is reached within the turns of this state")

    def beam(self, width: int) -> Exhaustion:
        """A beam from the default entry's start: each turn, ``width`` of the states not ended, chosen by their hash.

        For witnesses deep in a space too big to explore breadth first (thirty days survived): the
        beam keeps going where a breadth-first search runs out of states. The choice is by a hash
        of each state's key, so the same pack gives the same beam on any machine; it proves
        nothing. It counts the states it keeps against the bound, and stops when every goal it
        looks for is reached, the beam is empty, or the bound is spent.
        """
        entry = self.default
        try:
            start, _ = self.engine.start(entry)
        except Exception:  # noqa: BLE001 - an unplayable entry is reported by the other checks
            return self._end()
        every = frozenset(o.ident for o in self.observations if o.other is _OTHER)
        nodes = self.light
        nodes.append(_Light(entry, start.state, start.completed, every, -1, {}))
        self.states += 1
        layer = [len(nodes) - 1] if start.ending is None else []
        seen: set[bytes] = set()
        answers: dict[frozenset[str], list[Move]] = {}
        named = self.named
        while layer and self.pending and self.states < self.bound:
            if self.clock() > self.deadline:
                self.timed_out = True
                break
            following: dict[bytes, int] = {}
            for at in layer:
                node = nodes[at]
                given = answers.get(node.fresh)
                if given is None:
                    given = answers[node.fresh] = [m for m, _ in self.moves_from(node.fresh)]
                for move, after in zip(given, self.successor.expand(node.state, node.completed, given), strict=True):
                    self.turns += 1
                    keys = [named["rule"][ident] for ident in after.active]
                    keys += [named["achievement"][ident] for ident in after.holding]
                    keys += [named["completion"][ident] for ident in after.new_completed]
                    keys += [named["ending"][after.ending]] if after.ending is not None else []
                    self.note([key for key in keys if key in self.pending], entry, at, move)
                    if after.ending is not None:
                        continue
                    fresh = node.fresh.difference(move) if node.fresh else node.fresh
                    key = self.key_of(entry, after.state, after.completed, fresh)
                    if key not in seen and key not in following:
                        nodes.append(_Light(entry, after.state, after.completed, fresh, at, move))
                        following[key] = len(nodes) - 1
            chosen = sorted(following, key=lambda k: hashlib.blake2b(k, digest_size=8).digest())[
                : min(width, self.bound - self.states)
            ]
            seen.update(chosen)
            layer = [following[key] for key in chosen]
            self.states += len(layer)
        return self._end()

    def _end(self, *, complete: bool = False) -> Exhaustion:
        """The outcome, with an artless play for each goal whose witness reaches it before its artwork is served."""
        outcome = _outcome(
            self.light,
            self.found_at,
            self.artless_at,
            self.states,
            complete=complete,
            timed_out=self.timed_out,
            turns_played=self.turns,
        )
        artless = dict(outcome.artless)
        for key, art in self.artworks.items():
            reached = outcome.found.get(key)
            if reached is not None and key not in artless and not _served(self.engine, key, reached, art):
                artless[key] = reached
        return Exhaustion(outcome.found, artless, *_tail(outcome))


def _tail(outcome: Exhaustion) -> tuple[int, bool, bool, str, int]:
    """An outcome's members after its witnesses: states, complete, timed_out, skipped, turns."""
    return outcome.states, outcome.complete, outcome.timed_out, outcome.skipped, outcome.turns


def _served(engine: Engine, goal: Goal, reached: Reached, art: str) -> bool:
    """Whether ``art`` is served when the play ``reached`` first reaches ``goal`` (an achievement or ending)."""
    session, _ = engine.start(reached.entry)
    for move in [{}, *reached.turns]:
        if move:
            session, _ = engine.advance(session, Turn(move))
        if (goal.id in session.achievements) if goal.kind == "achievement" else session.ending == goal.id:
            return art in reachable_assets(engine.program, session)
    return True


def _outcome(
    nodes: Sequence[_Node | _Light],
    found_at: Mapping[Goal, tuple[str, int, Move | None]],
    artless_at: Mapping[Goal, tuple[str, int, Move | None]],
    states: int,
    *,
    complete: bool,
    timed_out: bool,
    turns_played: int,
) -> Exhaustion:
    """Each goal's witness (and artless play, ``artless_at``) rebuilt from the nodes' parents."""

    def rebuilt(entry: str, at: int, move: Move | None) -> Reached:
        turns: list[Move] = [] if move is None else [move]  # ``None``: reached on arriving at node ``at``
        node = at
        while nodes[node].parent >= 0:
            turns.append(nodes[node].move)
            node = nodes[node].parent
        turns.reverse()
        return Reached(entry, [dict(m) for m in turns])

    found = {goal: rebuilt(*at) for goal, at in found_at.items()}
    artless = {goal: rebuilt(*at) for goal, at in artless_at.items()}
    return Exhaustion(found, artless, states, complete, timed_out, "", turns_played)


def explore(
    engine: Engine,
    targets: Sequence[Target],
    max_states: int,
    deadline: float,
    clock: Callable[[], float],
    boxed: int = 0,
    pending: set[Goal] | None = None,
) -> Exhaustion:
    """Every reachable state of ``engine``'s pack, breadth first, within ``max_states`` (scaled by the pack's size).

    ``boxed``: how many states the abstract interpretation's boxes hold (their values, answers and
    completed rules aside). When that is more than the bound, the whole bound would likely be
    spent deciding nothing new (as on a pack with counters over wide ranges), so the search only
    hunts for the witnesses of achievements, endings, rules and completions: breadth first within
    1/:data:`HUNT_SHARE` of the bound (it still proves, should it explore everything), then, for
    what lies deeper, a beam of :data:`BEAM` states a turn (:meth:`_Fast.beam`) within another
    1/:data:`HUNT_SHARE`.

    A first pass leaves the sticky facts out of the state. The goals that combine them (see
    :data:`COMBINED`) and that it did not reach get a second pass, with their facts in the state,
    within what the first left of the bound.
    """
    program = engine.program
    bound = scaled_bound(program, max_states)
    if boxed > bound:
        # Too many states to hope to explore them all: a short hunt for the witnesses a few turns give.
        hunt = _Fast(engine, targets, max(1, bound // HUNT_SHARE), deadline, clock, pending=pending).run()
        why = f"the analysis allows {boxed:,} states, more than its bound of {bound:,}"
        if hunt.skipped:
            return Exhaustion(skipped=f"the exhaustive search did not start ({why})")
        wanted = {t.goal for t in targets} if pending is None else pending
        if not hunt.complete and wanted - set(hunt.found):
            # What lies deeper than breadth first goes: a beam, within another share of the bound.
            deep = _Fast(
                engine,
                targets,
                hunt.states + max(1, bound // HUNT_SHARE),
                deadline,
                clock,
                pending=wanted - set(hunt.found),
            )
            deep.states = hunt.states
            beamed = deep.beam(BEAM)
            hunt = Exhaustion(
                found={**beamed.found, **hunt.found},
                artless={**beamed.artless, **hunt.artless},
                states=beamed.states,
                timed_out=beamed.timed_out or hunt.timed_out,
                turns=hunt.turns + beamed.turns,
            )
        return Exhaustion(
            hunt.found,
            hunt.artless,
            hunt.states,
            hunt.complete,
            hunt.timed_out,
            f"the exhaustive search only looked for witnesses, within {hunt.states:,} "
            f"state{'' if hunt.states == 1 else 's'} ({why})",
            hunt.turns,
        )
    wanted = {t.goal for t in targets} if pending is None else pending
    fast = all(goal.kind in FAST for goal in wanted)
    first = (_Fast if fast else _Explorer)(engine, targets, bound, deadline, clock, pending=pending).run()
    left = [t for t in targets if t.kind in COMBINED and t.goal not in first.found and t.goal in wanted]
    if not first.complete or not left:
        return first
    second = _Explorer(engine, left, bound - first.states, deadline, clock, history=left).run()
    return Exhaustion(
        {**first.found, **second.found},
        first.artless,
        first.states + second.states,
        second.complete,
        second.timed_out,
        second.skipped,
        first.turns + second.turns,
    )


def revealed_along(
    engine: Engine, witnesses: Sequence[Reached], targets: Sequence[Target], budget: int
) -> dict[Goal, Reached]:
    """The reveal goals among ``targets`` that some play of ``witnesses`` shows on the way, each with a prefix of it.

    The hunt for witnesses (breadth first, then a beam) follows achievements, endings, rules and
    completions only, whose turns a :class:`Successor` plays without the runtime's revealed items;
    a reveal that combines sticky facts from deep in such a play (the artwork of an ending thirty
    days in) is found by replaying those plays in the runtime, which is what makes each prefix a
    witness that replays. The plays are replayed shortest first (at the same length, in
    ``witnesses``' order) until every goal is shown; a goal's witness is the first play that shows
    it, cut where it does, so the result is deterministic. At most ``budget`` turns are replayed
    (a count, like every bound of the search): a play that does not fit is left out.
    """
    wanted = {t.goal: t for t in targets if t.kind in REVEALS.values()}
    found: dict[Goal, Reached] = {}
    for witness in sorted(witnesses, key=lambda w: len(w.turns)):
        if len(found) == len(wanted) or len(witness.turns) > budget:
            break
        budget -= len(witness.turns)
        try:
            session, _ = engine.start(witness.entry)
        except Exception:  # noqa: BLE001, S112 - an unplayable entry is reported by the other checks
            continue
        before: SessionState | None = None
        for turn in range(len(witness.turns) + 1):
            if turn:
                before = session
                session, _ = engine.advance(session, Turn(witness.turns[turn - 1]))
            if not may_show_more(before, session):
                continue
            now = shown(engine.program, session)
            for kind, goal in REVEALS.items():
                for ident in sorted(now.get(kind, frozenset())):
                    target = wanted.get(Goal(goal, ident))
                    if target is None or (target.entries is not None and witness.entry not in target.entries):
                        continue
                    if target.goal not in found:
                        found[target.goal] = Reached(witness.entry, [dict(m) for m in witness.turns[:turn]])
    return found


def _facts(program: Any, targets: Sequence[Target]) -> tuple[dict[str, frozenset[str]], frozenset[str]]:
    """The sticky facts that whether ``targets`` show depends on: revealed items by kind, and rewarded assets."""
    kinds: dict[str, set[str]] = {kind: set() for kind in _HISTORY_KINDS}
    for target in targets:
        if target.kind in ("avatar", "image"):
            kind = "avatars" if target.kind == "avatar" else "images"
            kinds["reader_cards"].add(target.ident)
            kinds[kind].add(target.ident)
            asset = program.card_assets.get((kind, target.ident))
            if asset is not None:
                kinds["assets"].add(asset)
        elif target.kind == "relationship":
            kinds["relationships"].add(target.ident)
            kinds["reader_cards"].add(target.ident.partition("/")[0])
        else:
            kinds["assets"].add(target.ident)
    return {kind: frozenset(wanted) for kind, wanted in kinds.items() if wanted}, frozenset(kinds["assets"])


def _reads_answers(node: Condition) -> bool:
    """Whether ``node`` reads the narrator's answers: an ``observed`` test somewhere in it."""
    return any(isinstance(leaf, Observed) for leaf in leaves(node))


def _observations(engine: Engine) -> list[_Observation]:
    """The observations some condition reads, each with the answers conditions tell apart."""
    named: dict[str, list[Any]] = {}
    mentioned(engine.program, named)
    found: list[_Observation] = []
    for ident, observation in engine.observations.items():
        values: list[Any] = (
            [True, False] if observation.get("type") == "boolean" else list(observation.get("choices", {}))
        )
        told = tuple(v for v in values if any(json_equal(v, m) for m in named.get(ident, ())))
        if not told:
            continue  # no condition tells its answers apart: never answered
        rest = [v for v in values if v not in told]
        found.append(_Observation(ident, told, rest[0] if rest else _OTHER))
    return found
