"""An index of one valid pack: its collections by id, its references and its conditions.

What a version has is a table (:data:`LAYOUTS`), not a branch: the collections with ids and
where they sit, whether the pack has a runtime, and which references the contract shows.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Final

from creatorpack._json import JsonPath, pointer
from creatorpack.contract.conditions import Condition, parse
from creatorpack.contract.findings import RawFinding
from creatorpack.contract.schema import as_declared
from creatorpack.errors import ConditionError
from creatorpack.lint._suggest import Suggester
from creatorpack.lint.rules import Raw

if TYPE_CHECKING:
    from creatorpack.play.engine import Engine

__all__ = ["CONDITION_KEYS", "LAYOUTS", "Layout", "PackIndex", "get"]


@dataclass(frozen=True, slots=True)
class Layout:
    """What one contract version has: id collections, a runtime, and the references lint can check.

    ``collections`` are (name, where, id keys); ``reference_roots`` limits the reference check to
    members under these root members (``None``: everywhere); ``unchecked_keys`` are reference keys
    whose targets the contract does not show; ``actor_code`` is the code for an unknown actor.
    """

    collections: tuple[tuple[str, JsonPath, tuple[str, ...]], ...]
    runtime: bool
    actors_from_cards: bool
    reference_roots: frozenset[str] | None = None
    unchecked_keys: frozenset[str] = frozenset()
    actor_code: str = "unknown-actor"


_ID: Final = ("id",)
_LAYOUT_03: Final = Layout(
    collections=(
        ("assets", ("assets",), _ID),
        ("illustrations", ("illustrations",), _ID),
        ("reader_cards", ("reader_cards",), _ID),
        ("content", ("content",), _ID),
        ("castings", ("character_castings",), _ID),
        ("visual_anchors", ("visual_anchors",), _ID),
        ("achievements", ("progression", "achievements"), _ID),
        ("endings", ("progression", "endings"), _ID),
        ("badges", ("progression", "badges"), _ID),
        ("illustration_rules", ("presentation", "illustration_rules"), _ID),
        ("rules", ("runtime", "rules"), _ID),
        ("observations", ("runtime", "observations"), _ID),
        ("runtime_entries", ("runtime", "entries"), ("id", "entry_id")),
        ("pack_entries", ("entries",), _ID),
    ),
    runtime=True,
    actors_from_cards=True,
)

LAYOUTS: Final[Mapping[str, Layout]] = {
    "0.2": Layout(
        collections=(
            ("assets", ("assets",), _ID),
            ("actors", ("actors",), _ID),
            ("entries", ("entries",), _ID),
            ("visual_anchors", ("visual_anchors",), _ID),
            ("arcs", ("arcs",), _ID),
        ),
        runtime=False,
        actors_from_cards=False,
        reference_roots=frozenset(["default_entry_id", "entries", "assets", "actors"]),
        unchecked_keys=frozenset(["entry_ids"]),  # 0.2 scopes are not shown
        actor_code="unknown-reference",
    ),
    "0.3": _LAYOUT_03,
    "0.4": _LAYOUT_03,
    "0.5": _LAYOUT_03,
}
"""Each contract version's layout."""

CONDITION_KEYS: Final = frozenset(["when", "reveal_when", "completion"])
"""The members that hold a top-level condition."""


def get(node: Any, path: Sequence[str | int]) -> Any:
    """The value at ``path`` (which must exist)."""
    for token in path:
        node = node[token]
    return node


def _at(node: Any, path: Sequence[str | int]) -> Any:
    for token in path:
        if not isinstance(node, Mapping):
            return None
        node = node.get(token)
    return node


class PackIndex:
    """Indexes of one valid pack: its collections, conditions, effects and references."""

    def __init__(self, pack: Mapping[str, Any]) -> None:
        self.raw = pack  # as written: what ``ignored-member`` reads
        pack = self.pack = as_declared(pack)  # as its version reads it, which every other check reads
        self.version: str = pack["protocol_version"]
        self.layout = LAYOUTS[self.version]
        runtime = pack.get("runtime") if self.layout.runtime else None
        self.runtime: Mapping[str, Any] = runtime if isinstance(runtime, Mapping) else {}
        self.schema: Mapping[str, Any] = self.runtime["state"]["schema"] if self.runtime else {}
        self.observations: dict[str, Mapping[str, Any]] = {
            o["id"]: o for o in self.runtime.get("observations", []) if isinstance(o, Mapping)
        }
        progression = pack.get("progression")
        self.progression: Mapping[str, Any] = progression if isinstance(progression, Mapping) else {}
        self.collections: dict[str, dict[str, JsonPath]] = {}
        self.duplicates: list[Raw] = []
        self.suggester = Suggester()
        for name, where, keys in self.layout.collections:
            self._collect(name, _at(pack, where), where, keys)
        if self.layout.runtime:
            self.collections["entries"] = {
                **self.collections.get("runtime_entries", {}),
                **self.collections.get("pack_entries", {}),
            }
        if self.layout.actors_from_cards:
            self.collections["actors"] = {
                ident: where
                for ident, where in self.collections.get("reader_cards", {}).items()
                if get(pack, where).get("kind", "actor") == "actor"
            }

    def _collect(self, name: str, items: Any, at: JsonPath, keys: Sequence[str]) -> None:
        found: dict[str, JsonPath] = {}
        for index, item in enumerate(items if isinstance(items, list) else []):
            if not isinstance(item, Mapping):
                continue
            ident = next((item[k] for k in keys if isinstance(item.get(k), str)), None)
            if ident is None:
                continue
            where = (*at, index)
            if ident in found:
                self.duplicates.append(
                    RawFinding(
                        (*where, "id"),
                        "duplicate-id",
                        f"id {ident!r} is used twice in {name} (also at {pointer(found[ident])}); rename one",
                    )
                )
            else:
                found[ident] = where
        self.collections[name] = found

    def items(self, *where: str) -> list[tuple[int, Mapping[str, Any]]]:
        """The objects of the array at ``where`` with their positions (none if it is not an array)."""
        found = _at(self.pack, where)
        return [
            (i, item) for i, item in enumerate(found if isinstance(found, list) else []) if isinstance(item, Mapping)
        ]

    def conditions(self) -> list[tuple[JsonPath, Mapping[str, Any]]]:
        """Every top-level condition (a when, reveal_when, completion) with its path."""
        return self._scan[1] if self.layout.runtime else []

    @functools.cached_property
    def engine(self) -> Engine | None:
        """The pack compiled for play, once for every check that plays it (``None``: it cannot be played).

        Compiling the runtime benchmark pack and making its conditions' functions cost seconds;
        the start a cover check needs, the search and the artwork check's replays share them.
        """
        from creatorpack.play.engine import Engine  # noqa: PLC0415 - the runtime, only for the checks that play

        try:
            return Engine(self.pack)
        except Exception:  # noqa: BLE001 - an unplayable pack is reported by the other checks
            return None

    @functools.cached_property
    def trees(self) -> list[tuple[JsonPath, Condition]]:
        """:meth:`conditions` parsed, each node placed in the pack (its ``at``), in the same order.

        A valid pack's conditions all parse (the schema holds every one to the grammar); one that
        would not is left out rather than guessed at.
        """
        parsed: list[tuple[JsonPath, Condition]] = []
        for path, condition in self.conditions():
            try:
                parsed.append((path, parse(condition, path)))
            except ConditionError:
                continue
        return parsed

    @property
    def nodes(self) -> list[tuple[JsonPath, Any]]:
        """Every object member whose name ends in ``_id`` or ``_ids``, with its path."""
        return self._scan[0]

    @functools.cached_property
    def _scan(self) -> tuple[list[tuple[JsonPath, Any]], list[tuple[JsonPath, Any]]]:
        # One iterative walk over containers only: documents are big, and most values are leaves.
        references: list[tuple[JsonPath, Any]] = []
        conditions: list[tuple[JsonPath, Any]] = []
        stack: list[tuple[JsonPath, Any]] = [((), self.pack)]
        while stack:
            where, value = stack.pop()
            if type(value) is dict:
                for key, child in value.items():
                    if key.endswith(("_id", "_ids")):
                        references.append(((*where, key), child))
                    if key in CONDITION_KEYS and type(child) is dict and "op" in child:
                        conditions.append(((*where, key), child))
                    elif type(child) in (dict, list):
                        stack.append(((*where, key), child))
            elif type(value) is list:
                stack.extend(((*where, i), v) for i, v in enumerate(value) if type(v) in (dict, list))
        # No sorting here: the walk is deterministic, and findings are put in document order at the end.
        return references, conditions
