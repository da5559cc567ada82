"""One turn as the exhaustive search needs it: a transition specialised once per pack, not the runtime's ``step``.

The runtime's :func:`~creatorpack.play.step.step` keeps every condition's value up to date, checks
the turn, reveals items, unlocks achievements, hands out badges and builds a session; the search
needs much less. Of a turn it needs the state after it, the completed rules, the ending, the
active rules, and which of the goals it is looking for hold after it. So a :class:`Successor`
evaluates only the conditions those depend on (every rule's ``when``, the open rules'
``completion``, every ending's ``when``, and the ``when`` of the achievements searched for) and
runs the program's generated effects, with the same semantics as a turn (``docs/runtime.md``):

1. the rules whose ``when`` holds on the state before the turn, with its answers, are active
   unless completed, and their effects apply in document order, all of a rule's effects or none;
2. on the new state, an open rule whose ``completion`` holds is completed, achievements whose
   ``when`` holds are unlocked, and the ending of the highest priority (the first in the list on
   a tie) whose ``when`` holds ends the session.

``tests/test_reach_successor.py`` checks it against ``step`` on random packs, turn by turn.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass
from functools import partial
from types import MappingProxyType
from typing import Any, Final

from creatorpack.contract.conditions import parse
from creatorpack.play.conditions import make_evaluator
from creatorpack.play.program import Program, ReadKind
from creatorpack.play.state import set_paths

__all__ = ["After", "Evaluators", "Successor"]

_Evaluate = Callable[[Any, Any], bool]
_NONE: Final[Mapping[str, Any]] = MappingProxyType({})  # the answers a condition that reads none is given


_FIXED: Final = 0  # a condition that reads no answer
_PURE: Final = 1  # one that reads answers only
_MIXED: Final = 2  # one that reads both


@dataclass(frozen=True, slots=True)
class After:
    """What a turn did, as the search reads it: the new state, completions, ending, active rules and goals holding."""

    state: Mapping[str, Any]
    completed: frozenset[str]
    ending: str | None
    active: tuple[str, ...]
    new_completed: tuple[str, ...]
    holding: tuple[str, ...]
    """The achievements searched for whose ``when`` holds after the turn (unlocked then, or before)."""


class Evaluators:
    """Each condition's function as made, never the program's stand-in, which stays a stand-in when kept.

    A program generates a condition's function on its first call and puts it in its table, but a
    stand-in taken out of the table before that call keeps generating it again on every call. So
    a stand-in is made into its function here, through the program's own table (which then holds
    it too: the engine's turns and this search share each function, generated once).
    """

    def __init__(self, program: Program) -> None:
        self._program = program
        self._sets = set_paths(program.schema)
        self._shared: dict[str, Any] = {}
        self._made: dict[int, _Evaluate] = {}

    def __getitem__(self, index: int) -> _Evaluate:
        made = self._made.get(index)
        if made is None:
            made = self._program.evaluators[index]
            if type(made) is partial:  # a stand-in
                table = self._program.generator
                if table is not None:
                    made = table.make(index)
                else:
                    compiled = self._program.conditions[index]
                    tree = compiled.tree if compiled.tree is not None else parse(compiled.source)
                    made = make_evaluator(tree, self._sets, self._shared)
            self._made[index] = made
        return made


class Successor:
    """A pack's turn specialised for the search; ``achievements``: the ids of those whose ``when`` to evaluate."""

    def __init__(self, program: Program, achievements: Collection[str]) -> None:
        evaluators = Evaluators(program)
        self._whens: tuple[tuple[int, _Evaluate], ...] = tuple(
            (index, evaluators[index]) for index in dict.fromkeys(rule.when for rule in program.rules)
        )
        self._rules = tuple((rule.id, rule.when) for rule in program.rules)
        self._run = program.run_effects
        self._completable = tuple((rid, evaluators[index]) for rid, index in program.completable)
        ranked = sorted(enumerate(program.endings), key=lambda pair: (-pair[1].priority, pair[0]))
        self._endings = tuple((goal.id, evaluators[goal.when]) for _, goal in ranked)
        self._achievements = tuple(
            (goal.id, evaluators[goal.when]) for goal in program.achievements if goal.id in achievements
        )
        # For :meth:`expand`: a condition that reads no answer is evaluated once per state, one that reads
        # no state once per list of moves, and only those that read both once per move.
        hears = {i for read, indices in program.readers.items() if read.kind is ReadKind.OBSERVATION for i in indices}
        sees = {
            i for read, indices in program.readers.items() if read.kind is not ReadKind.OBSERVATION for i in indices
        }
        whens = list(dict.fromkeys(rule.when for rule in program.rules))
        self._fixed = tuple((i, evaluators[i]) for i in whens if i not in hears)
        self._pure = tuple((i, evaluators[i]) for i in whens if i in hears and i not in sees)
        self._mixed = tuple((i, evaluators[i]) for i in whens if i in hears and i in sees)
        self._whens_all = tuple(whens)
        after = [("completion", rid, index) for rid, index in program.completable]
        after += [("ending", goal.id, goal.when) for _, goal in ranked]
        after += [("achievement", goal.id, goal.when) for goal in program.achievements if goal.id in achievements]
        pure_after = list(dict.fromkeys(index for _, _, index in after if index in hears and index not in sees))
        self._pure_after = tuple(evaluators[i] for i in pure_after)
        self._after = tuple(
            (
                kind,
                ident,
                index,
                evaluators[index],
                _FIXED if index not in hears else _PURE if index not in sees else _MIXED,
            )
            for kind, ident, index in after
        )
        self._at = {index: position for position, index in enumerate(pure_after)}
        self._rows: dict[int, tuple[Sequence[Mapping[str, Any]], list[tuple[tuple[bool, ...], tuple[bool, ...]]]]] = {}

    def _answered(self, moves: Sequence[Mapping[str, Any]]) -> list[tuple[tuple[bool, ...], tuple[bool, ...]]]:
        """For each move: the values of the conditions that read answers only (rules' ``when``, then the others)."""
        known = self._rows.get(id(moves))
        if known is not None and known[0] is moves:
            return known[1]
        rows = [
            (
                tuple(evaluate(_NONE, answers) for _, evaluate in self._pure),
                tuple(evaluate(_NONE, answers) for evaluate in self._pure_after),
            )
            for answers in moves
        ]
        self._rows[id(moves)] = (moves, rows)  # the moves kept alive, so that their id is not reused
        return rows

    def expand(
        self, state: Mapping[str, Any], completed: frozenset[str], moves: Sequence[Mapping[str, Any]]
    ) -> list[After]:
        """The turns with each of ``moves`` (the answers in force) from one state: the same as calling it on each.

        Moves that make the same rules active lead to the same state, so the effects run once for
        them; a condition is evaluated once per state when it reads no answer, and once per list of
        moves when it reads no state (``moves`` is best the same list object each time).
        """
        fixed = {index: evaluate(state, _NONE) for index, evaluate in self._fixed}
        pure, mixed, at = self._pure, self._mixed, self._at
        slot = {index: (_PURE, j) for j, (index, _) in enumerate(pure)}
        slot.update({index: (_MIXED, j) for j, (index, _) in enumerate(mixed)})
        # Each open rule that may be active, with where its `when`'s value is: always, in the row, or per move.
        open_rules = [
            (rid, *slot.get(when, (_FIXED, 0)), when)
            for rid, when in self._rules
            if rid not in completed and fixed.get(when, True)
        ]
        groups: dict[tuple[str, ...], Any] = {}
        found: list[After] = []
        for answers, (heard, later) in zip(moves, self._answered(moves), strict=True):
            both = tuple(evaluate(state, answers) for _, evaluate in mixed) if mixed else ()
            active = tuple(
                rid for rid, how, j, _ in open_rules if how == _FIXED or (heard[j] if how == _PURE else both[j])
            )
            group = groups.get(active)
            if group is None:
                # The state after the turn depends only on which rules are active (their effects read the state only).
                after = state
                if active and self._run is not None:
                    values = dict.fromkeys(self._whens_all, False)
                    values.update((when, True) for rid, _, _, when in open_rules if rid in active)
                    working = dict(state)
                    self._run(values, working, completed, [])  # type: ignore[arg-type]  # indexed like a tuple
                    after = working
                # What holds after the turn whatever the answers, and, for the rest, how to tell whether it does.
                base_done: list[str] = []
                base_holding: list[str] = []
                varying: list[tuple[str, str, int, Any]] = []
                endings: list[tuple[str, int, Any]] = []  # in the order they win, up to the first that surely holds
                ended = False
                for kind, ident, index, evaluate, how in self._after:
                    if (kind == "completion" and ident in completed) or (kind == "ending" and ended):
                        continue
                    arg = None if how == _FIXED else at[index] if how == _PURE else evaluate
                    if how == _FIXED and not evaluate(after, _NONE):
                        continue
                    if kind == "ending":
                        endings.append((ident, how, arg))
                        ended = how == _FIXED
                    elif how == _FIXED:
                        (base_done if kind == "completion" else base_holding).append(ident)
                    else:
                        varying.append((kind, ident, how, arg))
                same: After | None = None  # the turn, when no answer can change what it reaches
                if not varying and (not endings or endings[0][1] == _FIXED):
                    now = completed | frozenset(base_done) if base_done else completed
                    last = endings[0][0] if endings else None
                    same = After(after, now, last, active, tuple(base_done), tuple(base_holding))
                group = groups[active] = (after, base_done, base_holding, varying, endings, same)
            after, base_done, base_holding, varying, endings, same = group
            if same is not None:
                found.append(same)
                continue
            done = list(base_done)
            holding = list(base_holding)
            for kind, ident, how, arg in varying:
                if later[arg] if how == _PURE else arg(after, answers):
                    (done if kind == "completion" else holding).append(ident)
            ending: str | None = None
            for ident, how, arg in endings:
                if how == _FIXED or (later[arg] if how == _PURE else arg(after, answers)):
                    ending = ident
                    break
            now = completed | frozenset(done) if done else completed
            found.append(After(after, now, ending, active, tuple(done), tuple(holding)))
        return found

    def __call__(self, state: Mapping[str, Any], completed: frozenset[str], answers: Mapping[str, Any]) -> After:
        """The turn with ``answers`` (the answers in force) from ``state`` with ``completed`` rules."""
        values = {index: evaluate(state, answers) for index, evaluate in self._whens}
        active = tuple(rid for rid, when in self._rules if values[when] and rid not in completed)
        after = state
        if active and self._run is not None:
            working = dict(state)
            self._run(values, working, completed, [])  # type: ignore[arg-type]  # indexed by condition, as a tuple is
            after = working
        new_completed = tuple(
            rid for rid, evaluate in self._completable if rid not in completed and evaluate(after, answers)
        )
        if new_completed:
            completed = completed | frozenset(new_completed)
        ending = next((gid for gid, evaluate in self._endings if evaluate(after, answers)), None)
        holding = tuple(gid for gid, evaluate in self._achievements if evaluate(after, answers))
        return After(after, completed, ending, active, new_completed, holding)
