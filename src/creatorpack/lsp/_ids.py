"""The names of one pack's text: where each id and state path is defined and used, and what they name.

Built from a text that parses as a JSON object (the last good version is kept while the creator
types); items are found as lint finds them (:class:`~creatorpack.lint.index.PackIndex`), and
their places in one pass over the text (:meth:`~creatorpack.lsp._text.Text.strings`). A state
path (``/harbour/storm_level``) is defined by its member of the runtime's state schema and used by
the ``path`` of a comparison or an effect. The ``observed`` ids are read from the conditions as the
lint index parsed them (its ``trees``): one that does not parse yet, being typed, names nothing
until it does.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any, Final

import orjson

from creatorpack._json import JsonPath
from creatorpack.contract.conditions import Observed, leaves
from creatorpack.lint.index import PackIndex, get
from creatorpack.lsp._text import Text

__all__ = ["REFERENCE_KEY", "PackIds"]

REFERENCE_KEY: Final = re.compile(
    r"^(?:.*_)?(?P<kind>asset|illustration|badge|entry|achievement|ending|casting|observation|anchor|actor)_ids?$"
)
"""A member whose value names items: ``asset_id``, ``artwork_asset_id``, ``entry_ids``, ..."""
COLLECTION_OF: Final[Mapping[str, str]] = {
    "asset": "assets",
    "illustration": "illustrations",
    "badge": "badges",
    "entry": "entries",
    "achievement": "achievements",
    "ending": "endings",
    "casting": "castings",
    "observation": "observations",
    "anchor": "visual_anchors",
    "actor": "actors",
}
"""The collection a reference kind names."""


@dataclass(slots=True)
class PackIds:
    """Definitions and references by id, as code point offsets into the text they were built from."""

    definitions: dict[str, list[int]] = field(default_factory=dict)
    references: dict[str, list[int]] = field(default_factory=dict)
    collections: dict[str, list[str]] = field(default_factory=dict)
    observations: dict[str, Mapping[str, Any]] = field(default_factory=dict)
    items: dict[str, Mapping[str, Any]] = field(default_factory=dict)
    """The first item of each id (in collection order), for hover."""
    kinds: dict[str, list[str]] = field(default_factory=dict)
    """The collections each id is defined in."""
    members: dict[str, Mapping[str, Any]] = field(default_factory=dict)
    """Each state path's schema (``/trust`` → ``{"type": "integer", ...}``), nested members included."""
    initial: dict[str, Mapping[str, Any]] = field(default_factory=dict)
    """Each runtime entry's ``initial_state``, by entry id."""
    member_at: dict[str, int] = field(default_factory=dict)
    """Where each state path is defined: its member name in the state schema."""
    path_uses: dict[str, list[int]] = field(default_factory=dict)
    """Where each state path is used: the ``path`` strings of conditions and effects."""
    pack: Mapping[str, Any] = field(default_factory=dict)
    """The document as its version reads it."""

    @classmethod
    def of(cls, text: Text) -> PackIds | None:
        """The ids of ``text``, or ``None`` when it is no JSON object a pack index can read."""
        try:
            pack = orjson.loads(text.source)
            index = PackIndex(pack) if isinstance(pack, dict) else None
        except Exception:  # noqa: BLE001 - text being typed: keep the last good version
            return None
        if index is None:
            return None
        found = cls(observations=dict(index.observations), pack=index.pack)
        found.members = dict(_members(index.schema, ""))
        for entry in index.runtime.get("entries", []) if isinstance(index.runtime.get("entries"), list) else []:
            if isinstance(entry, Mapping) and isinstance(entry.get("initial_state"), Mapping):
                ident = entry.get("id", entry.get("entry_id"))
                found.initial[str(ident)] = entry["initial_state"]
        places: list[tuple[str, str, JsonPath]] = []  # (definition|reference, id, path of the string)
        for name, items in index.collections.items():
            found.collections[name] = list(items)
            for ident, where in items.items():
                item = get(index.pack, where)
                if isinstance(item, Mapping):
                    found.items.setdefault(ident, item)
                found.kinds.setdefault(ident, []).append(name)
                key = "id" if isinstance(item, Mapping) and item.get("id") == ident else None
                if key is None and isinstance(item, Mapping):
                    key = next((k for k, v in item.items() if v == ident), None)
                if key is not None:
                    places.append(("definition", ident, (*where, key)))
        places += [("reference", ident, path) for ident, path in _references(index)]
        places += [("use", state_path, where) for state_path, where in _path_uses(index.pack)]
        values, names = text.strings()  # one pass over the text: a 1 MB pack in well under a second
        tables = {
            "definition": found.definitions,
            "reference": found.references,
            "use": found.path_uses,
        }
        for kind, name, path in sorted(places, key=lambda place: values.get(place[2], -1)):
            offset = values.get(path)
            if offset is not None:
                tables[kind].setdefault(name, []).append(offset)
        schema_at = ("runtime", "state", "schema")
        for state_path in found.members:
            offset = names.get((*schema_at, *_schema_path(state_path)))
            if offset is not None:
                found.member_at[state_path] = offset
        return found

    def defined(self, name: str) -> list[int]:
        """Where an id or a state path is defined."""
        if name.startswith("/"):
            return [self.member_at[name]] if name in self.member_at else []
        return list(self.definitions.get(name, ()))

    def used(self, name: str) -> list[int]:
        """Where an id or a state path is used."""
        return list((self.path_uses if name.startswith("/") else self.references).get(name, ()))


def _members(schema: Any, prefix: str) -> Iterator[tuple[str, Mapping[str, Any]]]:
    """``(state path, its schema)`` of every member of an object schema, nested objects' members too."""
    properties = schema.get("properties") if isinstance(schema, Mapping) else None
    if not isinstance(properties, Mapping):
        return
    for name, member in properties.items():
        if isinstance(member, Mapping):
            path = f"{prefix}/{_escape(name)}"
            yield path, member
            yield from _members(member, path)


def _schema_path(state_path: str) -> JsonPath:
    """Where a state path's member sits in the state schema: ``/a/b`` → properties/a/properties/b."""
    names = [name.replace("~1", "/").replace("~0", "~") for name in state_path.split("/")[1:]]
    return tuple(part for name in names for part in ("properties", name))


def _escape(name: str) -> str:
    return name.replace("~", "~0").replace("/", "~1")


def _path_uses(pack: Mapping[str, Any]) -> Iterator[tuple[str, JsonPath]]:
    """``(state path, where)`` of every ``path`` string of an object with an ``op`` (a comparison or an effect).

    A walk over the JSON's shape, not the condition grammar: it also finds the paths of effects, of
    the conditions of a 0.2 pack (which the grammar does not read) and of a condition being typed.
    """
    stack: list[tuple[JsonPath, Any]] = [((), pack)]
    while stack:
        where, value = stack.pop()
        if type(value) is dict:
            if "op" in value and isinstance(value.get("path"), str):
                yield value["path"], (*where, "path")
            stack.extend(((*where, key), child) for key, child in value.items() if type(child) in (dict, list))
        elif type(value) is list:
            stack.extend(((*where, at), child) for at, child in enumerate(value) if type(child) in (dict, list))


def _references(index: PackIndex) -> Iterator[tuple[str, JsonPath]]:
    """``(id, path)`` of every string that names an item: ``*_id``/``*_ids`` values and ``observed`` ids."""
    for path, node in index.nodes:
        if not path or REFERENCE_KEY.match(str(path[-1])) is None:
            continue
        if isinstance(node, str):
            yield node, path
        elif isinstance(node, list):
            yield from ((value, (*path, at)) for at, value in enumerate(node) if isinstance(value, str))
    for _, tree in index.trees:
        yield from ((leaf.id, (*leaf.at, "id")) for leaf in leaves(tree) if isinstance(leaf, Observed))
