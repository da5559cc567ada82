"""JSON helpers shared by the diff modules: pointers, kinds of state schema nodes, id-keyed arrays."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from creatorpack._json import a_python_type, pointer
from creatorpack.errors import SourceTypeError

__all__ = ["items_by_id", "kind_of", "pointer", "require_packs"]


def require_packs(**packs: object) -> None:
    """Raise :class:`SourceTypeError` for an argument that is not a parsed pack (a mapping), by name.

    The diff works on parsed, valid packs; a path or JSON text is read with :func:`creatorpack.validate`.
    """
    for name, pack in packs.items():
        if not isinstance(pack, Mapping):
            raise SourceTypeError(
                f"{name} must be a parsed pack (a mapping), not {a_python_type(pack)}; "
                "read one with creatorpack.validate(Path(...)).document"
            )


def kind_of(node: Any) -> str:
    """The kind of a state schema node: integer, boolean, set, object, enum or other."""
    if not isinstance(node, Mapping):
        return "other"
    kind = node.get("type")
    if kind in ("integer", "boolean", "object"):
        return str(kind)
    if kind == "array":
        return "set"
    if isinstance(node.get("enum"), list):
        return "enum"
    return "other"


def items_by_id(items: Any, keys: Sequence[str] = ("id",)) -> dict[str, tuple[int, Any]]:
    """Array items keyed by their id (the first of ``keys`` that is a string), with their index.

    An item without an id is keyed ``#<index>``; a repeated id gets ``#2``, ``#3``, ... appended.
    """
    found: dict[str, tuple[int, Any]] = {}
    for index, item in enumerate(items if isinstance(items, list) else []):
        key = None
        if isinstance(item, Mapping):
            key = next((item[k] for k in keys if isinstance(item.get(k), str)), None)
        if key is None:
            key = f"#{index}"
        name, count = key, 1
        while name in found:
            count += 1
            name = f"{key}#{count}"
        found[name] = (index, item)
    return found
