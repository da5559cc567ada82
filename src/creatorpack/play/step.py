"""One turn, phase by phase, as pure functions of a :class:`~creatorpack.play.program.Program`.

A turn, in order (``docs/runtime.md``):

1. illustration eligibility is tested on the state before the turn (:func:`eligible_illustrations`);
2. the narrator's observation answers are recorded (:func:`record_answers`);
3. every rule not yet completed whose ``when`` holds is active; guidance rules contribute their
   instruction, effect rules apply their effects in document order, all of a rule's effects or
   none (:func:`apply_rules`);
4. a rule whose ``completion`` holds on the new state is completed for good, and
5. reveals, achievements, endings and badges are computed on the new state (:func:`settle`).

Only conditions that read something that changed are evaluated again (:func:`refresh`), and of
those only the ones the change can flip: a threshold crossed, a member added or removed, an answer
given or changed (:mod:`creatorpack.play._watch`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from itertools import compress, filterfalse
from typing import Any, Final

from creatorpack._json import a_python_type, copy_json, show
from creatorpack.contract import suggest
from creatorpack.errors import SessionOverError, TurnError
from creatorpack.play._open import Held, OpenRules
from creatorpack.play._watch import UNANSWERED
from creatorpack.play.conditions import json_equal
from creatorpack.play.model import REVEAL_KINDS, Requirement, SessionState, Turn, TurnResult
from creatorpack.play.program import Goal, Program, Read, ReadKind, RuleTable

__all__ = [
    "Applied",
    "apply_rules",
    "check_turn",
    "choose_illustration",
    "describe",
    "eligible_illustrations",
    "evaluate_all",
    "locked_achievements",
    "reachable_assets",
    "record_answers",
    "refresh",
    "reward_assets",
    "settle",
    "shown",
    "step",
]


_ABSENT: Final = object()  # a member the state does not have
_NAMED: Final = 3
"""Unknown illustration rule ids a refused turn names (with suggestions); the others are counted."""
_LONGEST_ID: Final = 80
"""The longest id a pack may have; an unknown id longer than this is shown by its first :data:`_ID_SHOWN` characters."""
_ID_SHOWN: Final = 60


@dataclass(frozen=True, slots=True)
class Applied:
    """What phase 3 did: the new state, the active rules, their instructions, the rejected effects."""

    state: Mapping[str, Any]
    active: tuple[str, ...]
    instructions: tuple[str, ...]
    rejected: tuple[Mapping[str, Any], ...]
    changed: frozenset[str]  # top-level state members whose value changed


def check_turn(program: Program, turn: Turn) -> None:
    """Raise :class:`TurnError` for an unknown observation, a wrong answer or an unknown illustration rule.

    An unknown observation, choice or illustration rule id names the nearest known one, if any is near.
    """
    _check_types(turn)
    for ident, answer in turn.observations.items():
        observation = program.observations.get(ident)
        if observation is None:
            known = ", ".join(sorted(program.observations)) or "none"
            hint = _did_you_mean(ident, program.observations)
            raise TurnError(f"unknown observation {_shown_id(ident)}{hint}; this pack's observations: {known}")
        if observation.get("type") == "boolean" and not isinstance(answer, bool):
            raise TurnError(f"observation {ident!r} is a yes/no question: answer true or false, not {show(answer)}")
        if observation.get("type") == "choice":
            choices = observation.get("choices", {})
            if not isinstance(answer, str) or answer not in choices:
                hint = _did_you_mean(answer, choices, loose=True) if isinstance(answer, str) else ""
                raise TurnError(
                    f"observation {ident!r} takes one of the choices {sorted(choices)}, not {show(answer)}{hint}"
                )
    _check_matches(program, turn.illustration_matches)


def _check_matches(program: Program, matches: Sequence[str]) -> None:
    """Raise :class:`TurnError` naming the first few unknown illustration rule ids and counting the rest.

    Only the ids named get a suggestion, so a turn with thousands of unknown ids costs no more than one with three.
    """
    known_rules = program.illustration_rule_ids
    unknown = list(dict.fromkeys(m for m in matches if m not in known_rules))
    if not unknown:
        return
    named, rules = unknown[:_NAMED], sorted(known_rules)
    guesses = [(m, guess) for m in named if (guess := suggest.nearest(m, rules)) is not None]
    hint = ", ".join(f"{guess!r}" + (f" for {_shown_id(m)}" if len(unknown) > 1 else "") for m, guess in guesses)
    hint = f" (did you mean {hint}?)" if hint else ""
    listed = ", ".join(_shown_id(m) for m in named)
    more = f" and {len(unknown) - len(named)} more" if len(unknown) > len(named) else ""
    known = f"this pack's rules: {rules}" if rules else "this pack has no illustration rules"
    raise TurnError(f"unknown illustration rule(s) [{listed}]{more}{hint}; {known}")


def _shown_id(ident: str) -> str:
    """``ident`` quoted, cut to its first characters when it is longer than any id a pack may have."""
    return repr(ident if len(ident) <= _LONGEST_ID else ident[:_ID_SHOWN] + "…")


def _check_types(turn: Turn) -> None:
    """Raise :class:`TurnError` unless the turn holds a mapping of string ids and a sequence of string ids.

    A host may build a :class:`Turn` from anything; what the checks below would trip over is named here.
    """
    observations: object = turn.observations
    if not isinstance(observations, Mapping):
        raise TurnError(f"observations must map observation ids to answers, not be {a_python_type(observations)}")
    for ident in observations:
        if not isinstance(ident, str):
            raise TurnError(f"an observation id must be a string, not {a_python_type(ident)} ({ident!r})")
    matches: object = turn.illustration_matches
    if isinstance(matches, str) or not isinstance(matches, Sequence):
        shown = f"the string {matches!r}" if isinstance(matches, str) else a_python_type(matches)
        raise TurnError(f"illustration_matches must be a list of illustration rule ids, not {shown}")
    for match in matches:
        if not isinstance(match, str):
            raise TurnError(f"an illustration rule id must be a string, not {a_python_type(match)} ({match!r})")


def _did_you_mean(word: str, candidates: Iterable[str], *, loose: bool = False) -> str:
    """`` (did you mean 'x'?)`` for the candidate nearest to ``word``, or nothing when none is near.

    ``loose`` for an observation's choices, a closed vocabulary (as lint reads them).
    """
    guess = suggest.nearest(word, candidates, loose=loose)
    return f" (did you mean {guess!r}?)" if guess is not None else ""


def refresh(
    program: Program,
    values: tuple[bool, ...],
    state: Mapping[str, Any],
    answers: Mapping[str, Any],
    changed: Iterable[Read],
    before: tuple[Mapping[str, Any], Mapping[str, Any]] | None = None,
    flipped: list[int] | None = None,
) -> tuple[bool, ...]:
    """The condition values after ``changed`` members or answers changed (the rest are kept).

    With ``before``, the state and answers the values were computed on, a condition that reads
    a changed member or answer only through thresholds, members or answers that did not change
    is kept too (:mod:`creatorpack.play._watch`), and so is one whose changed tests all push it
    towards the value it has (a condition is monotone in each test). The conditions whose value
    changed are added to ``flipped``, when given.
    """
    stale = _stale(program, values, state, answers, changed, before)
    if not stale:
        return values
    updated = list(values)
    if flipped is None:
        evaluators = program.evaluators
        for index in stale:
            updated[index] = evaluators[index](state, answers)
        return tuple(updated)
    _reevaluate(program, updated, stale, state, answers, flipped)
    return tuple(updated)


def _stale(
    program: Program,
    values: Sequence[bool],
    state: Mapping[str, Any],
    answers: Mapping[str, Any],
    changed: Iterable[Read],
    before: tuple[Mapping[str, Any], Mapping[str, Any]] | None,
) -> set[int]:
    """The conditions :func:`refresh` evaluates again (``values``: theirs before the change)."""
    stale: set[int] = set()
    readers = program.readers
    for read in changed:
        if before is not None and read.kind is ReadKind.STATE and (watch := program.watches.get(read.name)):
            old, new = before[0].get(read.name, _ABSENT), state.get(read.name, _ABSENT)
            stale.update(watch.stale(old, new, values))
        elif before is not None and read.kind is ReadKind.OBSERVATION and (heard := program.heard.get(read.name)):
            old, new = before[1].get(read.name, UNANSWERED), answers.get(read.name, UNANSWERED)
            stale.update(heard.stale(old, new, values))
        else:
            stale.update(readers.get(read, ()))
    return stale


def _reevaluate(
    program: Program,
    updated: list[bool],
    stale: Iterable[int],
    state: Mapping[str, Any],
    answers: Mapping[str, Any],
    flipped: list[int],
) -> None:
    """Evaluate the ``stale`` conditions again into ``updated`` (in place); add those that flip to ``flipped``.

    In the order of their indices, which is the order a session's start generated their functions
    in: a turn's few hundred calls then read their code from memory in one direction (1.5-3.5% of a
    turn, one process, alternating), not in the order a set of ints happens to iterate.
    """
    evaluators = program.evaluators
    for index in sorted(stale):
        if (value := evaluators[index](state, answers)) is not updated[index]:
            updated[index] = value
            flipped.append(index)


def eligible_illustrations(program: Program, values: tuple[bool, ...]) -> set[str]:
    """Phase 1: the illustration rules whose ``when`` holds before the turn."""
    return {rule.id for rule in program.illustration_rules if values[rule.when]}


def record_answers(answers: Mapping[str, Any], turn: Turn) -> tuple[dict[str, Any], set[Read]]:
    """Phase 2: the answers in force after the turn, and which of them changed."""
    changed = {
        Read(ReadKind.OBSERVATION, k)
        for k, v in turn.observations.items()
        if k not in answers or not json_equal(answers[k], v)
    }
    return {**answers, **turn.observations}, changed


def apply_rules(
    program: Program,
    values: Sequence[bool],
    state: Mapping[str, Any],
    completed: frozenset[str],
    *,
    plain: bool = False,
    opened: OpenRules | None = None,
    chosen: tuple[tuple[str, ...], tuple[str, ...]] | None = None,
) -> Applied:
    """Phase 3: active rules in document order; a rule's effects apply all or none.

    The active rules come from ``opened`` (the rules not in ``completed``; built when not given)
    and the effects run as the program's generated straight-line code. With ``plain``, rules are
    looked at one by one and effects applied one by one: the reference the fast path is tested against.
    ``chosen``, when given, are the active rules and their instructions, found already (from a :class:`Held`).
    """
    if plain:
        active_list: list[str] = []
        instruction_list: list[str] = []
        for rule in compress(program.rules, program.rule_whens(values)):
            if rule.id not in completed:
                active_list.append(rule.id)
                if rule.instruction is not None:
                    instruction_list.append(rule.instruction)
        active, instructions = tuple(active_list), tuple(instruction_list)
    elif chosen is not None:
        active, instructions = chosen
    else:
        if opened is None or not opened.fits(completed):
            opened = program.open_rules(completed)
        active, instructions = opened.active(values), opened.instructions(values)
    run = program.plain_effects if plain else program.run_effects
    if run is None:  # pragma: no cover - compile_program always sets both
        return Applied(state, active, instructions, (), frozenset())
    working = dict(state)
    rejected: list[dict[str, Any]] = []
    run(values, working, completed, rejected)
    get, was = working.get, state.get
    changed = frozenset(
        k for k in program.written if (now := get(k)) is not (then := was(k)) and not json_equal(now, then)
    )
    return Applied(working if changed else state, active, instructions, tuple(rejected), changed)


def choose_illustration(program: Program, matched: set[str], entry: str | None = None) -> str | None:
    """The illustration of the highest-priority matched rule; none on a tie across illustrations.

    An illustration scoped to other entries (its ``entry_ids``) is not chosen in a session of ``entry``.
    """
    candidates = [
        (r.priority, r.illustration)
        for r in program.illustration_rules
        if r.id in matched and (entry is None or program.in_scope(r.entries, entry))
    ]
    if not candidates:
        return None
    top = max(priority for priority, _ in candidates)
    shown = {ill for priority, ill in candidates if priority == top}
    return shown.pop() if len(shown) == 1 else None  # a tie across illustrations keeps ordinary staging


def settle(
    program: Program,
    session: SessionState,
    turn: int,
    state: Mapping[str, Any],
    answers: Mapping[str, Any],
    values: tuple[bool, ...],
    flipped: Iterable[int] | None = None,
    opened: OpenRules | None = None,
) -> tuple[SessionState, tuple[str, ...]]:
    """Phases 4 and 5: completions, reveals, achievements, the ending, badges; and the newly completed rules.

    Given the conditions that ``flipped`` since ``session`` (which a turn settled), only those that
    came to hold are looked at: what held before was completed, revealed or unlocked then. Without
    them, or on a session no turn settled, every completion, reveal and achievement is looked at.
    ``opened``, the open rules of ``session``, is carried into the new session, less what completed.
    """
    if flipped is None or not session.settled:
        return _settle_all(program, session, turn, state, answers, values)
    completions: list[int] = []
    reveals: list[int] = []
    unlocking: list[int] = []
    consumers = program.consumers
    for index in flipped:
        if values[index] and index in consumers:
            for kind, position in consumers[index]:
                (completions if kind == "completion" else reveals if kind == "reveal" else unlocking).append(position)
    completed = session.completed
    new_completed: tuple[str, ...] = ()
    if completions:
        picked = (program.completable[p][0] for p in sorted(set(completions)))
        new_completed = tuple(rid for rid in picked if rid not in completed)
        if new_completed:
            completed = completed | frozenset(new_completed)
            if opened is not None:
                opened = opened.without(new_completed, completed, program.rule_positions, program.completable_ids)
    revealed = session.revealed
    if reveals:
        grown: dict[str, set[str]] = {}
        for position in reveals:
            reveal = program.reveals[position]
            if reveal.ident not in revealed.get(reveal.kind, ()) and program.in_scope(reveal.entries, session.entry):
                grown.setdefault(reveal.kind, set()).add(reveal.ident)
        if grown:
            revealed = {**revealed, **{kind: revealed.get(kind, frozenset()) | ids for kind, ids in grown.items()}}
    achievements = session.achievements
    unlocked = session.achievements_set
    if unlocking:
        goals = program.achievements
        fresh = [goals[p].id for p in sorted(set(unlocking)) if goals[p].id not in unlocked]
        if fresh:
            achievements = (*achievements, *fresh)
            unlocked = unlocked.union(fresh)
    ending = session.ending if session.ending is not None else _ending(program, values)
    badges = session.badges
    if achievements is not session.achievements or ending != session.ending:
        new_ids = set(achievements[len(session.achievements) :])
        positions = sorted({p for ident in new_ids for p in program.achievement_positions.get(ident, ())})
        newly: list[Goal] = [program.achievements[p] for p in positions]
        newly += [g for g in program.endings if g.id == ending and ending != session.ending]
        listed = list(badges)
        for goal in newly:
            if goal.badge is not None and goal.badge not in listed:
                listed.append(goal.badge)
        badges = tuple(listed)
    after = SessionState(
        program.pack_id,
        program.revision,
        session.entry,
        turn,
        state,
        answers,
        completed,
        revealed,
        achievements,
        badges,
        ending,
        values,
        opened if opened is not None and opened.fits(completed) else None,
        settled=True,
        unlocked=(achievements, unlocked),
    )
    return after, new_completed


def _settle_all(
    program: Program,
    session: SessionState,
    turn: int,
    state: Mapping[str, Any],
    answers: Mapping[str, Any],
    values: tuple[bool, ...],
) -> tuple[SessionState, tuple[str, ...]]:
    """:func:`settle` looking at every completion, reveal and achievement: the reference the flips must match."""
    new_completed = tuple(rid for rid, cond in program.completable if values[cond] and rid not in session.completed)
    revealed = {kind: set(session.revealed.get(kind, ())) for kind in REVEAL_KINDS}
    for reveal in program.reveals:
        if values[reveal.when] and program.in_scope(reveal.entries, session.entry):
            revealed[reveal.kind].add(reveal.ident)
    achievements = list(session.achievements)
    unlocked = session.achievements_set
    achievements += [g.id for g in program.achievements if values[g.when] and g.id not in unlocked]
    ending = session.ending if session.ending is not None else _ending(program, values)
    newly: list[Goal] = [g for g in program.achievements if g.id in achievements[len(session.achievements) :]]
    newly += [g for g in program.endings if g.id == ending and ending != session.ending]
    badges = list(session.badges)
    for goal in newly:
        if goal.badge is not None and goal.badge not in badges:
            badges.append(goal.badge)
    unlocked_ids = tuple(achievements)
    after = SessionState(
        program.pack_id,
        program.revision,
        session.entry,
        turn,
        state,
        answers,
        session.completed | frozenset(new_completed),
        {kind: frozenset(ids) for kind, ids in revealed.items()},
        unlocked_ids,
        tuple(badges),
        ending,
        values,
        settled=True,
        unlocked=(unlocked_ids, frozenset(unlocked_ids)),
    )
    return after, new_completed


def _ending(program: Program, values: tuple[bool, ...]) -> str | None:
    reached = [(g.priority, -i, g.id) for i, g in enumerate(program.endings) if values[g.when]]
    return max(reached)[2] if reached else None


def evaluate_all(program: Program, state: Mapping[str, Any], answers: Mapping[str, Any]) -> tuple[bool, ...]:
    """Every condition's value on ``state`` and ``answers``, evaluated afresh."""
    return tuple(evaluate(state, answers) for evaluate in program.evaluators)


def step(
    program: Program, session: SessionState, turn: Turn, *, full: bool = False
) -> tuple[SessionState, Applied, tuple[str, ...], str | None]:
    """Play one turn; the new session, what the rules did, the newly completed rules, the illustration.

    A turn evaluates again only the conditions that read what changed, applies the effects as
    generated code and settles only what the flipped conditions reach. ``full`` plays the same turn
    the plain way, every condition evaluated afresh, every effect applied one by one, every
    completion, reveal and achievement looked at: the reference the incremental turn is tested against.
    """
    if session.ending is not None:
        raise SessionOverError(f"the session reached the ending {session.ending!r}; it takes no more turns")
    check_turn(program, turn)
    answers, changed_answers = record_answers(session.answers, turn)
    if full:
        eligible = eligible_illustrations(program, evaluate_all(program, session.state, session.answers))
        values = evaluate_all(program, session.state, answers)
        applied = apply_rules(program, values, session.state, session.completed, plain=True)
        values = evaluate_all(program, applied.state, answers)
        after, new_completed = _settle_all(program, session, session.turn + 1, applied.state, answers, values)
    else:
        eligible = eligible_illustrations(program, session.values)
        flipped: list[int] = []
        was = (session.state, session.answers)
        completed = session.completed
        held = session.held
        if not isinstance(held, Held) or not held.fits(session.values, completed):
            held = program.held(session.values, completed)
        # One list of values for the turn, changed in place by both refreshes: a tuple is made once, at the end,
        # and the list handed to the next turn (the one that made the values it starts from, not a copy).
        updated = held.take(session.values)
        stale = _stale(program, session.values, session.state, answers, changed_answers, was)
        _reevaluate(program, updated, stale, session.state, answers, flipped)
        table = program.rule_table or RuleTable.of(program.rules)
        ids, told = table.ids, table.instructions
        held = held.after(updated, flipped, table.by_when, ids, told, completed, (None, None))
        first = len(flipped)
        applied = apply_rules(program, updated, session.state, completed, chosen=(held.ids, held.texts))
        changed_state = [Read(ReadKind.STATE, k) for k in applied.changed]
        if changed_state:
            changed_state.append(Read(ReadKind.WHOLE_STATE, ""))
            stale = _stale(program, updated, applied.state, answers, changed_state, (session.state, answers))
            _reevaluate(program, updated, stale, applied.state, answers, flipped)
        values = tuple(updated) if flipped else session.values
        turned = session.turn + 1
        after, new_completed = settle(program, session, turned, applied.state, answers, values, flipped)
        done = after.completed
        closed = [p for ident in new_completed for p in program.rule_positions.get(ident, ())]
        later = flipped[first:]
        listed = program.listed(done) if new_completed else None
        held = held.after(
            values,
            later,
            table.by_when,
            ids,
            told,
            done,
            (values, done),
            closed,
            defer=True,
            listed=listed,
            spare=updated,
        )
        object.__setattr__(after, "held", held)  # frozen for its users; made just above, seen by no one yet
    illustration = choose_illustration(program, eligible & set(turn.illustration_matches), session.entry)
    return after, applied, new_completed, illustration


def reward_assets(program: Program, goals: Iterable[Goal], badges: Iterable[str]) -> set[str]:
    """The assets that ``goals`` (achievements, endings: their artwork) and ``badges`` (both sides) give."""
    rewards = {goal.artwork for goal in goals if goal.artwork}
    for badge_id in badges:
        collectible = program.badges.get(badge_id, {}).get("collectible", {})
        if isinstance(collectible, Mapping):
            sides = (collectible.get("front_asset_id"), collectible.get("effect_mask_asset_id"))
            rewards.update(side for side in sides if isinstance(side, str) and side)
    return rewards


def reachable_assets(program: Program, session: SessionState) -> tuple[str, ...]:
    """Revealed assets the reader can reach: a ``reward_only`` one only once a reward references it."""
    revealed = sorted(session.revealed.get("assets", ()))
    held = [a for a in revealed if program.assets.get(a, {}).get("access", "standard") == "reward_only"]
    if not held:  # the rewards need looking up only for a reward_only asset
        return tuple(revealed)
    unlocked = session.achievements_set
    earned = [g for g in (*program.achievements, *program.endings) if g.id in unlocked or g.id == session.ending]
    rewards = reward_assets(program, earned, session.badges)
    return tuple(asset_id for asset_id in revealed if asset_id not in held or asset_id in rewards)


def locked_achievements(program: Program, session: SessionState) -> tuple[str, ...]:
    """Achievements the reader may see as still locked: visible ones only, never hidden ones."""
    return _locked(program, session.achievements_set)


def _locked(program: Program, unlocked: frozenset[str]) -> tuple[str, ...]:
    """The visible achievements not in ``unlocked``, in document order (filtered in C: a thousand on a big pack)."""
    visible = program.visible
    if visible is None:
        visible = tuple(g.id for g in program.achievements if not g.hidden)
    return tuple(filterfalse(unlocked.__contains__, visible))


_CARD_PARTS: Final = ("avatars", "images")


def shown(program: Program, session: SessionState) -> dict[str, frozenset[str]]:
    """What is revealed as the reader may see it, by reveal kind.

    A ``reward_only`` asset whose ``reveal_when`` holds stays hidden (and unnamed) until a reward
    that references it unlocks; a card's avatar, image or relationship shows only once the card
    itself is revealed, whatever its own ``reveal_when`` says, and an avatar or image only while
    the reader can reach its asset (as the service's reader view serves it).
    """
    revealed = session.revealed
    cards = revealed.get("reader_cards", frozenset())
    assets = frozenset(reachable_assets(program, session))
    parts = {
        kind: frozenset(
            card for card in revealed.get(kind, ()) if card in cards and program.card_assets.get((kind, card)) in assets
        )
        for kind in _CARD_PARTS
    }
    relationships = frozenset(ident for ident in revealed.get("relationships", ()) if ident.partition("/")[0] in cards)
    return {**revealed, **parts, "relationships": relationships, "assets": assets}


def describe(
    program: Program,
    before: SessionState,
    after: SessionState,
    applied: Applied,
    new_completed: Sequence[str],
    illustration: str | None,
) -> TurnResult:
    """What the turn did, for both audiences."""
    values = after.values
    here = [c for c in program.content if values[c.when] and program.in_scope(c.entries, after.entry)]
    content = tuple(c.id for c in here if c.selection == "always")
    candidates = tuple(c.id for c in here if c.selection == "jev")
    shown_after = shown(program, after)
    shown_before = shown(program, before)
    revealed = {kind: tuple(sorted(shown_after[kind])) for kind in REVEAL_KINDS}
    new_revealed = {
        kind: tuple(sorted(shown_after[kind] - shown_before.get(kind, frozenset()))) for kind in REVEAL_KINDS
    }
    unlocked = after.achievements_set
    guidance = {
        "achievements": [_guidance(g, values) for g in program.achievements if g.guidance and g.id not in unlocked],
        "endings": [_guidance(g, values) for g in program.endings if g.guidance and after.ending is None],
    }
    return TurnResult(
        turn=after.turn,
        state=_copied(after.state),  # the host's to keep or change: the session keeps its own
        active_rules=applied.active,
        instructions=applied.instructions,
        content=content,
        content_candidates=candidates,
        guidance=guidance,
        completed_rules=_completed_rules(program, after),
        new_completed_rules=tuple(new_completed),
        rejected_effects=applied.rejected,
        revealed=revealed,
        new_revealed=new_revealed,
        achievements=after.achievements,
        new_achievements=after.achievements[len(before.achievements) :],
        badges=after.badges,
        new_badges=after.badges[len(before.badges) :],
        ending=after.ending,
        illustration=illustration,
        reachable_assets=revealed["assets"],
        locked_achievements=_locked(program, unlocked),
    )


_SCALARS: Final = frozenset({int, float, str, bool, type(None)})


def _copied(state: Mapping[str, Any]) -> Any:
    """``copy_json(state)``, faster for what a state mostly holds: scalars, and sets (lists) of scalars.

    A turn hands the host a copy of the state; ``copy_json`` asks each value whether it is a
    ``Mapping`` (an abstract class: a slow check), which was a third of describing a turn.
    """
    if type(state) is not dict:
        return copy_json(state)
    copied = {}
    for key, value in state.items():
        kind = type(value)
        if kind in _SCALARS:
            copied[key] = value
        elif kind is list:
            copied[key] = [item if type(item) in _SCALARS else copy_json(item) for item in value]
        else:
            copied[key] = copy_json(value)
    return copied


def _completed_rules(program: Program, session: SessionState) -> tuple[str, ...]:
    """The completed rules, in document order: kept with the session's open rules, else found afresh."""
    completed = session.completed
    if not completed:
        return ()
    held = session.held
    if isinstance(held, Held) and held.basis[1] is completed:
        return held.listed
    opened = session.open_rules
    if isinstance(opened, OpenRules) and opened.completed is completed:
        return opened.listed
    return program.listed(completed)


def _guidance(goal: Goal, values: tuple[bool, ...]) -> dict[str, Any]:
    guidance = goal.guidance or {}
    requirements = [
        Requirement(r.id, r.hint, r.ref, r.condition is not None and values[r.condition]) for r in goal.requirements
    ]
    return {
        "id": goal.id,
        "summary": guidance.get("summary"),
        "next_step": guidance.get("next_step"),
        "requirements": [
            {"id": r.id, "hint": r.hint, "condition_ref": r.condition_ref, "holds": r.holds} for r in requirements
        ],
    }


def _same(left: Any, right: Any) -> bool:
    return left is right or json_equal(left, right)
