"""The ids of one pack's text: where each item is defined, where it is referenced, and its observations.

Built from a text that parses as a JSON object (the last good version is kept while the creator
types); items are found as lint finds them (:class:`~creatorpack.lint.index.PackIndex`), and
places with :func:`~creatorpack.contract.findings.locate_and_sort`.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any, Final

import orjson

from creatorpack._json import JsonPath
from creatorpack.contract.findings import RawFinding, locate_and_sort
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
        found = cls(observations=dict(index.observations))
        places: list[tuple[str, str, JsonPath]] = []  # (definition|reference, id, path of the string)
        for name, items in index.collections.items():
            found.collections[name] = list(items)
            for ident, where in items.items():
                item = get(index.pack, where)
                key = "id" if isinstance(item, Mapping) and item.get("id") == ident else None
                if key is None and isinstance(item, Mapping):
                    key = next((k for k, v in item.items() if v == ident), None)
                if key is not None:
                    places.append(("definition", ident, (*where, key)))
        places += [("reference", ident, path) for ident, path in _references(index)]
        located = locate_and_sort([RawFinding(path, kind, ident) for kind, ident, path in places], text.source.encode())
        for place in located:
            if place.line is None or place.column is None:
                continue
            table = found.definitions if place.raw.code == "definition" else found.references
            table.setdefault(place.raw.message, []).append(text.at(place.line, place.column))
        return found


def _references(index: PackIndex) -> Iterator[tuple[str, JsonPath]]:
    """``(id, path)`` of every string that names an item: ``*_id``/``*_ids`` values and ``observed`` ids."""
    for path, node in index.nodes:
        if not path or REFERENCE_KEY.match(str(path[-1])) is None:
            continue
        if isinstance(node, str):
            yield node, path
        elif isinstance(node, list):
            yield from ((value, (*path, at)) for at, value in enumerate(node) if isinstance(value, str))
    for path, condition in index.conditions():
        yield from _observed(condition, path)


def _observed(node: Any, path: JsonPath) -> Iterator[tuple[str, JsonPath]]:
    if not isinstance(node, Mapping):
        return
    if node.get("op") == "observed" and isinstance(node.get("id"), str):
        yield node["id"], (*path, "id")
    if isinstance(node.get("condition"), Mapping):
        yield from _observed(node["condition"], (*path, "condition"))
    for at, child in enumerate(node.get("conditions", []) if isinstance(node.get("conditions"), list) else []):
        yield from _observed(child, (*path, "conditions", at))
