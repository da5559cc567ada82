"""A pack compiled for play: every condition compiled once, and small frozen records that point at them.

:func:`compile_program` turns a valid 0.3, 0.4 or 0.5 pack into a :class:`Program`. Conditions live
in one table (:attr:`Program.conditions`); rules, reveals, goals, content and illustration rules
refer to them by index, so a turn evaluates each condition at most once and only when something
it reads (:attr:`Program.readers`) changed.
"""

from __future__ import annotations

import dataclasses
import weakref
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from functools import partial
from itertools import compress
from typing import Any

from creatorpack._json import JsonPath, whole_number
from creatorpack.contract.conditions import Condition, parse
from creatorpack.contract.schema import as_declared
from creatorpack.errors import ConditionError, NotPlayableError
from creatorpack.play._effects import EffectRunner, compile_effects, effect_rules, plain_runner, written
from creatorpack.play._open import Held, OpenRules, open_rules, picker, rule_kinds
from creatorpack.play._paused import collector_paused
from creatorpack.play._pool import ConstantPool, pool_of
from creatorpack.play._typed import Shape, shape_of
from creatorpack.play._watch import Heard, Watch, heard, watches
from creatorpack.play.conditions import (
    AllValues,
    CompiledCondition,
    Evaluator,
    Typed,
    compile_condition,
    generate_all,
    make_evaluator,
    sub_condition,
)
from creatorpack.play.state import CompiledEffect, set_paths
from creatorpack.play.views import RevealKind

__all__ = [
    "ALWAYS",
    "ContentItem",
    "Goal",
    "IllustrationRule",
    "Program",
    "Read",
    "ReadKind",
    "RequirementSpec",
    "Reveal",
    "Rule",
    "RuleTable",
    "compile_program",
    "entry_id",
    "entry_scopes",
    "is_condition",
    "relationship_ids",
    "scope",
]

ALWAYS = {"op": "literal", "value": True}
"""What an absent ``when`` means."""


class ReadKind(StrEnum):
    """What a condition reads: a top-level state member or an observation's answer."""

    STATE = "state"
    OBSERVATION = "observation"
    WHOLE_STATE = "whole-state"  # a comparison on path "": any change to the state (its name is "")


@dataclass(frozen=True, slots=True)
class Read:
    """One thing a condition reads; a change to it makes the condition stale."""

    kind: ReadKind
    name: str


@dataclass(frozen=True, slots=True)
class Rule:
    """A runtime rule: when it is active, what it tells the narrator, what it changes."""

    id: str
    when: int
    completion: int | None
    instruction: str | None
    effects: tuple[CompiledEffect, ...]
    keys: tuple[str, ...]  # the top-level state members its effects write


@dataclass(frozen=True, slots=True)
class RequirementSpec:
    """A guided goal's requirement: its condition is the sub-condition ``ref`` points at (if it resolves)."""

    id: str
    hint: str
    ref: str
    condition: int | None


@dataclass(frozen=True, slots=True)
class Goal:
    """An achievement or an ending."""

    id: str
    when: int
    badge: str | None
    artwork: str | None
    hidden: bool
    priority: int
    requirements: tuple[RequirementSpec, ...]
    guidance: Mapping[str, Any] | None


@dataclass(frozen=True, slots=True)
class Reveal:
    """A sticky reveal: ``ident`` of ``kind`` is revealed once condition ``when`` holds."""

    kind: RevealKind
    ident: str
    when: int
    entries: frozenset[str] | None = None  # the item's entry_ids: revealed only in sessions of those entries
    where: JsonPath = ()  # where its condition is in the pack, for findings about it


@dataclass(frozen=True, slots=True)
class ContentItem:
    """A content item for the narrator: always shown, or a candidate (``jev``) while ``when`` holds."""

    id: str
    when: int
    selection: str
    entries: frozenset[str] | None = None  # its entry_ids: shown only in sessions of those entries


@dataclass(frozen=True, slots=True)
class IllustrationRule:
    """A presentation rule: illustration ``illustration`` is eligible while ``when`` holds."""

    id: str
    illustration: str
    when: int
    priority: int
    entries: frozenset[str] | None = None  # the illustration's entry_ids: chosen only in those entries' sessions


@dataclass(frozen=True, slots=True)
class Program:
    """A compiled pack. Immutable; shared by every session of the pack."""

    pack: Mapping[str, Any]
    version: str
    schema: Mapping[str, Any]
    pack_id: str
    revision: int
    entries: tuple[Mapping[str, Any], ...]
    observations: Mapping[str, Mapping[str, Any]]
    conditions: tuple[CompiledCondition, ...]
    evaluators: Sequence[Callable[[Any, Any], bool]] = field(repr=False, compare=False)
    """Each condition's function, by index (generated on its first call: see ``_Conditions``)."""
    readers: Mapping[Read, tuple[int, ...]] = field(repr=False)
    watches: Mapping[str, Watch] = field(repr=False)  # finer than ``readers``, for state members
    heard: Mapping[str, Heard] = field(repr=False)  # finer than ``readers``, for observations
    rules: tuple[Rule, ...]
    rule_whens: Callable[[Sequence[bool]], Sequence[bool]] = field(repr=False)  # each rule's `when`, from the values
    completable: tuple[tuple[str, int], ...]
    content: tuple[ContentItem, ...]
    reveals: tuple[Reveal, ...]
    achievements: tuple[Goal, ...]
    endings: tuple[Goal, ...]
    badges: Mapping[str, Mapping[str, Any]]
    illustration_rules: tuple[IllustrationRule, ...]
    assets: Mapping[str, Mapping[str, Any]]
    scopes: Mapping[str, frozenset[str]] = field(default_factory=dict)
    """Each runtime entry's id -> the ids an ``entry_ids`` list may name it by (see :meth:`in_scope`)."""
    scoped: Mapping[tuple[str, str], frozenset[str]] = field(default_factory=dict)
    """(reveal kind, id) -> the entries an entry-scoped reveal belongs to; unscoped reveals are absent."""
    card_assets: Mapping[tuple[str, str], str] = field(default_factory=dict)
    """(``avatars`` or ``images``, card id) -> the asset that part of a reader card shows."""
    shared: tuple[Reveal, ...] = ()
    """Relationship reveals of cards with two relationships to one actor, which saves before ``#2`` merged."""
    run_effects: EffectRunner | None = field(default=None, repr=False)
    """The effects of the active, open rules as generated straight-line code (:mod:`~creatorpack.play._effects`)."""
    plain_effects: EffectRunner | None = field(default=None, repr=False)
    """The same, applied effect by effect: the reference the generated code is tested against."""
    written: tuple[str, ...] = ()
    """The top-level state members some rule's effects write."""
    consumers: Mapping[int, tuple[tuple[str, int], ...]] = field(default_factory=dict, repr=False)
    """Condition index -> what reads it when it comes to hold: ("completion" | "reveal" | "achievement", position)."""
    completable_ids: tuple[str, ...] = field(default=(), repr=False)
    """The ids of :attr:`completable`, in order."""
    achievement_positions: Mapping[str, tuple[int, ...]] = field(default_factory=dict, repr=False)
    """An achievement id -> the positions of the achievements with that id."""
    rule_positions: Mapping[Any, tuple[int, ...]] = field(default_factory=dict, repr=False)
    """A rule id -> the positions of the rules with that id."""

    generator: Any = field(default=None, repr=False, compare=False)
    """What generates each condition's function on its first call (held here: its stand-ins hold it weakly)."""
    every: list[AllValues] = field(default_factory=list, repr=False, compare=False)
    """:meth:`values`' generated function, once made (a holder: the program itself stays frozen)."""
    rule_table: RuleTable | None = field(default=None, repr=False)
    """The rules as parallel tuples, for :meth:`open_rules`."""
    visible: tuple[str, ...] | None = field(default=None, repr=False)
    """The ids of the achievements that are not hidden, in document order (what a turn lists as locked)."""
    all_open: OpenRules | None = field(default=None, repr=False)
    """The :class:`OpenRules` of a session that completed nothing (most sessions at their start)."""
    shape: Shape | None = field(default=None, repr=False, compare=False)
    """The members every entry's initial state holds, typed (:mod:`~creatorpack.play._typed`); None: none."""
    twin: list[Program] = field(default_factory=list, repr=False, compare=False)
    """The program :meth:`fitted` gives for states that fit :attr:`shape`, once made (a holder, as :attr:`every`)."""

    def fitted(self, state: Any) -> Program:
        """The program to play a turn from ``state`` with: this one, or its typed twin when ``state`` fits the shape.

        The twin is this program with :attr:`evaluators` generated for :attr:`shape` (its members
        read with no presence or type test: a third cheaper a call on the runtime benchmark pack),
        made on first need; its other parts are this program's. A state that does not fit (not
        from this engine, a save with members missing, a state changed in place) gets this program,
        whose code is exact on any JSON state. A turn from a fitting state makes one that fits too.
        """
        shape = self.shape
        if shape is None or not shape.fits(state):
            return self
        if not self.twin:
            table = _Typed(self.conditions, set_paths(self.schema), shape.paths)
            twin = dataclasses.replace(self, evaluators=table.functions, generator=table, shape=None, twin=[])
            self.twin.append(twin)  # two threads may both make one: either is right, the first is kept
        return self.twin[0]

    def values(self, state: Mapping[str, Any], answers: Mapping[str, Any], *, make: bool = True) -> tuple[bool, ...]:
        """Every condition's value on ``state`` and ``answers``.

        With ``make`` (or once made), by one generated function that evaluates each distinct leaf
        once (:func:`~creatorpack.play.conditions.generate_all`; made on first use: on the runtime
        benchmark pack it takes about as long as 40 loads save); else by each condition's own function.
        """
        if not self.every and make:
            trees = [c.tree if c.tree is not None else parse(c.source) for c in self.conditions]
            with collector_paused():
                self.every.append(generate_all(trees, set_paths(self.schema)))
        if self.every:
            return self.every[0](state, answers)
        with collector_paused():  # the first call of each condition generates its function
            return tuple(evaluate(state, answers) for evaluate in self.evaluators)

    def open_rules(self, completed: frozenset[str]) -> OpenRules:
        """The rules a session that completed ``completed`` has not completed (see :mod:`~creatorpack.play._open`).

        A session loaded from a save gets them so on its first turn; later turns carry them along.
        """
        if not completed and self.all_open is not None:
            return self.all_open
        table = self.rule_table or RuleTable.of(self.rules)
        return table.open(completed, self.completable_ids, self.rule_positions)

    def held(self, values: tuple[bool, ...], completed: frozenset[str]) -> Held:
        """Which rules are active on ``values`` for a session that completed ``completed`` (built afresh).

        A turn carries them to the next (:meth:`~creatorpack.play._open.Held.after`); a session
        loaded from a save, or built by hand, gets them so on its first turn.
        """
        table = self.rule_table or RuleTable.of(self.rules)
        closed = (p for ident in completed for p in self.rule_positions.get(ident, ()))
        basis = (values, completed)
        listed = self.listed(completed)
        return Held.of(values, self.rule_whens, closed, table.ids, table.instructions, basis, listed, table.kinds)

    def listed(self, completed: frozenset[str]) -> tuple[str, ...]:
        """The rules in ``completed`` that have a completion, in document order (what a turn result lists)."""
        if not completed:
            return ()
        ids = self.completable_ids
        return tuple(compress(ids, map(completed.__contains__, ids)))

    def in_scope(self, entries: frozenset[str] | None, entry: str) -> bool:
        """Whether an item scoped to ``entries`` (its ``entry_ids``; None: every entry) belongs to entry ``entry``."""
        return entries is None or not entries.isdisjoint(self.scopes.get(entry, (entry,)))

    @property
    def illustration_rule_ids(self) -> frozenset[str]:
        """The ids of the presentation's illustration rules."""
        return frozenset(rule.id for rule in self.illustration_rules)

    def entry_ids(self) -> list[str]:
        """The runtime entries' ids (``id`` or ``entry_id``; ``#<index>`` when they have none)."""
        return [entry_id(e) or f"#{i}" for i, e in enumerate(self.entries)]


@dataclass(frozen=True, slots=True)
class RuleTable:
    """The rules as parallel tuples (ids, ``when`` indices, instructions), for :class:`OpenRules` and :class:`Held`."""

    ids: tuple[Any, ...]
    whens: tuple[int, ...]
    instructions: tuple[str | None, ...]
    instructed: frozenset[int]
    by_when: Mapping[int, tuple[int, ...]] = field(default_factory=dict)
    """A condition -> the rules whose ``when`` it is."""
    kinds: tuple[bytes, int] | None = None
    """Each rule's mark when active, and the rules with an instruction as bits (``rule_kinds``)."""

    @classmethod
    def of(cls, rules: Sequence[Rule]) -> RuleTable:
        """The table of ``rules``."""
        told = tuple(r.instruction for r in rules)
        instructed = frozenset(p for p, text in enumerate(told) if text is not None)
        by_when: dict[int, list[int]] = {}
        for position, rule in enumerate(rules):
            by_when.setdefault(rule.when, []).append(position)
        return cls(
            tuple(r.id for r in rules),
            tuple(r.when for r in rules),
            told,
            instructed,
            {cond: tuple(found) for cond, found in by_when.items()},
            rule_kinds(told),
        )

    def open(self, completed: frozenset[str], completable: Sequence[str], at: Mapping[Any, Sequence[int]]) -> OpenRules:
        """The rules not in ``completed`` (see :func:`~creatorpack.play._open.open_rules`)."""
        return open_rules(completed, self.ids, self.whens, self.instructions, completable, at, self.instructed)


def entry_id(item: Mapping[str, Any]) -> str | None:
    """An entry's id: its ``id``, else its ``entry_id``."""
    for key in ("id", "entry_id"):
        value = item.get(key)
        if isinstance(value, str):
            return value
    return None


def is_condition(value: Any) -> bool:
    """Whether ``value`` compiles as a condition (for places whose shape the contract does not show)."""
    if not isinstance(value, Mapping):
        return False
    try:
        compile_condition(value)
    except (ConditionError, TypeError, AttributeError):
        return False
    return True


class _Conditions:
    """The condition table being built: each added condition gets the next index.

    A condition's function is generated on its first call, not here: generating and compiling
    Python code is most of what compiling a pack would cost (0.68 s of 1.3 s on the runtime
    benchmark pack), and many users of a program (lint, a reader view, a session that never
    reaches most of a pack) call few of its conditions. Until then ``functions[i]`` and the
    condition's ``evaluate`` are a stand-in that makes the function, puts it in both places and calls it.
    """

    def __init__(self, schema: Mapping[str, Any]) -> None:
        self.sets = set_paths(schema)
        self.compiled: list[CompiledCondition] = []
        self.functions: list[Evaluator] = []
        self.members: dict[str, list[int]] = {}  # a top-level state member -> the conditions reading it
        self.observations: dict[str, list[int]] = {}  # an observation -> the conditions reading its answer
        self.whole: list[int] = []  # the conditions comparing the whole state
        self.shared: dict[str, Any] = {}  # generated code -> its function, shared by conditions with the same code
        self.pool: ConstantPool | None = None  # made on the first call of a condition, once all are added
        self.me = weakref.ref(self)  # what the stand-ins hold (one for all of them)

    def make(self, index: int) -> Evaluator:
        """Generate condition ``index``'s function and put it where its stand-in was."""
        compiled = self.compiled[index]
        if self.pool is None:
            self.pool = pool_of(leaf for compiled in self.compiled for leaf in compiled.leaves)
        made = make_evaluator(compiled.tree or parse(compiled.source), self.sets, self.shared, None, self.pool)
        object.__setattr__(compiled, "evaluate", made)  # frozen for its users: this replaces a stand-in by its equal
        self.functions[index] = made
        return made

    def add(self, condition: Any) -> int:
        if not isinstance(condition, Mapping):
            condition = ALWAYS  # an absent `when` always holds
        index = len(self.compiled)
        compiled = compile_condition(
            condition,
            set_paths=self.sets,
            stand_in=lambda tree: partial(_first_call, self.me, index, tree, self.sets, None),
        )
        self.compiled.append(compiled)
        self.functions.append(compiled.evaluate)
        for key in compiled.state_keys:
            if (found := self.members.get(key)) is None:
                self.members[key] = [index]
            else:
                found.append(index)
        for observation in compiled.observations:
            if (found := self.observations.get(observation)) is None:
                self.observations[observation] = [index]
            else:
                found.append(index)
        if compiled.whole_state:
            self.whole.append(index)
        return index

    def readers(self) -> dict[Read, tuple[int, ...]]:
        """What each state member, observation and the whole state is read by (:attr:`Program.readers`)."""
        readers = {Read(ReadKind.STATE, key): tuple(found) for key, found in self.members.items()}
        readers.update((Read(ReadKind.OBSERVATION, key), tuple(found)) for key, found in self.observations.items())
        if self.whole:
            readers[Read(ReadKind.WHOLE_STATE, "")] = tuple(self.whole)
        return readers


def _first_call(
    table: weakref.ref[_Conditions] | weakref.ref[_Typed],
    index: int,
    tree: Condition,
    sets: frozenset[str],
    typed: Typed | None,
    state: Mapping[str, Any],
    answers: Mapping[str, Any],
) -> bool:
    """A stand-in's call (a ``partial`` of this): generate condition ``index``'s function, put it in its place, call it.

    A stand-in holds its table weakly (the program holds it), so that a program dropped before its
    conditions were all called is freed at once, not left in reference cycles for the collector;
    a stand-in called after its program is gone generates a function for the call (``typed`` for
    a :class:`_Typed` table's). A ``partial``, not a closure: two objects a condition instead of
    six, made for every condition of a pack.
    """
    owner = table()
    made = owner.make(index) if owner is not None else make_evaluator(tree, sets, None, typed)
    return made(state, answers)


class _Typed:
    """Each condition's function for states that fit a shape (:class:`~creatorpack.play._typed.Shape`).

    As :class:`_Conditions`' functions, each is generated on its first call (by a stand-in); the
    conditions' own :attr:`~CompiledCondition.evaluate` stays the generic function.
    """

    def __init__(self, conditions: Sequence[CompiledCondition], sets: frozenset[str], typed: Typed) -> None:
        self.trees = [c.tree or parse(c.source) for c in conditions]
        self.leaves = [c.leaves for c in conditions]
        self.sets = sets
        self.typed = typed
        self.shared: dict[str, Any] = {}
        self.pool: ConstantPool | None = None  # made on the first call of a condition
        self.me = weakref.ref(self)
        self.functions: list[Evaluator] = [
            partial(_first_call, self.me, i, tree, sets, typed) for i, tree in enumerate(self.trees)
        ]

    def make(self, index: int) -> Evaluator:
        """Generate condition ``index``'s typed function and put it where its stand-in was."""
        if self.pool is None:
            self.pool = pool_of(leaf for found in self.leaves for leaf in found)
        made = make_evaluator(self.trees[index], self.sets, self.shared, self.typed, self.pool)
        self.functions[index] = made
        return made


def _rule(table: _Conditions, schema: Mapping[str, Any], rule: Mapping[str, Any], index: int) -> Rule:
    guidance = rule.get("kind") == "guidance"
    raw = rule.get("effects", []) if not guidance else []
    effects = tuple(CompiledEffect(schema, e) for e in raw if isinstance(e, Mapping))
    return Rule(
        rule.get("id", f"rule-{index}"),
        table.add(rule.get("when")),
        table.add(rule["completion"]) if isinstance(rule.get("completion"), Mapping) else None,
        rule.get("instruction") if guidance else None,
        effects,
        tuple(dict.fromkeys(e.key for e in effects if e.key)),
    )


def _goal(table: _Conditions, item: Mapping[str, Any]) -> Goal:
    when = item["when"]
    guidance = item.get("guidance")
    requirements: list[RequirementSpec] = []
    listed = guidance.get("requirements") if isinstance(guidance, Mapping) else None
    for req in listed if isinstance(listed, list) else []:
        ref = req.get("condition_ref") if isinstance(req, Mapping) else None
        if not isinstance(ref, str):
            continue  # only in shapes the contract does not show (0.4-style endings)
        target = sub_condition(when, ref)
        index = table.add(target) if target is not None and is_condition(target) else None
        requirements.append(RequirementSpec(str(req.get("id")), str(req.get("hint", "")), ref, index))
    return Goal(
        item["id"],
        table.add(when),
        _ident(item.get("badge_id")),  # any value in a shape the contract does not show (0.4 endings)
        _ident(item.get("artwork_asset_id")),
        item.get("visibility") == "hidden",
        priority if isinstance(priority := item.get("priority", 0), int) and not isinstance(priority, bool) else 0,
        tuple(requirements),
        guidance if isinstance(guidance, Mapping) else None,
    )


def _ident(value: Any) -> str | None:
    """An id a goal refers to (a badge, an artwork), or ``None`` when the member is no string."""
    return value if isinstance(value, str) else None


def scope(item: Mapping[str, Any]) -> frozenset[str] | None:
    """An item's ``entry_ids`` as a set, or None (every entry) when it has none."""
    ids = item.get("entry_ids")
    return frozenset(i for i in ids if isinstance(i, str)) if isinstance(ids, list) else None


def relationship_ids(card: Mapping[str, Any]) -> list[str]:
    """The reveal ids of a reader card's relationships, in order: ``card/actor``, then ``card/actor#2``, ...

    Two relationships with one actor are two reveals; the first keeps the plain id that saves use.
    """
    seen: dict[str, int] = {}
    found = []
    for relation in card.get("relationships", []):
        actor = str(relation.get("actor_id")) if isinstance(relation, Mapping) else "None"
        seen[actor] = seen.get(actor, 0) + 1
        found.append(f"{card.get('id')}/{actor}" + (f"#{seen[actor]}" if seen[actor] > 1 else ""))
    return found


def _card_reveals(table: _Conditions, pack: Mapping[str, Any]) -> list[Reveal]:
    reveals = []
    for at, card in enumerate(pack.get("reader_cards", [])):
        entries, here = scope(card), ("reader_cards", at)
        reveals.append(
            Reveal(RevealKind.READER_CARDS, card["id"], table.add(card["reveal_when"]), entries, (*here, "reveal_when"))
        )
        for kind, name in ((RevealKind.AVATARS, "avatar"), (RevealKind.IMAGES, "image")):
            part = card.get(name)
            if isinstance(part, Mapping) and isinstance(part.get("reveal_when"), Mapping):
                part_at: JsonPath = (*here, name, "reveal_when")
                reveals.append(Reveal(kind, card["id"], table.add(part["reveal_when"]), entries, part_at))
        relations = card.get("relationships", [])
        for position, (ident, relation) in enumerate(zip(relationship_ids(card), relations, strict=True)):
            relation_at: JsonPath = (*here, "relationships", position, "reveal_when")
            when = table.add(relation["reveal_when"])
            reveals.append(Reveal(RevealKind.RELATIONSHIPS, ident, when, entries, relation_at))
    return reveals


def _other_reveals(table: _Conditions, pack: Mapping[str, Any]) -> list[Reveal]:
    reveals = [
        Reveal(RevealKind.ASSETS, a["id"], table.add(a["reveal_when"]), None, ("assets", at, "reveal_when"))
        for at, a in enumerate(pack.get("assets", []))
    ]
    anchors = pack.get("visual_anchors")
    # visual_anchors' shape is not shown: an anchor with an id and a well-formed reveal_when is tracked.
    reveals.extend(
        Reveal(
            RevealKind.VISUAL_ANCHORS,
            anchor["id"],
            table.add(anchor["reveal_when"]),
            None,
            ("visual_anchors", at, "reveal_when"),
        )
        for at, anchor in enumerate(anchors if isinstance(anchors, list) else [])
        if isinstance(anchor, Mapping) and isinstance(anchor.get("id"), str) and is_condition(anchor.get("reveal_when"))
    )
    castings = pack.get("character_castings", [])  # a 0.4 addition: a 0.3 pack's are dropped with the rest
    for at, casting in enumerate(castings):
        entries, here = scope(casting), ("character_castings", at)
        reveals.append(Reveal(RevealKind.CASTINGS, casting["id"], table.add(casting["when"]), entries, (*here, "when")))
        parts = [(RevealKind.DEEDS, "deeds", i, d) for i, d in enumerate(casting.get("deeds", []))]
        parts += [(RevealKind.KNOWLEDGE, "knowledge", i, k) for i, k in enumerate(casting.get("knowledge", []))]
        reveals.extend(
            Reveal(kind, f"{casting['id']}/{part['id']}", table.add(part["when"]), entries, (*here, name, i, "when"))
            for kind, name, i, part in parts
        )
    return reveals


def compile_program(pack: Mapping[str, Any]) -> Program:
    """Compile a pack that is already known to be valid; raise :class:`NotPlayableError` for 0.2.

    The pack is read as its version reads it (:func:`~creatorpack.contract.schema.as_declared`): a
    0.3 pack's ``progression`` or a 0.4 pack's ``presentation`` is an extension field, not played.
    Python's cyclic garbage collector is paused meanwhile (when it was running): compiling makes
    hundreds of thousands of objects that all live on, and each collection it triggered walked
    them all again, which took more than half of the compile time on the runtime benchmark pack;
    afterwards they go straight to its oldest generation, unwalked (see ``collector_paused``).
    """
    with collector_paused(kept=True):
        return _compile_program(pack)


def _compile_program(pack: Mapping[str, Any]) -> Program:
    pack = as_declared(pack)
    version = pack.get("protocol_version")
    if version not in ("0.3", "0.4", "0.5"):
        raise NotPlayableError(f"only 0.3, 0.4 and 0.5 packs can be played, not {version!r}")
    runtime = pack["runtime"]
    schema = runtime["state"]["schema"]
    table = _Conditions(schema)
    rules = tuple(
        _rule(table, schema, rule, index)
        for index, rule in enumerate(runtime.get("rules", []))
        if isinstance(rule, Mapping)
    )
    content = tuple(
        ContentItem(c["id"], table.add(c.get("when")), c["selection"], scope(c)) for c in pack.get("content", [])
    )
    reveals = (*_card_reveals(table, pack), *_other_reveals(table, pack))
    progression = pack.get("progression") or {}
    achievements = tuple(_goal(table, a) for a in progression.get("achievements", []))
    endings = tuple(
        _goal(table, e)
        for e in progression.get("endings", [])
        if isinstance(e, Mapping) and isinstance(e.get("id"), str) and isinstance(e.get("when"), Mapping)
    )
    presentation = pack.get("presentation") or {}
    illustrations = {i.get("id"): i for i in pack.get("illustrations", []) if isinstance(i, Mapping)}
    illustration_rules = tuple(
        IllustrationRule(
            r["id"],
            r["illustration_id"],
            table.add(r["when"]),
            r.get("priority", 0),
            scope(illustrations.get(r["illustration_id"], {})),
        )
        for r in presentation.get("illustration_rules", [])
    )
    entries = tuple(runtime["entries"])
    with_effects = effect_rules(rules)
    rule_table = RuleTable.of(rules)
    completable = tuple((rule.id, rule.completion) for rule in rules if rule.completion is not None)
    consumers: dict[int, list[tuple[str, int]]] = {}
    for position, (_, cond) in enumerate(completable):
        consumers.setdefault(cond, []).append(("completion", position))
    for position, reveal in enumerate(reveals):
        consumers.setdefault(reveal.when, []).append(("reveal", position))
    achievement_positions: dict[str, list[int]] = {}
    for position, goal in enumerate(achievements):
        consumers.setdefault(goal.when, []).append(("achievement", position))
        achievement_positions.setdefault(goal.id, []).append(position)
    rule_positions: dict[Any, tuple[int, ...]] = {}
    for position, rule in enumerate(rules):
        rule_positions[rule.id] = (*rule_positions.get(rule.id, ()), position)
    return Program(
        pack=pack,
        version=version,
        schema=schema,
        pack_id=pack["manifest"]["pack_id"],
        revision=whole_number(pack["manifest"]["revision"]) or 0,  # valid: an integer, perhaps spelt 3.0
        entries=entries,
        observations={o["id"]: o for o in runtime.get("observations", [])},
        conditions=tuple(table.compiled),
        evaluators=table.functions,
        generator=table,
        readers=table.readers(),
        watches=watches([c.leaves for c in table.compiled], [c.signs for c in table.compiled]),
        heard=heard([c.leaves for c in table.compiled], [c.signs for c in table.compiled]),
        rules=rules,
        rule_whens=picker([rule.when for rule in rules]),
        completable=completable,
        completable_ids=tuple(rid for rid, _ in completable),
        content=content,
        reveals=reveals,
        achievements=achievements,
        endings=endings,
        badges={b["id"]: b for b in progression.get("badges", [])},
        illustration_rules=illustration_rules,
        assets={a["id"]: a for a in pack.get("assets", [])},
        scopes=entry_scopes(entries, [e for e in pack.get("entries", []) if isinstance(e, Mapping)]),
        scoped={(str(r.kind), r.ident): r.entries for r in reveals if r.entries is not None},
        shared=_shared(reveals),
        card_assets=_card_assets(pack),
        run_effects=compile_effects(with_effects),
        plain_effects=plain_runner(with_effects),
        written=written(with_effects),
        consumers={cond: tuple(found) for cond, found in consumers.items()},
        achievement_positions={ident: tuple(found) for ident, found in achievement_positions.items()},
        rule_positions=rule_positions,
        rule_table=rule_table,
        visible=tuple(goal.id for goal in achievements if not goal.hidden),
        all_open=open_rules(
            frozenset(), rule_table.ids, rule_table.whens, rule_table.instructions, (), {}, rule_table.instructed
        ),
        shape=shape if (shape := shape_of(schema, [e.get("initial_state", {}) for e in entries])).paths else None,
    )


def _card_assets(pack: Mapping[str, Any]) -> dict[tuple[str, str], str]:
    found = {}
    for card in pack.get("reader_cards", []):
        for kind, name in ((RevealKind.AVATARS, "avatar"), (RevealKind.IMAGES, "image")):
            part = card.get(name)
            if isinstance(part, Mapping) and isinstance(part.get("asset_id"), str):
                found[str(kind), card["id"]] = part["asset_id"]
    return found


def entry_scopes(entries: Sequence[Mapping[str, Any]], named: Sequence[Mapping[str, Any]]) -> dict[str, frozenset[str]]:
    """Each runtime entry's id -> the names ``entry_ids`` may give it: its own id, and the pack entry's.

    The pack entry is the one with the same id; when no pack entry has it, the one at the same position,
    unless that one has the id of another runtime entry (it is that entry's).
    """
    pack_ids = {e.get("id") for e in named if isinstance(e.get("id"), str)}  # a pack entry's shape is open
    owns = [entry_id(entry) or f"#{i}" for i, entry in enumerate(entries)]
    scopes = {}
    for i, own in enumerate(owns):
        paired = named[i].get("id") if own not in pack_ids and i < len(named) else None
        if paired in owns:
            paired = None  # that pack entry is another runtime entry's, by its id: it names that one only
        scopes[own] = frozenset(n for n in (own, paired) if isinstance(n, str))
    return scopes


def _shared(reveals: Sequence[Reveal]) -> tuple[Reveal, ...]:
    doubled = {r.ident.partition("#")[0] for r in reveals if r.kind == RevealKind.RELATIONSHIPS and "#" in r.ident}
    return tuple(r for r in reveals if r.kind == RevealKind.RELATIONSHIPS and r.ident.partition("#")[0] in doubled)
