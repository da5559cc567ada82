"""References: ids are unique per collection, and every ``*_id`` / ``*_ids`` names an existing item."""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from typing import Any, Final

from creatorpack._json import JsonPath
from creatorpack.contract.findings import RawFinding
from creatorpack.lint._suggest import known_list
from creatorpack.lint.index import PackIndex
from creatorpack.lint.rules import Raw

__all__ = ["check_references"]

_COLLECTIONS: Final[Mapping[str, tuple[str, str]]] = {
    "asset": ("assets", "asset"),
    "illustration": ("illustrations", "illustration"),
    "badge": ("badges", "badge"),
    "entry": ("entries", "entry"),
    "achievement": ("achievements", "achievement"),
    "ending": ("endings", "ending"),
    "casting": ("castings", "casting"),
    "observation": ("observations", "observation"),
    "anchor": ("visual_anchors", "visual anchor"),
    "actor": ("actors", "actor"),
}
"""Each reference kind (``<kind>_id``): the index collection it names, and one item's name in messages."""
_ID_KEY: Final = re.compile(
    r"^(?:.*_)?(asset|illustration|badge|entry|achievement|ending|casting|observation|anchor|actor)_ids?$"
)


def check_references(index: PackIndex) -> Iterator[Raw]:
    """Ids are unique per collection, and every *_id / *_ids names an existing item."""
    yield from index.duplicates
    layout = index.layout
    for path, node in index.nodes:
        key = path[-1]
        match = _ID_KEY.match(str(key))
        if match is None or key in layout.unchecked_keys:
            continue
        if layout.reference_roots is not None and path[0] not in layout.reference_roots:
            continue
        kind = match.group(1)
        known = index.collections.get(_COLLECTIONS[kind][0])
        if known is None or (kind == "anchor" and not known):
            continue  # visual anchors' shape is not shown: only anchors with ids can be checked
        values = node if isinstance(node, list) else [node]
        for position, value in enumerate(values):
            if isinstance(value, str) and value not in known:
                where = (*path, position) if isinstance(node, list) else path
                yield _unknown(index, where, str(key), kind, value, known)


def _unknown(index: PackIndex, where: JsonPath, key: str, kind: str, value: str, known: dict[str, Any]) -> Raw:
    hint = index.suggester.suggest(value, known)
    if kind == "actor" and index.layout.actor_code == "unknown-actor":
        return RawFinding(
            where,
            "unknown-actor",
            f"{key}: no reader card of kind actor has the id {value!r}{hint or '; add one or fix the id'}",
        )
    if kind == "entry" and not known:
        return RawFinding(
            where, "unknown-reference", f"{key}: {value!r} names an entry, but no entry has an id; give entries an 'id'"
        )
    what = _COLLECTIONS[kind][1]
    return RawFinding(
        where, "unknown-reference", f"{key}: no {what} has the id {value!r} (known: {known_list(known)}){hint}"
    )
