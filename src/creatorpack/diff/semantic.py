"""A semantic diff between two revisions of a pack: what changed, matched by id, not by position.

State schema members are matched by their pointer (``/harbour/storm_level``) and reported as
added, removed, retyped or re-bounded; observations, rules, achievements, endings, badges, reader
cards, assets and the other id-keyed arrays as added, removed or changed; publication and
manifest fields by name. Every change carries the JSON Pointer of both sides (``None`` on the
side that lacks it).
"""

from __future__ import annotations

import bisect
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any, Final, Literal

from creatorpack._json import whole_number
from creatorpack.contract.schema import as_declared
from creatorpack.diff._json import items_by_id, kind_of, pointer, require_packs
from creatorpack.diff.compat import Compatibility, compatibility
from creatorpack.play.conditions import json_equal

__all__ = ["ARRAYS", "Change", "ChangeKind", "PackDiff", "diff"]

ChangeKind = Literal["added", "removed", "changed", "retyped", "rebounded", "reordered"]

ARRAYS: tuple[tuple[str, tuple[str, ...], tuple[str, ...]], ...] = (
    ("entries", ("runtime", "entries"), ("id", "entry_id")),
    ("observations", ("runtime", "observations"), ("id",)),
    ("rules", ("runtime", "rules"), ("id",)),
    ("content", ("content",), ("id",)),
    ("reader_cards", ("reader_cards",), ("id",)),
    ("illustrations", ("illustrations",), ("id",)),
    ("assets", ("assets",), ("id",)),
    ("character_castings", ("character_castings",), ("id",)),
    ("achievements", ("progression", "achievements"), ("id",)),
    ("endings", ("progression", "endings"), ("id",)),
    ("badges", ("progression", "badges"), ("id",)),
    ("illustration_rules", ("presentation", "illustration_rules"), ("id",)),
    ("pack_entries", ("entries",), ("id",)),
    ("visual_anchors", ("visual_anchors",), ("id",)),
)
"""The id-keyed arrays the diff compares: section name, path in the pack, id fields."""

_FIELDS = (("manifest", ("manifest",)), ("publication", ("publication",)))
_COVERED = {
    (): {"manifest", "runtime", "publication", "content", "reader_cards", "illustrations", "assets"}
    | {"character_castings", "progression", "presentation", "entries", "visual_anchors"},
    ("runtime",): {"state", "entries", "observations", "rules"},
    ("progression",): {"achievements", "endings", "badges"},
    ("presentation",): {"illustration_rules"},
}
_STATE = ("runtime", "state", "schema")


@dataclass(frozen=True, slots=True)
class Change:
    """One difference: its section, what happened, the item's key and its pointer on each side.

    ``key`` is a state pointer (``/trust``) in the ``state`` section, a field name in
    ``manifest`` and ``publication``, a document pointer in ``other``, and an id elsewhere.
    """

    section: str
    kind: ChangeKind
    key: str
    old: str | None
    new: str | None
    detail: str

    def to_json(self) -> dict[str, Any]:
        """The JSON form."""
        return {
            "section": self.section,
            "kind": self.kind,
            "key": self.key,
            "old": self.old,
            "new": self.new,
            "detail": self.detail,
        }


@dataclass(frozen=True, slots=True)
class PackDiff:
    """The semantic diff of two packs and the static save compatibility verdict."""

    pack_id: str | None
    old_revision: int | None
    new_revision: int | None
    changes: tuple[Change, ...]
    compatibility: Compatibility

    @property
    def empty(self) -> bool:
        """Whether the two packs have no semantic difference."""
        return not self.changes

    def section(self, name: str) -> tuple[Change, ...]:
        """The changes of one section (``state``, ``observations``, ``publication``, ...)."""
        return tuple(c for c in self.changes if c.section == name)

    def to_json(self) -> dict[str, Any]:
        """The JSON form printed by ``creatorpack diff --format json``."""
        return {
            "pack_id": self.pack_id,
            "old_revision": self.old_revision,
            "new_revision": self.new_revision,
            "changes": [c.to_json() for c in self.changes],
            "compatibility": self.compatibility.to_json(),
        }


def diff(old: Mapping[str, Any], new: Mapping[str, Any]) -> PackDiff:
    """Compare two valid 0.3 to 0.5 packs (parsed JSON objects)."""
    require_packs(old=old, new=new)
    old, new = as_declared(old), as_declared(new)  # what each version reads: castings a 0.3 pack held come in
    changes = [*_state(_get(old, _STATE), _get(new, _STATE), ())]
    for section, path, keys in ARRAYS:
        changes += _items(section, path, keys, _get(old, path), _get(new, path))
    for section, path in _FIELDS:
        changes += _fields(section, path, _get(old, path), _get(new, path))
    for path, covered in _COVERED.items():
        changes += _other(path, covered, _get(old, path), _get(new, path))
    manifest = new.get("manifest")
    old_manifest = old.get("manifest")
    return PackDiff(
        pack_id=_str(manifest, "pack_id"),
        old_revision=_int(old_manifest, "revision"),
        new_revision=_int(manifest, "revision"),
        changes=tuple(changes),
        compatibility=compatibility(old, new),
    )


def _get(document: Any, path: tuple[str, ...]) -> Any:
    node = document
    for token in path:
        if not isinstance(node, Mapping):
            return None
        node = node.get(token)
    return node


def _str(node: Any, key: str) -> str | None:
    value = node.get(key) if isinstance(node, Mapping) else None
    return value if isinstance(value, str) else None


def _int(node: Any, key: str) -> int | None:
    return whole_number(node.get(key)) if isinstance(node, Mapping) else None


def _describe(node: Any) -> str:
    """A short description of a state schema node: ``integer 0..10``, ``set of {a, b}``, ..."""
    kind = kind_of(node)
    if kind == "integer":
        return f"integer {_number(node.get('minimum'))}..{_number(node.get('maximum'))}"
    if kind == "set":
        return "set of {" + ", ".join(map(str, node.get("items", {}).get("enum", []))) + "}"
    if kind == "enum":
        return "one of {" + ", ".join(map(str, node["enum"])) + "}"
    return kind


def _number(value: Any) -> Any:
    """A bound as the runtime reads it: ``10.0`` is ``10`` (a whole float is the same bound)."""
    return int(value) if isinstance(value, float) and value.is_integer() else value


def _same_values(old: Mapping[str, Any], new: Mapping[str, Any]) -> bool:
    """Whether two sets' or enums' values are the same, in any order (an enum's order plays no part)."""
    kind = kind_of(old)
    if kind not in ("set", "enum"):
        return False
    before = old.get("items", {}).get("enum", []) if kind == "set" else old.get("enum", [])
    after = new.get("items", {}).get("enum", []) if kind == "set" else new.get("enum", [])
    same = len(before) == len(after)
    return same and all(any(json_equal(a, b) for b in after) for a in before)


def _state(old: Any, new: Any, at: tuple[str, ...]) -> Iterator[Change]:
    key = pointer(at) or "/"
    old_at = pointer((*_STATE, *_schema_path(at)))
    new_at = old_at
    kinds = kind_of(old), kind_of(new)
    if kinds[0] != kinds[1]:
        yield Change("state", "retyped", key, old_at, new_at, f"{_describe(old)} -> {_describe(new)}")
        return
    if kinds[0] == "object":
        old_props: Mapping[str, Any] = old.get("properties", {})
        new_props: Mapping[str, Any] = new.get("properties", {})
        old_required, new_required = set(old.get("required", [])), set(new.get("required", []))
        for name, node in old_props.items():
            if name not in new_props:
                child = pointer((*at, name))
                where = pointer((*_STATE, *_schema_path((*at, name))))
                yield Change("state", "removed", child, where, None, _describe(node))
        for name, node in new_props.items():
            child = pointer((*at, name))
            where = pointer((*_STATE, *_schema_path((*at, name))))
            required = "required" if name in new_required else "optional"
            if name not in old_props:
                yield Change("state", "added", child, None, where, f"{_describe(node)} ({required})")
                continue
            yield from _state(old_props[name], node, (*at, name))
            if (name in old_required) != (name in new_required):
                change = "now required" if name in new_required else "no longer required"
                yield Change("state", "changed", child, where, where, change)
        listed = pointer((*_STATE, *_schema_path(at), "required"))
        for name in sorted((new_required - set(new_props)) - (old_required - set(old_props))):
            detail = "now required, but the schema does not declare it: no state can have it"
            yield Change("state", "changed", pointer((*at, name)), None, listed, detail)
    elif kinds[0] in ("integer", "set", "enum"):
        if _same_values(old, new) and kinds[0] == "set" and _describe(old) != _describe(new):
            detail = f"a set's members are kept in its values' order, now {_describe(new)}"
            yield Change("state", "changed", key, old_at, new_at, detail)
        elif _describe(old) != _describe(new) and not _same_values(old, new):
            yield Change("state", "rebounded", key, old_at, new_at, f"{_describe(old)} -> {_describe(new)}")
    elif not json_equal(old, new):
        yield Change("state", "changed", key, old_at, new_at, "schema changed")


def _schema_path(at: tuple[str, ...]) -> tuple[str, ...]:
    return tuple(part for name in at for part in ("properties", name))


def _items(section: str, path: tuple[str, ...], keys: tuple[str, ...], old: Any, new: Any) -> Iterator[Change]:
    before, after = items_by_id(old, keys), items_by_id(new, keys)
    for key, (index, _) in before.items():
        if key not in after:
            yield Change(section, "removed", key, pointer((*path, index)), None, "")
    for key, (index, item) in after.items():
        where = pointer((*path, index))
        if key not in before:
            yield Change(section, "added", key, None, where, "")
            continue
        old_index, old_item = before[key]
        if not json_equal(old_item, item):
            yield Change(section, "changed", key, pointer((*path, old_index)), where, _fields_detail(old_item, item))
    yield from _order(section, path, list(before), list(after))


_ORDER_MATTERS: Final = {
    "rules": "effect rules apply in document order, and instructions come in it",
    "endings": "document order breaks a tie of priorities",
    "content": "the narrator gets content in document order",
}
"""Sections whose order is part of how the pack plays, and why (entries: only the first one counts)."""


def _order(section: str, path: tuple[str, ...], before: list[str], after: list[str]) -> Iterator[Change]:
    """A ``reordered`` change when the items both sides have come in another order where order plays."""
    where = pointer(path)
    if section == "entries":
        if before and after and before[0] != after[0] and before[0] in after and after[0] in before:
            detail = f"the default (first) entry is now {after[0]!r}, was {before[0]!r}"
            yield Change(section, "reordered", after[0], where, where, detail)
        return
    why = _ORDER_MATTERS.get(section)
    common = set(before) & set(after)
    old_order = [key for key in before if key in common]
    new_order = [key for key in after if key in common]
    if why is None or old_order == new_order:
        return
    kept = _kept_in_order([old_order.index(key) for key in new_order])
    moved = next(key for at, key in enumerate(new_order) if at not in kept)
    before_at, after_at = old_order.index(moved) + 1, new_order.index(moved) + 1
    detail = f"{moved!r} moved from place {before_at} to {after_at} of the items both revisions have ({why})"
    yield Change(section, "reordered", moved, where, where, detail)


def _kept_in_order(places: list[int]) -> set[int]:
    """Positions of a longest run of ``places`` that is still in increasing order: the items that did not move.

    The others are the fewest items whose moves explain the new order (one item moved to the end is
    that item, not every item it passed). Patience sorting, O(n log n), so 10,000 rules stay fast.
    """
    tails: list[int] = []  # positions of the smallest tail of an increasing run of each length
    values: list[int] = []  # the places at those positions, for the binary search
    back: list[int] = [-1] * len(places)
    for at, place in enumerate(places):
        length = bisect.bisect_left(values, place)
        if length:
            back[at] = tails[length - 1]
        if length == len(tails):
            tails.append(at)
            values.append(place)
        else:
            tails[length], values[length] = at, place
    kept: set[int] = set()
    at = tails[-1] if tails else -1
    while at >= 0:
        kept.add(at)
        at = back[at]
    return kept


def _fields_detail(old: Any, new: Any) -> str:
    if not (isinstance(old, Mapping) and isinstance(new, Mapping)):
        return ""
    names = [*new, *(k for k in old if k not in new)]
    changed = [n for n in names if n not in old or n not in new or not json_equal(old[n], new[n])]
    return "fields: " + ", ".join(_field_change(n, old, new) for n in changed)


def _field_change(name: str, old: Mapping[str, Any], new: Mapping[str, Any]) -> str:
    """``title 'Old' -> 'New'`` for a changed field, ``hint added`` or ``hint removed``: what a reviewer checks."""
    if name not in old:
        return f"{name} added ({_short(new[name])})"
    if name not in new:
        return f"{name} removed (was {_short(old[name])})"
    return f"{name} {_short(old[name])} -> {_short(new[name])}"


def _fields(section: str, path: tuple[str, ...], old: Any, new: Any) -> Iterator[Change]:
    where = pointer(path)
    if not isinstance(old, Mapping) or not isinstance(new, Mapping):
        if isinstance(old, Mapping):
            yield Change(section, "removed", section, where, None, "")
        elif isinstance(new, Mapping):
            yield Change(section, "added", section, None, where, "")
        return
    for name in old:
        if name not in new:
            yield Change(section, "removed", name, pointer((*path, name)), None, "")
    for name, value in new.items():
        field = pointer((*path, name))
        if name not in old:
            yield Change(section, "added", name, None, field, "")
        elif not json_equal(old[name], value):
            yield Change(section, "changed", name, field, field, f"{_short(old[name])} -> {_short(value)}")


def _short(value: Any) -> str:
    text = (
        repr(value) if not isinstance(value, (Mapping, list)) else ("object" if isinstance(value, Mapping) else "array")
    )
    return text if len(text) <= 60 else text[:57] + "..."


def _other(path: tuple[str, ...], covered: set[str], old: Any, new: Any) -> Iterator[Change]:
    old = old if isinstance(old, Mapping) else {}
    new = new if isinstance(new, Mapping) else {}
    for name in [*new, *(k for k in old if k not in new)]:
        if name in covered:
            continue
        where = pointer((*path, name))
        if name not in old:
            yield Change("other", "added", where, None, where, "")
        elif name not in new:
            yield Change("other", "removed", where, where, None, "")
        elif not json_equal(old[name], new[name]):
            yield Change("other", "changed", where, where, where, f"{_short(old[name])} -> {_short(new[name])}")
