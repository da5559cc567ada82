"""Look up the shipped schema documents by keyword location and by place in a pack.

The node an error's keyword location names gives richer messages; the property names an object
at a given place may have, per contract version, tell "`access` exists from 0.5".
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from creatorpack._json import JsonPath, parse_pointer

__all__ = ["SchemaIndex"]

_IN_PLACE = ("allOf", "anyOf", "oneOf")
_BRANCHES = ("then", "else")


class SchemaIndex:
    """The shipped documents by file name (``common.json``, ``pack-0.5.json``, ...)."""

    def __init__(self, documents: Mapping[str, Mapping[str, Any]]) -> None:
        self._documents = documents
        self._properties: dict[tuple[str, JsonPath], frozenset[str]] = {}
        self._values: dict[tuple[str, JsonPath], tuple[Any, ...]] = {}

    def node(self, location: str | None) -> tuple[str, list[str], Any]:
        """The URI, fragment tokens and schema node of an absolute keyword location."""
        if not location or "#" not in location:
            return "", [], None
        uri, _, fragment = location.partition("#")
        tokens = list(parse_pointer(fragment) or ())
        node: Any = self._documents.get(uri.rsplit("/", 1)[-1])
        for token in tokens:
            if isinstance(node, dict):
                node = node.get(token)
            elif isinstance(node, list) and token.isdigit() and int(token) < len(node):
                node = node[int(token)]
            else:
                return uri, tokens, None
        return uri, tokens, node

    def parent(self, location: str | None) -> Any:
        """The schema node that holds the keyword at ``location``."""
        if not location or "#" not in location:
            return None
        return self.node(location.rsplit("/", 1)[0])[2]

    def properties_at(self, version: str, path: JsonPath) -> frozenset[str]:
        """Every property name that version ``version`` lists for an object at ``path``.

        Union branches (``if``/``then``/``else``, ``allOf``, ...) all count: the answer is what
        the object may have in some branch, which is what "exists from 0.5" needs.
        """
        key = (version, tuple(0 if isinstance(token, int) else token for token in path))
        found = self._properties.get(key)
        if found is None:
            found = self._walk(f"pack-{version}.json", path)
            self._properties[key] = found
        return found

    def kinds_at(self, version: str, path: JsonPath) -> tuple[frozenset[str], ...]:
        """The property names of each kind of object (union branch) at ``path`` that lists properties."""
        return tuple(
            frozenset(node["properties"])
            for _, node in self._nodes(f"pack-{version}.json", path)
            if node.get("properties")
        )

    def kinds_with(self, version: str, path: JsonPath, key: str) -> tuple[frozenset[str], ...]:
        """The property names of each kind of object (union branch) at ``path`` that declares ``key``.

        "Did you mean 'guidance'" on an achievement makes it a guided one: what only a plain
        achievement requires (its ``visibility``) is then not missing.
        """
        return tuple(
            frozenset(node["properties"])
            for _, node in self._nodes(f"pack-{version}.json", path)
            if key in node.get("properties", {})
        )

    def values_at(self, version: str, path: JsonPath) -> tuple[Any, ...]:
        """Every value an ``enum`` or ``const`` of version ``version`` allows at ``path`` (in some branch)."""
        key = (version, tuple(0 if isinstance(token, int) else token for token in path))
        found = self._values.get(key)
        if found is None:
            values: list[Any] = []
            for _, node in self._nodes(f"pack-{version}.json", path):
                for value in [*node.get("enum", ()), *([node["const"]] if "const" in node else [])]:
                    if value not in values:
                        values.append(value)
            found = self._values[key] = tuple(values)
        return found

    def _walk(self, name: str, path: JsonPath) -> frozenset[str]:
        return frozenset(name for _, node in self._nodes(name, path) for name in node.get("properties", {}))

    def _nodes(self, name: str, path: JsonPath) -> list[tuple[str, dict[str, Any]]]:
        nodes = self._expand(name, self._documents.get(name))
        for token in path:
            children: list[tuple[str, Any]] = []
            for document, node in nodes:
                child = _child(node, token)
                if child is not None:
                    children.extend(self._expand(document, child))
            nodes = children
        return nodes

    def _expand(self, document: str, node: Any) -> list[tuple[str, dict[str, Any]]]:
        """``node`` and every schema that applies in place with it, ``$ref`` followed."""
        found: list[tuple[str, dict[str, Any]]] = []
        seen: set[int] = set()
        stack = [(document, node)]
        while stack:
            where, current = stack.pop()
            if not isinstance(current, dict) or id(current) in seen:
                continue
            seen.add(id(current))
            found.append((where, current))
            ref = current.get("$ref")
            if isinstance(ref, str):
                stack.append(self._resolve(where, ref))
            stack.extend((where, sub) for key in _IN_PLACE for sub in current.get(key, ()))
            stack.extend((where, current[key]) for key in _BRANCHES if key in current)
        return found

    def _resolve(self, document: str, ref: str) -> tuple[str, Any]:
        uri, _, fragment = ref.partition("#")
        name = uri.rsplit("/", 1)[-1] if uri else document
        node: Any = self._documents.get(name)
        for token in parse_pointer(fragment) or ():
            node = node.get(token) if isinstance(node, dict) else None
        return name, node


def _child(node: dict[str, Any], token: str | int) -> Any:
    if isinstance(token, int):
        items = node.get("items")
        return items if isinstance(items, dict) else None
    child = node.get("properties", {}).get(token)
    if child is None and isinstance(node.get("additionalProperties"), dict):
        child = node["additionalProperties"]
    return child
