"""Play a pack turn by turn: typed state, conditions, effects, reveals, progression, presentation.

:class:`Engine` compiles a valid 0.3, 0.4 or 0.5 pack once. Its :meth:`Engine.start` and
:meth:`Engine.step` are pure: a :class:`SessionState` goes in, a new one and a
:class:`TurnResult` come out. :class:`Session` wraps them for hosts that prefer an object.

A turn, in order (``docs/runtime.md``):

1. illustration eligibility is tested on the state before the turn;
2. the narrator's observation answers are recorded;
3. every rule not yet completed whose ``when`` holds is active; guidance rules contribute
   their instruction, effect rules apply their effects in document order (all of a rule's
   effects or none);
4. a rule whose ``completion`` holds on the new state is completed for good;
5. reveals, achievements, endings and badges are computed on the new state.

Only conditions that read something that changed are evaluated again.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Final

from creatorpack.conditions import CompiledCondition, ConditionError, compile_condition, json_equal, sub_condition
from creatorpack.errors import InvalidPackError, NotPlayableError, SessionLoadError, SessionOverError, TurnError
from creatorpack.state import CompiledEffect, EffectError, check_state, set_paths
from creatorpack.validation import Source, validate

__all__ = [
    "REVEAL_KINDS",
    "Engine",
    "Requirement",
    "Session",
    "SessionState",
    "Turn",
    "TurnResult",
]

REVEAL_KINDS: Final = (
    "reader_cards",
    "avatars",
    "images",
    "relationships",
    "assets",
    "visual_anchors",
    "castings",
    "deeds",
    "knowledge",
)
"""The kinds of sticky reveals, as keys of :attr:`TurnResult.revealed`."""

SAVE_FORMAT: Final = "creatorpack.session/1"


@dataclass(frozen=True, slots=True)
class Turn:
    """What the narrator reports for one turn."""

    observations: Mapping[str, bool | str] = field(default_factory=dict)
    illustration_matches: Sequence[str] = ()

    @classmethod
    def from_json(cls, data: Any) -> Turn:
        """A turn from its JSON form ``{"observations": {...}, "illustration_matches": [...]}``."""
        if not isinstance(data, Mapping):
            raise TurnError("a turn must be a JSON object with 'observations' and 'illustration_matches'")
        unknown = set(data) - {"observations", "illustration_matches"}
        if unknown:
            raise TurnError(f"unknown turn member(s) {sorted(unknown)}; use 'observations' and 'illustration_matches'")
        observations = data.get("observations", {})
        matches = data.get("illustration_matches", [])
        if not isinstance(observations, Mapping):
            raise TurnError("'observations' must be an object of observation id to answer")
        if not isinstance(matches, list) or not all(isinstance(m, str) for m in matches):
            raise TurnError("'illustration_matches' must be an array of illustration rule ids")
        return cls(dict(observations), tuple(matches))


@dataclass(frozen=True, slots=True)
class Requirement:
    """One requirement of a guided achievement or ending, and whether it holds now."""

    id: str
    hint: str
    condition_ref: str
    holds: bool


@dataclass(frozen=True, slots=True)
class SessionState:
    """Everything a session is, as plain values: what :meth:`Engine.step` takes and returns."""

    pack_id: str
    revision: int
    entry: str
    turn: int
    state: Mapping[str, Any]
    answers: Mapping[str, Any]
    completed: frozenset[str]
    revealed: Mapping[str, frozenset[str]]
    achievements: tuple[str, ...]
    badges: tuple[str, ...]
    ending: str | None
    values: tuple[bool, ...] = field(repr=False, compare=False)

    @property
    def achievements_set(self) -> frozenset[str]:
        """The unlocked achievements, as a set."""
        return frozenset(self.achievements)

    def to_json(self) -> dict[str, Any]:
        """The saved form (plain JSON); load it with :meth:`Engine.load`."""
        return {
            "format": SAVE_FORMAT,
            "pack_id": self.pack_id,
            "revision": self.revision,
            "entry": self.entry,
            "turn": self.turn,
            "state": self.state,
            "answers": dict(self.answers),
            "completed_rules": sorted(self.completed),
            "revealed": {kind: sorted(self.revealed.get(kind, ())) for kind in REVEAL_KINDS},
            "unlocked_achievements": list(self.achievements),
            "badges": list(self.badges),
            "ending": self.ending,
        }


@dataclass(frozen=True, slots=True)
class TurnResult:
    """What one turn did, split by audience.

    For the narrator (never shown to the reader): ``active_rules``, ``instructions``,
    ``content`` and ``content_candidates`` (``jev`` content the host may choose from), and
    ``guidance`` (guided achievements and endings not yet reached, with their requirements).
    For the reader: ``revealed``, ``achievements``, ``badges``, ``ending``, ``illustration``,
    ``reachable_assets``; the ``new_*`` fields say what this turn added.
    """

    turn: int
    state: Mapping[str, Any]
    active_rules: tuple[str, ...]
    instructions: tuple[str, ...]
    content: tuple[str, ...]
    content_candidates: tuple[str, ...]
    guidance: Mapping[str, Any]
    completed_rules: tuple[str, ...]
    new_completed_rules: tuple[str, ...]
    rejected_effects: tuple[Mapping[str, Any], ...]
    revealed: Mapping[str, tuple[str, ...]]
    new_revealed: Mapping[str, tuple[str, ...]]
    achievements: tuple[str, ...]
    new_achievements: tuple[str, ...]
    badges: tuple[str, ...]
    new_badges: tuple[str, ...]
    ending: str | None
    illustration: str | None
    reachable_assets: tuple[str, ...]

    @property
    def over(self) -> bool:
        """Whether the session reached an ending."""
        return self.ending is not None

    def to_json(self) -> dict[str, Any]:
        """The transcript form used by ``creatorpack play --format json``."""
        return {
            "turn": self.turn,
            "state": self.state,
            "active_rules": list(self.active_rules),
            "completed_rules": list(self.completed_rules),
            "rejected_effects": [dict(r) for r in self.rejected_effects],
            "unlocked_achievements": list(self.achievements),
            "badges": list(self.badges),
            "ending": self.ending,
            "illustration": self.illustration,
            "revealed": {k: list(v) for k, v in self.revealed.items()},
            "reachable_assets": list(self.reachable_assets),
            "new": {
                "completed_rules": list(self.new_completed_rules),
                "unlocked_achievements": list(self.new_achievements),
                "badges": list(self.new_badges),
                "revealed": {k: list(v) for k, v in self.new_revealed.items() if v},
            },
            "narrator": {
                "instructions": list(self.instructions),
                "content": list(self.content),
                "content_candidates": list(self.content_candidates),
                "guidance": self.guidance,
            },
        }


@dataclass(frozen=True, slots=True)
class _Rule:
    id: str
    when: int
    completion: int | None
    instruction: str | None
    effects: tuple[CompiledEffect, ...]
    keys: tuple[str, ...]  # the top-level state members its effects write


@dataclass(frozen=True, slots=True)
class _Goal:
    """An achievement or an ending."""

    id: str
    when: int
    badge: str | None
    artwork: str | None
    hidden: bool
    priority: int
    requirements: tuple[tuple[str, str, str, int | None], ...]
    guidance: Mapping[str, Any] | None


def _id_of(item: Mapping[str, Any]) -> str | None:
    for key in ("id", "entry_id"):
        value = item.get(key)
        if isinstance(value, str):
            return value
    return None


class Engine:
    """A compiled pack, ready to play. Immutable; one engine serves any number of sessions."""

    def __init__(self, pack: Mapping[str, Any]) -> None:
        """Compile a pack that is already known to be valid (see :meth:`from_source`)."""
        version = pack.get("protocol_version")
        if version not in ("0.3", "0.4", "0.5"):
            raise NotPlayableError(f"only 0.3, 0.4 and 0.5 packs can be played, not {version!r}")
        self.pack = pack
        self.version: str = version
        runtime = pack["runtime"]
        self.schema: Mapping[str, Any] = runtime["state"]["schema"]
        self.pack_id: str = pack["manifest"]["pack_id"]
        self.revision: int = pack["manifest"]["revision"]
        self.entries: tuple[Mapping[str, Any], ...] = tuple(runtime["entries"])
        self.observations: dict[str, Mapping[str, Any]] = {o["id"]: o for o in runtime.get("observations", [])}
        self._sets = set_paths(self.schema)
        self._conditions: list[CompiledCondition] = []
        self._evaluators: list[Any] = []
        self._by_key: dict[str, list[int]] = {}

        self._rules = tuple(
            self._rule(rule, index) for index, rule in enumerate(runtime.get("rules", [])) if isinstance(rule, Mapping)
        )
        self._completable = tuple((rule.id, rule.completion) for rule in self._rules if rule.completion is not None)
        self._content = tuple(
            (c["id"], self._add(c.get("when")), c["selection"], c["text"]) for c in pack.get("content", [])
        )
        self._reveals: list[tuple[str, str, int]] = []
        for card in pack.get("reader_cards", []):
            self._reveal("reader_cards", card["id"], card["reveal_when"])
            for kind, part in (("avatars", card.get("avatar")), ("images", card.get("image"))):
                if isinstance(part, Mapping) and isinstance(part.get("reveal_when"), Mapping):
                    self._reveal(kind, card["id"], part["reveal_when"])
            for relation in card.get("relationships", []):
                self._reveal("relationships", f"{card['id']}/{relation['actor_id']}", relation["reveal_when"])
        for asset in pack.get("assets", []):
            self._reveal("assets", asset["id"], asset["reveal_when"])
        anchors = pack.get("visual_anchors")
        for anchor in anchors if isinstance(anchors, list) else []:
            # visual_anchors' shape is not shown: an anchor with an id and a well-formed reveal_when is tracked.
            if (
                isinstance(anchor, Mapping)
                and isinstance(anchor.get("id"), str)
                and _is_condition(anchor.get("reveal_when"))
            ):
                self._reveal("visual_anchors", anchor["id"], anchor["reveal_when"])
        castings = pack.get("character_castings", []) if self.version != "0.3" else []  # a 0.4 addition
        for casting in castings:
            self._reveal("castings", casting["id"], casting["when"])
            for deed in casting.get("deeds", []):
                self._reveal("deeds", f"{casting['id']}/{deed['id']}", deed["when"])
            for item in casting.get("knowledge", []):
                self._reveal("knowledge", f"{casting['id']}/{item['id']}", item["when"])
        progression = pack.get("progression") or {}
        self._achievements = tuple(self._goal(a) for a in progression.get("achievements", []))
        endings = [
            e
            for e in progression.get("endings", [])
            if isinstance(e, Mapping) and isinstance(e.get("id"), str) and isinstance(e.get("when"), Mapping)
        ]
        self._endings = tuple(self._goal(e) for e in endings)
        self._badges: dict[str, Mapping[str, Any]] = {b["id"]: b for b in progression.get("badges", [])}
        presentation = pack.get("presentation") or {}
        self._illustration_rules = tuple(
            (r["id"], r["illustration_id"], self._add(r["when"]), r.get("priority", 0))
            for r in presentation.get("illustration_rules", [])
        )
        self._rule_ids = {rule[0] for rule in self._illustration_rules}
        self._assets: dict[str, Mapping[str, Any]] = {a["id"]: a for a in pack.get("assets", [])}

    @classmethod
    def from_source(cls, source: Source) -> Engine:
        """Validate ``source`` and compile it; raise if it is invalid or cannot be played."""
        report = validate(source)
        report.raise_for_errors()
        if report.document is None:  # pragma: no cover - validate always returns the document
            raise InvalidPackError(report)
        return cls(report.document)

    def _rule(self, rule: Mapping[str, Any], index: int) -> _Rule:
        guidance = rule.get("kind") == "guidance"
        raw = rule.get("effects", []) if not guidance else []
        effects = tuple(CompiledEffect(self.schema, e) for e in raw if isinstance(e, Mapping))
        return _Rule(
            rule.get("id", f"rule-{index}"),
            self._add(rule.get("when")),
            self._add(rule["completion"]) if isinstance(rule.get("completion"), Mapping) else None,
            rule.get("instruction") if guidance else None,
            effects,
            tuple(dict.fromkeys(e.key for e in effects if e.key)),
        )

    def _add(self, condition: Any) -> int:
        if not isinstance(condition, Mapping):
            condition = {"op": "literal", "value": True}  # an absent `when` always holds
        compiled = compile_condition(condition, set_paths=self._sets)
        index = len(self._conditions)
        self._conditions.append(compiled)
        self._evaluators.append(compiled.evaluate)
        for key in compiled.state_keys:
            self._by_key.setdefault("s:" + key, []).append(index)
        for observation in compiled.observations:
            self._by_key.setdefault("o:" + observation, []).append(index)
        return index

    def _reveal(self, kind: str, ident: str, condition: Any) -> None:
        self._reveals.append((kind, ident, self._add(condition)))

    def _goal(self, item: Mapping[str, Any]) -> _Goal:
        when = item["when"]
        guidance = item.get("guidance")
        requirements: list[tuple[str, str, str, int | None]] = []
        listed = guidance.get("requirements") if isinstance(guidance, Mapping) else None
        for req in listed if isinstance(listed, list) else []:
            ref = req.get("condition_ref") if isinstance(req, Mapping) else None
            if not isinstance(ref, str):
                continue  # only in shapes the contract does not show (0.4-style endings)
            target = sub_condition(when, ref)
            index = self._add(target) if target is not None and _is_condition(target) else None
            requirements.append((str(req.get("id")), str(req.get("hint", "")), ref, index))
        return _Goal(
            item["id"],
            self._add(when),
            item.get("badge_id"),
            item.get("artwork_asset_id"),
            item.get("visibility") == "hidden",
            item.get("priority", 0) if isinstance(item.get("priority"), int) else 0,
            tuple(requirements),
            guidance if isinstance(guidance, Mapping) else None,
        )

    # -- sessions ------------------------------------------------------------------------------

    def entry_ids(self) -> list[str]:
        """The runtime entries' ids (``id`` or ``entry_id``; ``#<index>`` when they have none)."""
        return [_id_of(e) or f"#{i}" for i, e in enumerate(self.entries)]

    def start(self, entry: str | None = None) -> tuple[SessionState, TurnResult]:
        """Begin a session at ``entry`` (default: the first runtime entry).

        The initial state must fit the state schema. What holds at the start is revealed or
        unlocked at once; the result describes turn 0.
        """
        ids = self.entry_ids()
        if entry is None:
            index = 0
        elif entry in ids:
            index = ids.index(entry)
        else:
            raise NotPlayableError(f"no runtime entry {entry!r}; the entries are {', '.join(ids)}")
        initial = self.entries[index].get("initial_state", {})
        problems = tuple((p.pointer, p.message) for p in check_state(self.schema, initial))
        if problems:
            raise NotPlayableError(
                f"the initial state of entry {ids[index]!r} does not fit the state schema "
                f"(at /runtime/entries/{index}/initial_state)",
                problems,
            )
        values = tuple(c(initial, {}) for c in self._conditions)
        blank = SessionState(
            self.pack_id, self.revision, ids[index], 0, initial, {}, frozenset(), {}, (), (), None, values
        )
        after, result = self._finish(blank, 0, initial, {}, values, (), (), ())
        assert result is not None
        return after, result

    def step(self, session: SessionState, turn: Turn) -> tuple[SessionState, TurnResult]:
        """Play one turn; raise :class:`TurnError` (changing nothing) for malformed input."""
        after, result, _ = self._step(session, turn, describe=True)
        assert result is not None
        return after, result

    def advance(self, session: SessionState, turn: Turn) -> tuple[SessionState, tuple[str, ...]]:
        """Play one turn without describing it: the new state and the rules that were active.

        The same semantics as :meth:`step`, for searches that play many turns (``creatorpack lint``).
        """
        after, _, active = self._step(session, turn, describe=False)
        return after, active

    def _step(
        self, session: SessionState, turn: Turn, *, describe: bool
    ) -> tuple[SessionState, TurnResult | None, tuple[str, ...]]:
        if session.ending is not None:
            raise SessionOverError(f"the session reached the ending {session.ending!r}; it takes no more turns")
        self._check_turn(turn)
        # (1) Illustration eligibility: on the state (and answers) before the turn.
        eligible = {rid for rid, _, cond, _ in self._illustration_rules if session.values[cond]}
        # (2) Record the answers.
        answers = dict(session.answers)
        changed = {f"o:{k}" for k, v in turn.observations.items() if k not in answers or not json_equal(answers[k], v)}
        answers.update(turn.observations)
        values = self._refresh(session.values, session.state, answers, changed)
        # (3) Active rules; effects in document order, all of a rule's effects or none.
        working = dict(session.state)
        completed = session.completed
        active: list[str] = []
        instructions: list[str] = []
        rejected: list[dict[str, Any]] = []
        touched: set[str] = set()
        for rule in [rule for rule in self._rules if values[rule.when]]:
            if rule.id in completed:
                continue
            active.append(rule.id)
            if rule.instruction is not None:
                instructions.append(rule.instruction)
            if not rule.effects:
                continue
            touched.update(rule.keys)
            saved = {key: working[key] for key in rule.keys if key in working}
            for position, effect in enumerate(rule.effects):
                try:
                    effect.apply(working)
                except EffectError as exc:
                    rejected.append({"rule": rule.id, "effect": position, "reason": str(exc)})
                    working.update(saved)
                    break
        before = session.state
        changed_keys = {f"s:{k}" for k in touched if not _same(working.get(k), before.get(k))}
        state: Mapping[str, Any] = working if changed_keys else before
        values = self._refresh(values, state, answers, changed_keys)
        illustration = self._illustration(eligible & set(turn.illustration_matches))
        after, result = self._finish(
            session, session.turn + 1, state, answers, values, active, instructions, rejected, illustration, describe
        )
        return after, result, tuple(active)

    def _check_turn(self, turn: Turn) -> None:
        for ident, answer in turn.observations.items():
            observation = self.observations.get(ident)
            if observation is None:
                known = ", ".join(sorted(self.observations)) or "none"
                raise TurnError(f"unknown observation {ident!r}; this pack's observations: {known}")
            if observation.get("type") == "boolean" and not isinstance(answer, bool):
                raise TurnError(f"observation {ident!r} is a yes/no question: answer true or false, not {answer!r}")
            if observation.get("type") == "choice":
                choices = observation.get("choices", {})
                if not isinstance(answer, str) or answer not in choices:
                    raise TurnError(f"observation {ident!r} takes one of the choices {sorted(choices)}, not {answer!r}")
        unknown = [m for m in turn.illustration_matches if m not in self._rule_ids]
        if unknown:
            raise TurnError(f"unknown illustration rule(s) {unknown}; this pack's rules: {sorted(self._rule_ids)}")

    def _refresh(
        self, values: tuple[bool, ...], state: Mapping[str, Any], answers: Mapping[str, Any], changed: Iterable[str]
    ) -> tuple[bool, ...]:
        stale = {index for key in changed for index in self._by_key.get(key, ())}
        if not stale:
            return values
        updated = list(values)
        evaluators = self._evaluators
        for index in stale:
            updated[index] = evaluators[index](state, answers)
        return tuple(updated)

    def _illustration(self, matched: set[str]) -> str | None:
        candidates = [(priority, ill) for rid, ill, _, priority in self._illustration_rules if rid in matched]
        if not candidates:
            return None
        top = max(priority for priority, _ in candidates)
        shown = {ill for priority, ill in candidates if priority == top}
        return shown.pop() if len(shown) == 1 else None  # a tie across illustrations keeps ordinary staging

    def _finish(
        self,
        session: SessionState,
        turn: int,
        state: Mapping[str, Any],
        answers: Mapping[str, Any],
        values: tuple[bool, ...],
        active: Sequence[str],
        instructions: Sequence[str],
        rejected: Sequence[Mapping[str, Any]],
        illustration: str | None = None,
        describe: bool = True,  # noqa: FBT001, FBT002 - internal
    ) -> tuple[SessionState, TurnResult | None]:
        # (4) Completion on the new state.
        completed = set(session.completed)
        new_completed = [rid for rid, cond in self._completable if values[cond] and rid not in completed]
        completed.update(new_completed)
        # (5) Reveals, achievements, endings, badges: sticky.
        revealed = {kind: set(session.revealed.get(kind, ())) for kind in REVEAL_KINDS}
        for kind, ident, cond in self._reveals:
            if values[cond]:
                revealed[kind].add(ident)
        achievements = list(session.achievements)
        unlocked = set(achievements)
        for goal in self._achievements:
            if values[goal.when] and goal.id not in unlocked:
                achievements.append(goal.id)
                unlocked.add(goal.id)
        ending = session.ending
        if ending is None:
            reached = [g for g in self._endings if values[g.when]]
            if reached:
                ending = max(reached, key=lambda g: (g.priority, -self._endings.index(g))).id
        badges = list(session.badges)
        before = session.achievements_set
        newly = [g for g in self._achievements if g.id in unlocked and g.id not in before]
        newly += [g for g in self._endings if g.id == ending and ending != session.ending]
        for goal in newly:
            if goal.badge is not None and goal.badge not in badges:
                badges.append(goal.badge)
        new_state = SessionState(
            self.pack_id,
            self.revision,
            session.entry,
            turn,
            state,
            answers,
            frozenset(completed),
            {kind: frozenset(ids) for kind, ids in revealed.items()},
            tuple(achievements),
            tuple(badges),
            ending,
            values,
        )
        if not describe:
            return new_state, None
        return new_state, self._result(session, new_state, active, instructions, rejected, new_completed, illustration)

    def _result(
        self,
        before: SessionState,
        after: SessionState,
        active: Sequence[str],
        instructions: Sequence[str],
        rejected: Sequence[Mapping[str, Any]],
        new_completed: Sequence[str],
        illustration: str | None,
    ) -> TurnResult:
        values = after.values
        content = tuple(cid for cid, cond, selection, _ in self._content if selection == "always" and values[cond])
        candidates = tuple(cid for cid, cond, selection, _ in self._content if selection == "jev" and values[cond])
        revealed = {kind: tuple(sorted(after.revealed[kind])) for kind in REVEAL_KINDS}
        new_revealed = {
            kind: tuple(sorted(after.revealed[kind] - before.revealed.get(kind, frozenset()))) for kind in REVEAL_KINDS
        }
        guidance = {
            "achievements": [
                self._guidance(g, values) for g in self._achievements if g.guidance and g.id not in after.achievements
            ],
            "endings": [self._guidance(g, values) for g in self._endings if g.guidance and after.ending is None],
        }
        return TurnResult(
            turn=after.turn,
            state=after.state,
            active_rules=tuple(active),
            instructions=tuple(instructions),
            content=content,
            content_candidates=candidates,
            guidance=guidance,
            completed_rules=tuple(rid for rid, _ in self._completable if rid in after.completed),
            new_completed_rules=tuple(new_completed),
            rejected_effects=tuple(rejected),
            revealed=revealed,
            new_revealed=new_revealed,
            achievements=self._visible_achievements(after),
            new_achievements=after.achievements[len(before.achievements) :],
            badges=after.badges,
            new_badges=after.badges[len(before.badges) :],
            ending=after.ending,
            illustration=illustration,
            reachable_assets=self._reachable(after),
        )

    def _guidance(self, goal: _Goal, values: tuple[bool, ...]) -> dict[str, Any]:
        guidance = goal.guidance or {}
        requirements = [
            Requirement(rid, hint, ref, index is not None and values[index])
            for rid, hint, ref, index in goal.requirements
        ]
        return {
            "id": goal.id,
            "summary": guidance.get("summary"),
            "next_step": guidance.get("next_step"),
            "requirements": [
                {"id": r.id, "hint": r.hint, "condition_ref": r.condition_ref, "holds": r.holds} for r in requirements
            ],
        }

    def _visible_achievements(self, session: SessionState) -> tuple[str, ...]:
        # Unlocked achievements, in unlock order; a hidden one is listed only once unlocked.
        return session.achievements

    def locked_achievements(self, session: SessionState) -> tuple[str, ...]:
        """Achievements the reader may see as still locked: visible ones only, never hidden ones."""
        return tuple(g.id for g in self._achievements if not g.hidden and g.id not in session.achievements)

    def _reachable(self, session: SessionState) -> tuple[str, ...]:
        rewards: set[str] = set()
        unlocked = set(session.achievements)
        for goal in (*self._achievements, *self._endings):
            if goal.artwork and (goal.id in unlocked or goal.id == session.ending):
                rewards.add(goal.artwork)
        for badge_id in session.badges:
            collectible = self._badges.get(badge_id, {}).get("collectible", {})
            rewards.update(a for a in (collectible.get("front_asset_id"), collectible.get("effect_mask_asset_id")) if a)
        reachable = []
        for asset_id in sorted(session.revealed.get("assets", ())):
            asset = self._assets.get(asset_id, {})
            if asset.get("access", "standard") != "reward_only" or asset_id in rewards:
                reachable.append(asset_id)
        return tuple(reachable)

    def load(self, saved: Mapping[str, Any]) -> SessionState:
        """Restore a session saved with :meth:`SessionState.to_json`.

        Into another revision of the same pack, the saved state is checked against this
        revision's state schema; what no longer fits is reported in the error.
        """
        if not isinstance(saved, Mapping) or saved.get("format") != SAVE_FORMAT:
            raise SessionLoadError(f"not a saved session (expected 'format': {SAVE_FORMAT!r})")
        if saved.get("pack_id") != self.pack_id:
            raise SessionLoadError(f"the session was saved from pack {saved.get('pack_id')!r}, not {self.pack_id!r}")
        try:
            state = saved["state"]
            entry = saved["entry"]
            problems = tuple((p.pointer, p.message) for p in check_state(self.schema, state))
            if problems:
                raise SessionLoadError(
                    f"the saved state (revision {saved.get('revision')}) no longer fits revision {self.revision}",
                    problems,
                )
            if entry not in self.entry_ids():
                raise SessionLoadError(f"the saved entry {entry!r} is not in revision {self.revision}")
            answers = {k: v for k, v in saved["answers"].items() if k in self.observations}
            values = tuple(c(state, answers) for c in self._conditions)
            revealed = {kind: frozenset(saved["revealed"].get(kind, ())) for kind in REVEAL_KINDS}
            return SessionState(
                self.pack_id,
                self.revision,
                entry,
                int(saved["turn"]),
                state,
                answers,
                frozenset(saved["completed_rules"]),
                revealed,
                tuple(saved["unlocked_achievements"]),
                tuple(saved["badges"]),
                saved.get("ending"),
                values,
            )
        except (KeyError, TypeError, AttributeError) as exc:
            raise SessionLoadError(f"the saved session is incomplete or malformed: {exc}") from None


def _is_condition(value: Any) -> bool:
    """Whether ``value`` compiles as a condition (for places whose shape the contract does not show)."""
    if not isinstance(value, Mapping):
        return False
    try:
        compile_condition(value)
    except (ConditionError, TypeError, AttributeError):
        return False
    return True


def _same(left: Any, right: Any) -> bool:
    return left is right or json_equal(left, right)


class Session:
    """A playable session: an :class:`Engine` plus the current :class:`SessionState`."""

    def __init__(self, engine: Engine, state: SessionState, last: TurnResult | None = None) -> None:
        self.engine = engine
        self.state = state
        self.last = last

    @classmethod
    def start(cls, pack: Engine | Source, entry: str | None = None) -> Session:
        """Start a session on a pack (validated first unless an :class:`Engine` is given)."""
        engine = pack if isinstance(pack, Engine) else Engine.from_source(pack)
        state, result = engine.start(entry)
        return cls(engine, state, result)

    def turn(
        self, observations: Mapping[str, bool | str] | None = None, illustration_matches: Sequence[str] = ()
    ) -> TurnResult:
        """Play one turn and return what it did."""
        self.state, self.last = self.engine.step(
            self.state, Turn(dict(observations or {}), tuple(illustration_matches))
        )
        return self.last

    @property
    def over(self) -> bool:
        """Whether the session reached an ending."""
        return self.state.ending is not None

    def save(self) -> dict[str, Any]:
        """The session as plain JSON."""
        return self.state.to_json()

    @classmethod
    def load(cls, pack: Engine | Source, saved: Mapping[str, Any]) -> Session:
        """Restore a saved session on ``pack`` (possibly a newer revision)."""
        engine = pack if isinstance(pack, Engine) else Engine.from_source(pack)
        return cls(engine, engine.load(saved))
