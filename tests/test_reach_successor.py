"""The search's specialised turn agrees with the runtime's ``step``, and the search built on it with the reference one.

Random valid packs (seeded, so a failure names its seed): every turn from every state reachable
within a few turns, with every combination of answers, is played both by
:class:`~creatorpack.lint.reach._successor.Successor` and by the runtime; and the fast
exhaustive search counts the same states and reaches the same goals as the one that plays the
runtime itself.
"""

from __future__ import annotations

import gc
import itertools
import json
import random
import time
from collections import deque
from typing import Any

import orjson
import pytest

from creatorpack.contract.conditions import Goal
from creatorpack.lint.reach import _decide as _reach
from creatorpack.lint.reach import _exhaust
from creatorpack.lint.reach._classes import MoveTable, Turns, _frozen
from creatorpack.lint.reach._successor import Evaluators, Successor
from creatorpack.play.engine import Engine, SessionState, Turn
from tests.random_packs import random_condition, random_pack

SEEDS = range(40)
DEPTH = 4
"""Turns from each entry's start within which every turn is compared."""


def _moves(engine: Engine) -> list[dict[str, Any]]:
    per = [
        [None, *((ident, v) for v in ([True, False] if o["type"] == "boolean" else list(o["choices"])))]
        for ident, o in engine.observations.items()
    ]
    return [{k: v for pair in combo if pair for k, v in [pair]} for combo in itertools.product(*per)]


def _pack(seed: int) -> dict[str, Any]:
    """A random pack, with a second ending of another priority when it has one (so that priorities matter)."""
    doc = random_pack(seed)
    endings = doc["progression"]["endings"]
    if endings:
        rng = random.Random(seed)
        rival = {**endings[0], "id": "rival", "priority": rng.choice([-1, 1]), "when": random_condition(rng, 2)}
        endings.append(rival)
    return doc


def _key(session: SessionState) -> str:
    return json.dumps([session.state, session.answers, sorted(session.completed)], sort_keys=True)


@pytest.mark.parametrize("seed", SEEDS)
def test_the_specialised_turn_agrees_with_step(seed: int) -> None:
    """Turn by turn, and all the moves of a state at once (:meth:`Successor.expand`), as the runtime plays them."""
    engine = Engine(_pack(seed))
    program = engine.program
    successor = Successor(program, {g.id for g in program.achievements})
    bare = Successor(program, ())  # no achievement searched for: fewer answers read after a turn
    moves = _moves(engine)
    for entry in engine.entry_ids():
        start, _ = engine.start(entry)
        layer, seen = [start], {_key(start)}
        for _ in range(DEPTH):
            following: list[SessionState] = []
            for session in layer:
                if session.ending is not None:
                    continue
                given = [{**session.answers, **move} for move in moves]
                expanded = successor.expand(session.state, session.completed, given)
                for answers, alone in zip(given, bare.expand(session.state, session.completed, given), strict=True):
                    one = bare(session.state, session.completed, answers)
                    assert (alone.state, alone.completed, alone.ending, alone.active) == (
                        one.state,
                        one.completed,
                        one.ending,
                        one.active,
                    ), (seed, session.state, answers)
                    assert set(alone.new_completed) == set(one.new_completed), (seed, session.state, answers)
                for move, answers, grouped in zip(moves, given, expanded, strict=True):
                    after, result = engine.step(session, Turn(move))
                    mine = successor(session.state, session.completed, answers)
                    same = (grouped.state, grouped.completed, grouped.ending, grouped.active)
                    assert same == (mine.state, mine.completed, mine.ending, mine.active), (seed, session.state, move)
                    assert set(grouped.new_completed) == set(mine.new_completed), (seed, session.state, move)
                    assert set(grouped.holding) == set(mine.holding), (seed, session.state, move)
                    where = (seed, entry, session.state, sorted(session.completed), move)
                    assert mine.state == after.state, where
                    assert mine.completed == after.completed, where
                    assert mine.ending == after.ending, where
                    assert mine.active == result.active_rules, where
                    assert set(mine.new_completed) == set(result.new_completed_rules), where
                    assert set(mine.holding) <= set(after.achievements), where
                    assert set(result.new_achievements) <= set(mine.holding), where
                    if _key(after) not in seen:
                        seen.add(_key(after))
                        following.append(after)
            layer = following


@pytest.mark.parametrize("seed", SEEDS)
def test_the_fast_search_counts_and_reaches_what_the_reference_search_does(seed: int) -> None:
    engine = Engine(_pack(seed))
    goals = [t for t in _reach.targets(engine) if t.kind in _exhaust.FAST]
    keys = {t.goal for t in goals}
    for bound in (50, 200_000):
        fast = _exhaust._Fast(engine, goals, bound, 1e18, time.monotonic, pending=set(keys)).run()
        slow = _exhaust._Explorer(engine, goals, bound, 1e18, time.monotonic, pending=set(keys)).run()
        assert (fast.states, fast.complete) == (slow.states, slow.complete), (seed, bound)
        if fast.complete:
            assert set(fast.found) == set(slow.found), seed
        for key, reached in fast.found.items():  # a shortest witness, as long as the reference one
            assert len(reached.turns) == len(slow.found[key].turns), (seed, key)


class _OneByOne(_exhaust._Fast):
    """The fast search playing each move of a state in turn, with :meth:`Successor.expand` (before ``_classes``)."""

    def run(self) -> _exhaust.Exhaustion:
        """The fast search as it was, one move at a time (``Successor.expand``): the reference."""
        if self.branching() > self.bound:
            return _exhaust.Exhaustion(
                skipped=f"the exhaustive search did not start (one turn has {self.branching():,} combinations of "
                f"answers, more than its bound of {self.bound:,} states)"
            )
        seen: set[bytes] = set()
        tuples: set[bytes] = set()
        queue: deque[int] = deque()
        nodes = self.light
        every = frozenset(o.ident for o in self.observations if o.other is _exhaust._OTHER)
        for entry in self.engine.entry_ids():
            try:
                start, _ = self.engine.start(entry)
            except Exception:  # noqa: BLE001 - an unplayable entry is reported by the other checks
                continue
            nodes.append(_exhaust._Light(entry, start.state, start.completed, every, -1, {}))
            self.nodes = nodes  # type: ignore[assignment]  # record() only indexes them
            self.record(None, start, (), len(nodes) - 1, None)
            self.states += 1
            key = self.key_of(entry, start.state, start.completed, every)
            if start.ending is None and key not in seen:
                seen.add(key)
                queue.append(len(nodes) - 1)
        successor = self.successor
        answers: dict[frozenset[str], list[dict[str, Any]]] = {}
        # The goals by kind still without a witness from the default entry: the only ones a turn need name.
        rules, achievements = self.open["rule"], self.open["achievement"]
        completions, endings = self.open["completion"], self.open["ending"]
        while queue:
            if not self.pending:
                return self._end()
            if self.clock() > self.deadline:
                self.timed_out = True
                return self._end()
            at = queue.popleft()
            node = nodes[at]
            entry, state, completed = node.entry, node.state, node.completed
            moves = self.moves_from(node.fresh)
            given = answers.get(node.fresh)
            if given is None:
                given = answers[node.fresh] = [m for m, _ in moves]  # one list per kind of state: see expand()
            keyed: dict[tuple[int, frozenset[str], frozenset[str]], bytes] = {}  # each state's key, made once
            for (move, classes), after in zip(moves, successor.expand(state, completed, given), strict=True):
                self.turns += 1
                keys = [Goal("rule", ident) for ident in after.active if ident in rules] if rules else []
                if achievements:
                    keys += [Goal("achievement", ident) for ident in after.holding if ident in achievements]
                if completions:
                    keys += [Goal("completion", ident) for ident in after.new_completed if ident in completions]
                if after.ending is not None and after.ending in endings:
                    keys.append(Goal("ending", after.ending))
                if keys:
                    self.note(keys, entry, at, move)
                fresh = node.fresh.difference(move) if node.fresh else node.fresh
                known = (id(after.state), after.completed, fresh)
                key = keyed.get(known) or keyed.setdefault(
                    known, self.key_of(entry, after.state, after.completed, fresh)
                )
                whole = key + b"\0" + classes if after.ending is None else key + b"\1" + after.ending.encode()
                if whole not in tuples:
                    tuples.add(whole)
                    self.states += 1
                    if self.states >= self.bound:
                        return self._end()
                if after.ending is None and key not in seen:
                    seen.add(key)
                    nodes.append(_exhaust._Light(entry, after.state, after.completed, fresh, at, move))
                    queue.append(len(nodes) - 1)
        return self._end(complete=True)


@pytest.mark.parametrize("seed", SEEDS)
def test_the_search_by_classes_of_moves_is_the_one_move_by_move(seed: int) -> None:
    """The same states, turns and witnesses (to the move) as playing each move in turn, at any bound."""
    engine = Engine(_pack(seed))
    goals = [t for t in _reach.targets(engine) if t.kind in _exhaust.FAST]
    keys = {t.goal for t in goals}
    for bound in (7, 50, 333, 200_000):
        fast = _exhaust._Fast(engine, goals, bound, 1e18, time.monotonic, pending=set(keys)).run()
        slow = _OneByOne(engine, goals, bound, 1e18, time.monotonic, pending=set(keys)).run()
        assert (fast.states, fast.complete, fast.turns) == (slow.states, slow.complete, slow.turns), (seed, bound)
        assert fast.found == slow.found, (seed, bound)


@pytest.mark.parametrize("seed", SEEDS)
def test_the_turns_by_classes_of_moves_agree_with_the_specialised_turn(seed: int) -> None:
    """Every move of every state a few turns in: its outcome and the goals it reaches, as :class:`Successor` says."""
    engine = Engine(_pack(seed))
    program = engine.program
    wanted = {g.id for g in program.achievements}
    search = _exhaust._Fast(engine, [], 1, 1e18, time.monotonic)
    heard = [o.ident for o in search.observations]
    turns = Turns(program, wanted, heard)
    successor = Successor(program, wanted)
    radices = [len(o.named) + 1 for o in search.observations]
    tables: dict[frozenset[str], MoveTable] = {}
    every = frozenset(o.ident for o in search.observations if o.other is _exhaust._OTHER)
    for entry in engine.entry_ids():
        start, _ = engine.start(entry)
        layer = [(turns.intern(start.state), start.completed, every)]
        seen = set(layer)
        for _ in range(DEPTH):
            following = []
            for at, completed, fresh in layer:
                table = tables.get(fresh) or tables.setdefault(
                    fresh, MoveTable(len(tables), search.moves_from(fresh), radices, fresh)
                )
                outcomes, goals = turns.expand(at, completed, table, _Everything())
                assert sum(moves.bit_count() for moves, _, _ in outcomes) == len(table.moves), seed
                for move, bit in zip(table.moves, table.bits, strict=True):
                    one = successor(turns.states[at], completed, move)
                    ((_, ident, ending),) = [o for o in outcomes if o[0] & 1 << bit]
                    state, now, left = turns.tuples[ident]
                    where = (seed, turns.states[at], sorted(completed), move)
                    assert (turns.states[state], now, ending) == (one.state, one.completed, one.ending), where
                    assert left == fresh.difference(move), where
                    reached = {key for key, moves in goals.items() if moves & 1 << bit}
                    expected = {Goal("rule", r) for r in one.active} | {Goal("achievement", a) for a in one.holding}
                    expected |= {Goal("completion", r) for r in one.new_completed}
                    expected |= {Goal("ending", one.ending)} if one.ending is not None else set()
                    assert reached == expected, where
                    if ending is None and (state, now, left) not in seen:
                        seen.add((state, now, left))
                        following.append((state, now, left))
            layer = following
    # One ``int`` per distinct state, as its JSON tells states apart (states are interned by a frozen form).
    assert len({orjson.dumps(state, option=orjson.OPT_SORT_KEYS) for state in turns.states}) == len(turns.states)


def test_a_state_s_frozen_form_tells_states_apart_as_their_json_does() -> None:
    members = ("a", "b", "c")
    same: list[tuple[dict[str, Any], dict[str, Any]]] = [
        ({"a": 1, "b": ["x", "y"], "c": "s"}, {"c": "s", "b": ["x", "y"], "a": 1}),
        ({"a": {"p": 1, "q": [1]}, "b": []}, {"b": [], "a": {"q": [1], "p": 1}}),
    ]
    apart: list[tuple[dict[str, Any], dict[str, Any]]] = [
        ({"a": 1}, {"a": True}),
        ({"a": 1}, {"a": 1.0}),
        ({"a": ["x", "y"]}, {"a": ["y", "x"]}),
        ({"a": ["x"]}, {"a": "x"}),
        ({"a": 1, "b": None}, {"a": 1}),
        ({"a": 1}, {"a": 1, "d": 2}),
        ({"a": [1]}, {"a": ["1"]}),
    ]
    for left, right in same:
        assert _frozen(left, members) == _frozen(right, members)
    for left, right in apart:
        assert _frozen(left, members) != _frozen(right, members), (left, right)
    turns = Turns(Engine(_pack(1)).program, set(), [])
    assert turns.intern({"a": 1, "b": [2]}) == turns.intern({"b": [2], "a": 1}) != turns.intern({"a": True, "b": [2]})


class _Everything:
    """Every goal pending."""

    def __contains__(self, key: object) -> bool:
        return True


def test_a_default_lint_takes_the_fast_search_when_only_goals_it_decides_are_left() -> None:
    engine = Engine(_pack(3))
    goals = [t for t in _reach.targets(engine) if t.kind in _exhaust.FAST]
    exhaustion = _exhaust.explore(engine, goals, 200_000, 1e18, time.monotonic, pending={g.goal for g in goals})
    slow = _exhaust._Explorer(engine, goals, 200_000, 1e18, time.monotonic).run()
    assert exhaustion.complete
    assert exhaustion.turns > slow.turns  # the fast search plays every move; the reference one skips repeats


def test_the_search_pauses_the_cyclic_collector_and_restores_it(monkeypatch: pytest.MonkeyPatch) -> None:
    """Its objects live on and make no cycle: collections during it would walk them all again, for nothing."""
    engine = Engine(_pack(3))
    goals = [t for t in _reach.targets(engine) if t.kind in _exhaust.FAST]
    during: list[bool] = []
    expand = Turns.expand

    def spy(self: Turns, *args: Any) -> Any:
        during.append(gc.isenabled())
        return expand(self, *args)

    monkeypatch.setattr(Turns, "expand", spy)
    assert gc.isenabled()
    _exhaust._Fast(engine, goals, 200_000, 1e18, time.monotonic, pending={t.goal for t in goals}).run()
    assert during
    assert not any(during)
    assert gc.isenabled()


def test_the_search_and_the_engine_share_each_condition_function() -> None:
    """The search's functions are the program's, made once: the turns the engine plays and the search read one table."""
    engine = Engine(random_pack(3))
    program = engine.program
    evaluators = Evaluators(program)
    session, _ = engine.start()
    for index in range(len(program.conditions)):
        made = evaluators[index]
        assert made is program.evaluators[index]  # the program's table holds it too, no stand-in left there
        assert evaluators[index] is made
        assert made(session.state, session.answers) is program.conditions[index].evaluate(
            session.state, session.answers
        )
