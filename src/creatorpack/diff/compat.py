"""Save compatibility between two revisions: a static verdict per member, and a migration plan.

The plan (``docs/diff.md``): a state member the new revision adds takes the ``initial_state``
value of the save's entry in the new revision; a member it removes is dropped; an answer to an
observation it removes (or that is no longer a valid answer) is dropped, and so are completed
rules, reveals, achievements and badges it no longer has. A value outside a new bound or enum,
a retyped member, a removed entry or a removed ending reached by the save cannot be planned:
each is named with its pointer in the save.
"""

from __future__ import annotations

import copy
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Final, Literal

from creatorpack._json import whole_number
from creatorpack.contract.schema import as_declared
from creatorpack.diff._json import items_by_id, kind_of, pointer, require_packs
from creatorpack.diff.errors import MigrationError
from creatorpack.errors import NotPlayableError, SessionLoadError
from creatorpack.play.conditions import json_equal
from creatorpack.play.engine import REVEAL_KINDS
from creatorpack.play.model import STATE_MEMBERS, state_members
from creatorpack.play.program import compile_program, relationship_ids
from creatorpack.play.saves import check_shape
from creatorpack.play.state import check_state

__all__ = [
    "SAVE_FORMAT",
    "Compatibility",
    "MemberVerdict",
    "MigrationPlan",
    "MigrationReport",
    "Misfit",
    "SaveLevel",
    "SaveVerdict",
    "StaticLevel",
    "Step",
    "compatibility",
    "migration_plan",
]

SAVE_FORMAT = "creatorpack.session/1"
StaticLevel = Literal["fits", "by_plan", "may_not_fit"]
SaveLevel = Literal["as_is", "by_plan", "cannot"]
_ORDER: dict[str, int] = {"fits": 0, "by_plan": 1, "may_not_fit": 2, "as_is": 0, "cannot": 2}
_MISSING: Any = object()


@dataclass(frozen=True, slots=True)
class MemberVerdict:
    """The static verdict on one part of every save: does it always fit, fit by the plan, or maybe not.

    ``subject`` says what ``key`` names: a state member's pointer (``state``), an observation id
    (``answers``), an entry or ending id, a kind of saved ids (``ids``: ``completed_rules``,
    ``revealed/assets``, ...), or the pack itself (``pack``).
    """

    subject: Literal["state", "answers", "entry", "ending", "ids", "pack"]
    key: str
    level: StaticLevel
    reason: str

    def to_json(self) -> dict[str, Any]:
        """The JSON form."""
        return {"subject": self.subject, "key": self.key, "level": self.level, "reason": self.reason}


@dataclass(frozen=True, slots=True)
class Compatibility:
    """The static save compatibility verdict of two revisions, member by member."""

    members: tuple[MemberVerdict, ...]

    @property
    def level(self) -> StaticLevel:
        """The worst verdict: ``fits`` only if every save loads as it is."""
        return max((m.level for m in self.members), key=_ORDER.__getitem__, default="fits")

    def to_json(self) -> dict[str, Any]:
        """The JSON form."""
        return {"level": self.level, "members": [m.to_json() for m in self.members]}


@dataclass(frozen=True, slots=True)
class Step:
    """One thing the plan does to a save: ``add`` a value or ``drop`` one, at a pointer in the save."""

    action: Literal["add", "drop"]
    pointer: str
    detail: str
    value: Any = None

    def to_json(self) -> dict[str, Any]:
        """The JSON form (``value`` only for ``add``)."""
        data = {"action": self.action, "pointer": self.pointer, "detail": self.detail}
        return data | {"value": self.value} if self.action == "add" else data


@dataclass(frozen=True, slots=True)
class Misfit:
    """A saved value that does not fit the new revision, at its pointer in the save."""

    pointer: str
    message: str

    def to_json(self) -> dict[str, Any]:
        """The JSON form."""
        return {"pointer": self.pointer, "message": self.message}


@dataclass(frozen=True, slots=True)
class SaveVerdict:
    """The verdict for one concrete save: loads ``as_is``, ``by_plan`` (these steps) or ``cannot``."""

    level: SaveLevel
    steps: tuple[Step, ...]
    misfits: tuple[Misfit, ...]

    def to_json(self) -> dict[str, Any]:
        """The JSON form."""
        return {
            "level": self.level,
            "steps": [s.to_json() for s in self.steps],
            "misfits": [m.to_json() for m in self.misfits],
        }


@dataclass(frozen=True, slots=True)
class MigrationReport:
    """What a migration did: from which revision to which, and each step (none when as is)."""

    pack_id: str
    from_revision: int
    to_revision: int
    level: Literal["as_is", "by_plan"]
    steps: tuple[Step, ...]

    def to_json(self) -> dict[str, Any]:
        """The JSON form (for a transcript)."""
        return {
            "pack_id": self.pack_id,
            "from_revision": self.from_revision,
            "to_revision": self.to_revision,
            "level": self.level,
            "steps": [s.to_json() for s in self.steps],
        }


# -- static verdict ------------------------------------------------------------------------------


def _get(document: Any, *path: str) -> Any:
    node = document
    for token in path:
        node = node.get(token) if isinstance(node, Mapping) else None
    return node


def _schema(pack: Mapping[str, Any]) -> Mapping[str, Any]:
    schema = _get(pack, "runtime", "state", "schema")
    return schema if isinstance(schema, Mapping) else {}


def _entries(pack: Mapping[str, Any]) -> dict[str, Any]:
    """Runtime entries' initial states by entry id (as the engine names them)."""
    return {key: (item or {}).get("initial_state", {}) for key, (_, item) in _entry_items(pack).items()}


def _entry_items(pack: Mapping[str, Any]) -> dict[str, tuple[int, Any]]:
    items = _get(pack, "runtime", "entries")
    found: dict[str, tuple[int, Any]] = {}
    for index, item in enumerate(items if isinstance(items, list) else []):
        ident = next(
            (item[k] for k in ("id", "entry_id") if isinstance(item, Mapping) and isinstance(item.get(k), str)), None
        )
        found.setdefault(ident or f"#{index}", (index, item))
    return found


def _at(value: Any, tokens: Sequence[str]) -> Any:
    for token in tokens:
        if not isinstance(value, Mapping) or token not in value:
            return _MISSING
        value = value[token]
    return value


def _describe(node: Any) -> str:
    kind = kind_of(node)
    if kind == "integer":
        return f"{node.get('minimum')}..{node.get('maximum')}"
    if kind == "set":
        return "{" + ", ".join(map(str, _enum(node))) + "}"
    if kind == "enum":
        return "{" + ", ".join(map(str, node["enum"])) + "}"
    return kind


def _enum(node: Mapping[str, Any]) -> list[Any]:
    items = node.get("items")
    values = items.get("enum") if isinstance(items, Mapping) else None
    return values if isinstance(values, list) else []


def compatibility(old: Mapping[str, Any], new: Mapping[str, Any]) -> Compatibility:
    """The static verdict: for each part of a save of ``old``, whether it loads into ``new``."""
    require_packs(old=old, new=new)
    old, new = as_declared(old), as_declared(new)
    members: list[MemberVerdict] = []
    old_id, new_id = _get(old, "manifest", "pack_id"), _get(new, "manifest", "pack_id")
    if old_id != new_id:
        members.append(MemberVerdict("pack", "", "may_not_fit", f"saves of pack {old_id!r} never load into {new_id!r}"))
    initials = _entries(new)
    members += _static(_schema(old), _schema(new), (), initials)
    members += _static_answers(old, new)
    for entry in _entries(old):
        if entry not in initials:
            members.append(MemberVerdict("entry", entry, "may_not_fit", "saves started at this entry cannot load"))
    old_ids, new_ids = _ids(old), _ids(new)
    members += (
        MemberVerdict("ending", ending, "may_not_fit", "saves that reached this ending cannot load")
        for ending in old_ids["ending"]
        if ending not in new_ids["ending"]
    )
    for kind, ids in old_ids.items():
        gone = [i for i in ids if i not in new_ids[kind]]
        if gone and kind != "ending":
            reason = "dropped from saves: " + ", ".join(gone)
            members.append(MemberVerdict("ids", kind, "by_plan", reason))
    members += _narrowed_scopes(old, new, old_ids)
    return Compatibility(tuple(members))


def _narrowed_scopes(
    old: Mapping[str, Any], new: Mapping[str, Any], old_ids: Mapping[str, list[Any]]
) -> Iterator[MemberVerdict]:
    """Reveals the new revision scopes away from an entry (``entry_ids``) that saves of it may hold: dropped."""
    before, after = _scoped(old), _scoped(new)
    entries = set(_entries(new))
    for kind in REVEAL_KINDS:
        narrowed = []
        for ident in old_ids.get(f"revealed/{kind}", []):
            scope = after.get((kind, ident))
            if scope is not None and ident is not None and not entries <= scope:
                was = before.get((kind, ident), frozenset(_entries(old)))
                if was - scope:
                    narrowed.append(f"{ident} (no longer in {', '.join(sorted(was - scope))})")
        if narrowed:
            reason = "dropped from saves of the entries it no longer belongs to: " + ", ".join(narrowed)
            yield MemberVerdict("ids", f"revealed/{kind}", "by_plan", reason)


def _static(old: Any, new: Any, at: tuple[str, ...], initials: Mapping[str, Any]) -> Iterator[MemberVerdict]:
    key = pointer(at)
    old_kind, new_kind = kind_of(old), kind_of(new)
    if old_kind != new_kind:
        yield MemberVerdict(
            "state", key, "may_not_fit", f"retyped from {old_kind} to {new_kind}: a saved value does not fit"
        )
        return
    if old_kind == "object":
        if at:
            yield MemberVerdict("state", key, "fits", "object")
        old_props: Mapping[str, Any] = old.get("properties", {})
        new_props: Mapping[str, Any] = new.get("properties", {})
        old_required = set(old.get("required", []))
        required = set(new.get("required", []))
        for name in old_props:
            if name not in new_props:
                yield MemberVerdict("state", pointer((*at, name)), "by_plan", "removed: dropped from saves")
        for name, node in new_props.items():
            child = (*at, name)
            if name not in old_props:
                yield _added(child, initials, "added", required=name in required)
            else:
                if name in required and name not in old_required:
                    yield _added(child, initials, "now required", required=True)
                yield from _static(old_props[name], node, child, initials)
        for name in sorted(required - set(new_props)):
            yield MemberVerdict("state", pointer((*at, name)), "may_not_fit", _UNDECLARED)
        return
    if old_kind in ("boolean",):
        yield MemberVerdict("state", key, "fits", "unchanged")
    elif old_kind == "integer":
        low, high = old.get("minimum"), old.get("maximum")
        new_low, new_high = new.get("minimum"), new.get("maximum")
        bounds = (low, high, new_low, new_high)
        if (low, high) == (new_low, new_high):
            yield MemberVerdict("state", key, "fits", "unchanged")
        elif not all(isinstance(b, int | float) and not isinstance(b, bool) for b in bounds):
            yield MemberVerdict("state", key, "may_not_fit", "schema changed")  # a bound the contract requires is gone
        elif new_low <= low and high <= new_high:
            yield MemberVerdict("state", key, "fits", f"bounds widened from {_describe(old)} to {_describe(new)}")
        else:
            reason = f"bounds {_describe(old)} -> {_describe(new)}: a saved value outside {_describe(new)} does not fit"
            yield MemberVerdict("state", key, "may_not_fit", reason)
    elif old_kind in ("set", "enum"):
        before = _enum(old) if old_kind == "set" else old["enum"]
        after = _enum(new) if old_kind == "set" else new["enum"]
        gone = [v for v in before if not any(json_equal(v, w) for w in after)]
        if gone:
            what = "a set holding" if old_kind == "set" else "the value"
            reason = f"{what} {', '.join(map(str, gone))} does not fit {_describe(new)}"
            yield MemberVerdict("state", key, "may_not_fit", reason)
        elif _describe(old) == _describe(new):
            yield MemberVerdict("state", key, "fits", "unchanged")
        elif all(any(json_equal(w, v) for v in before) for w in after):  # the same values in another order
            yield MemberVerdict("state", key, "fits", f"the same values in another order: {_describe(new)}")
        else:
            yield MemberVerdict("state", key, "fits", f"values widened from {_describe(old)} to {_describe(new)}")
    elif json_equal(old, new):
        yield MemberVerdict("state", key, "fits", "unchanged")
    else:
        yield MemberVerdict("state", key, "may_not_fit", "schema changed")


_UNDECLARED: Final = "required, but the state schema does not declare it: no state can have it"


def _added(at: tuple[str, ...], initials: Mapping[str, Any], why: str, *, required: bool) -> MemberVerdict:
    values = {entry: _at(initial, at) for entry, initial in initials.items()}
    lacking = [entry for entry, value in values.items() if value is _MISSING]
    known = ", ".join(f"{entry}: {_json(value)}" for entry, value in values.items() if value is not _MISSING)
    if lacking and required:
        reason = f"{why}; the initial_state of entry {', '.join(lacking)} has no value for it"
        return MemberVerdict("state", pointer(at), "may_not_fit", reason)
    reason = f"{why}: takes the initial_state value of the save's entry ({known or 'none: stays absent'})"
    return MemberVerdict("state", pointer(at), "by_plan", reason)


def _json(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return f'"{value}"'
    if isinstance(value, list):
        return "[" + ", ".join(map(_json, value)) + "]"
    if isinstance(value, Mapping):
        return "{" + ", ".join(f"{k}: {_json(v)}" for k, v in value.items()) + "}"
    return str(value)


def _static_answers(old: Mapping[str, Any], new: Mapping[str, Any]) -> Iterator[MemberVerdict]:
    before = items_by_id(_get(old, "runtime", "observations"))
    after = items_by_id(_get(new, "runtime", "observations"))
    for ident, (_, observation) in before.items():
        if ident not in after:
            yield MemberVerdict("answers", ident, "by_plan", "observation removed: answers are dropped")
            continue
        now = after[ident][1]
        if _get(observation, "type") != _get(now, "type"):
            yield MemberVerdict("answers", ident, "by_plan", "observation retyped: answers are dropped")
            continue
        gone = [c for c in _get(observation, "choices") or {} if c not in (_get(now, "choices") or {})]
        if gone:
            yield MemberVerdict("answers", ident, "by_plan", f"choices removed: answers {', '.join(gone)} are dropped")
        else:
            yield MemberVerdict(
                "answers", ident, "fits", "unchanged" if json_equal(observation, now) else "answers stay"
            )


def _ids(pack: Mapping[str, Any]) -> dict[str, list[Any]]:
    """The ids a save may name, by the save's key: rules, reveals by kind, achievements, badges, endings."""
    rules = _get(pack, "runtime", "rules")
    found: dict[str, list[Any]] = {
        "completed_rules": [
            rule.get("id", f"rule-{index}")
            for index, rule in enumerate(rules if isinstance(rules, list) else [])
            if isinstance(rule, Mapping)
        ]
    }
    revealed: dict[str, list[Any]] = {kind: [] for kind in REVEAL_KINDS}
    for card in _list(pack, "reader_cards"):
        revealed["reader_cards"].append(card.get("id"))
        for kind, part in (("avatars", card.get("avatar")), ("images", card.get("image"))):
            if isinstance(part, Mapping) and isinstance(part.get("reveal_when"), Mapping):
                revealed[kind].append(card.get("id"))
        revealed["relationships"] += relationship_ids(card)
    revealed["assets"] = [a.get("id") for a in _list(pack, "assets")]
    revealed["visual_anchors"] = [
        a["id"]
        for a in _list(pack, "visual_anchors")
        if isinstance(a.get("id"), str) and isinstance(a.get("reveal_when"), Mapping)
    ]
    if pack.get("protocol_version") != "0.3":
        for casting in _list(pack, "character_castings"):
            revealed["castings"].append(casting.get("id"))
            revealed["deeds"] += [f"{casting.get('id')}/{d.get('id')}" for d in _list(casting, "deeds")]
            revealed["knowledge"] += [f"{casting.get('id')}/{k.get('id')}" for k in _list(casting, "knowledge")]
    found |= {f"revealed/{kind}": ids for kind, ids in revealed.items()}
    progression = pack.get("progression")
    found["unlocked_achievements"] = [a.get("id") for a in _list(progression, "achievements")]
    found["badges"] = [b.get("id") for b in _list(progression, "badges")]
    found["ending"] = [
        e["id"]
        for e in _list(progression, "endings")
        if isinstance(e.get("id"), str) and isinstance(e.get("when"), Mapping)
    ]
    return found


def _list(node: Any, key: str) -> list[Mapping[str, Any]]:
    items = node.get(key) if isinstance(node, Mapping) else None
    return [i for i in items if isinstance(i, Mapping)] if isinstance(items, list) else []


# -- the plan --------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class MigrationPlan:
    """How saves of one revision move to another; :meth:`check` and :meth:`apply` run it on a save.

    Built by :func:`migration_plan`. Without the old pack, the save's own record of the state
    schema it was saved under (``state_members``) says which members are new, so the plan is the
    one the old pack gives; a save without that record (saved before it existed) counts a member
    as new only when the new revision requires it and the save lacks it.
    """

    pack_id: str
    old_revision: int | None
    new_revision: int
    old_schema: Mapping[str, Any] | None
    new_schema: Mapping[str, Any]
    initials: Mapping[str, Any]
    observations: Mapping[str, Mapping[str, Any]]
    ids: Mapping[str, frozenset[str]] = field(repr=False)
    scoped: Mapping[tuple[str, str], frozenset[str]] = field(default_factory=dict, repr=False)
    """(reveal kind, id) -> the runtime entries an item scoped by ``entry_ids`` belongs to in the new revision."""

    def check(self, saved: Mapping[str, Any]) -> SaveVerdict:
        """Whether ``saved`` loads as it is, by the plan (which steps), or not (which values)."""
        _, steps, misfits = self._run(saved)
        level: SaveLevel = "cannot" if misfits else "by_plan" if steps else "as_is"
        return SaveVerdict(level, steps, misfits)

    def apply(self, saved: Mapping[str, Any]) -> tuple[dict[str, Any], MigrationReport]:
        """The save moved to the new revision, and what was done; raise :class:`MigrationError` if it cannot."""
        moved, steps, misfits = self._run(saved)
        if misfits:
            count = len(misfits)
            raise MigrationError(
                f"the save (revision {saved.get('revision')}) cannot move to revision {self.new_revision}: "
                f"{count} value{'s' if count != 1 else ''} no longer fit{'s' if count == 1 else ''}",
                misfits,
            )
        report = MigrationReport(
            self.pack_id, int(saved["revision"]), self.new_revision, "by_plan" if steps else "as_is", steps
        )
        return moved, report

    def _run(self, saved: Mapping[str, Any]) -> tuple[dict[str, Any], tuple[Step, ...], tuple[Misfit, ...]]:
        _check_shape(saved)
        if saved["pack_id"] != self.pack_id:  # a save of the old pack, which the new one renamed: it cannot move
            message = f"saved from pack {saved['pack_id']!r}; the new revision is pack {self.pack_id!r}"
            return dict(saved), (), (Misfit("/pack_id", message),)
        if self.old_revision is not None and saved["revision"] != self.old_revision:
            raise SessionLoadError(
                f"the session was saved at revision {saved['revision']}, not the old revision {self.old_revision}"
            )
        steps: list[Step] = []
        misfits: list[Misfit] = []
        entry = saved["entry"]
        initial = self.initials.get(entry, _MISSING)
        if initial is _MISSING:
            misfits.append(Misfit("/entry", f"the entry {entry!r} is not in revision {self.new_revision}"))
        walk = _Walk(steps, misfits, initial, self.new_revision)
        old_schema = self.old_schema if self.old_schema is not None else _skeleton(saved.get(STATE_MEMBERS))
        state = walk.member(saved["state"], self.new_schema, old_schema, ())
        answers: dict[str, Any] = {}
        for ident, answer in saved["answers"].items():
            reason = _answer_problem(self.observations.get(ident), answer)
            if reason is None:
                answers[ident] = answer
            else:
                steps.append(Step("drop", pointer(("answers", ident)), reason))
        moved = dict(saved)
        moved |= {"revision": self.new_revision, "state": state, "answers": answers}
        moved[STATE_MEMBERS] = state_members(self.new_schema)
        for key in ("completed_rules", "unlocked_achievements", "badges"):
            moved[key] = self._keep(saved[key], key, (key,), steps)
        moved["revealed"] = {
            kind: self._keep_revealed(kind, ids, entry, steps) if kind in REVEAL_KINDS else ids
            for kind, ids in saved["revealed"].items()
        }
        ending = saved.get("ending")
        if ending is not None and ending not in self.ids["ending"]:
            misfits.append(
                Misfit(
                    "/ending", f"the session reached the ending {ending!r}, which revision {self.new_revision} removes"
                )
            )
        return copy.deepcopy(moved), tuple(steps), tuple(misfits)  # shares nothing with the caller's save

    def _keep_revealed(self, kind: str, ids: Sequence[Any], entry: str, steps: list[Step]) -> list[Any]:
        """The saved reveals of ``kind`` the new revision shows in a session of ``entry``; drop steps for the rest."""
        known, kept = self.ids[f"revealed/{kind}"], []
        for index, ident in enumerate(ids):
            where = pointer(("revealed", kind, index))
            scope = self.scoped.get((kind, ident))
            if ident not in known:
                steps.append(Step("drop", where, self._gone(kind, ident)))
            elif scope is not None and entry in self.initials and entry not in scope:  # (a gone entry: a misfit)
                why = f"{ident!r} belongs to other entries than {entry!r} in revision {self.new_revision} (entry_ids)"
                steps.append(Step("drop", where, why))
            else:
                kept.append(ident)
        return kept

    def _gone(self, kind: str, ident: Any) -> str:
        """Why a saved reveal is not in the new revision: the item, or only a card's part, is gone."""
        if kind in ("avatars", "images") and ident in self.ids["revealed/reader_cards"]:
            return f"reader card {ident!r} has no {kind[:-1]} with a reveal_when in revision {self.new_revision}"
        return f"{ident!r} is not in revision {self.new_revision}"

    def _keep(self, ids: Sequence[Any], kind: str, at: tuple[str, ...], steps: list[Step]) -> list[Any]:
        known = self.ids[kind]
        kept = []
        for index, ident in enumerate(ids):
            if ident in known:
                kept.append(ident)
            else:
                steps.append(Step("drop", pointer((*at, index)), f"{ident!r} is not in revision {self.new_revision}"))
        return kept


def _skeleton(members: Any) -> Mapping[str, Any] | None:
    """The state schema a save's ``state_members`` outline, as far as the plan reads it (None: not recorded)."""
    if not isinstance(members, Mapping):
        return None
    properties = {name: _skeleton(node) or {} for name, node in members.items()}
    return {"type": "object", "properties": properties}


def _members_ok(members: Any) -> bool:
    return isinstance(members, Mapping) and all(isinstance(node, str) or _members_ok(node) for node in members.values())


def _check_shape(saved: Any) -> None:
    check_shape(saved)
    if STATE_MEMBERS in saved and not _members_ok(saved[STATE_MEMBERS]):
        raise SessionLoadError(
            f"the saved session is incomplete or malformed: {STATE_MEMBERS!r} must map member names "
            "to their type or, for an object, to its own members"
        )


def _answer_problem(observation: Mapping[str, Any] | None, answer: Any) -> str | None:
    if observation is None:
        return "the observation is not in the new revision"
    if observation.get("type") == "boolean" and not isinstance(answer, bool):
        return f"{answer!r} is no longer an answer: the observation is a yes/no question"
    if observation.get("type") == "choice" and (
        not isinstance(answer, str) or answer not in observation.get("choices", {})
    ):
        return f"{answer!r} is no longer one of the observation's choices"
    return None


@dataclass(slots=True)
class _Walk:
    steps: list[Step]
    misfits: list[Misfit]
    initial: Any
    revision: int

    def member(self, value: Any, new: Mapping[str, Any], old: Any, at: tuple[str, ...]) -> Any:
        if new.get("type") != "object" or not isinstance(value, Mapping):
            self.misfits += (
                Misfit(f"/state{p.pointer}" if at else "/state", p.message) for p in check_state(new, value, at)
            )
            return value
        properties: Mapping[str, Any] = new.get("properties", {})
        required = set(new.get("required", []))
        old_properties = old.get("properties", {}) if kind_of(old) == "object" else None
        result: dict[str, Any] = {}
        for name, child in value.items():
            if name not in properties:
                self.steps.append(Step("drop", pointer(("state", *at, name)), f"{name!r} is not in the state schema"))
            elif isinstance(properties[name], Mapping):
                below = old_properties.get(name) if old_properties is not None else None
                result[name] = self.member(child, properties[name], below, (*at, name))
        for name in properties:
            if name in value:
                continue
            new_member = old_properties is not None and name not in old_properties
            if not (new_member or name in required):
                continue
            found = _at(self.initial, (*at, name))
            where = pointer(("state", *at, name))
            if found is not _MISSING:
                why = "a new member" if new_member else "a member now required"
                self.steps.append(Step("add", where, f"{why}: the entry's initial_state value", copy.deepcopy(found)))
                result[name] = copy.deepcopy(found)
            elif name in required and self.initial is not _MISSING:
                self.misfits.append(
                    Misfit(
                        where, f"missing, and the entry's initial_state in revision {self.revision} has no value for it"
                    )
                )
        undeclared = sorted(required - set(properties))
        self.misfits += (Misfit(pointer(("state", *at, name)), _UNDECLARED) for name in undeclared)
        return result


def migration_plan(old: Mapping[str, Any] | None, new: Mapping[str, Any]) -> MigrationPlan:
    """The plan that moves saves of ``old`` (``None``: unknown, judged from the save) to ``new``."""
    require_packs(new=new, **({} if old is None else {"old": old}))
    old, new = (None if old is None else as_declared(old)), as_declared(new)
    ids = _ids(new)
    revision = _get(old, "manifest", "revision") if old is not None else None
    return MigrationPlan(
        pack_id=str(_get(new, "manifest", "pack_id")),
        old_revision=whole_number(revision),
        new_revision=whole_number(_get(new, "manifest", "revision")) or 0,
        old_schema=_schema(old) if old is not None else None,
        new_schema=_schema(new),
        initials=_entries(new),
        observations={k: v for k, (_, v) in items_by_id(_get(new, "runtime", "observations")).items()},
        ids={kind: frozenset(i for i in found if isinstance(i, str)) for kind, found in ids.items()},
        scoped=_scoped(new),
    )


def _scoped(pack: Mapping[str, Any]) -> dict[tuple[str, str], frozenset[str]]:
    """(reveal kind, id) -> the runtime entries of a valid pack that an item scoped by ``entry_ids`` belongs to."""
    try:
        program = compile_program(pack)
    except (NotPlayableError, KeyError, TypeError, ValueError):
        return {}  # a pack that cannot be played has no sessions to scope
    entries = program.entry_ids()
    return {
        (str(kind), ident): frozenset(e for e in entries if program.in_scope(scope, e))
        for (kind, ident), scope in program.scoped.items()
    }
