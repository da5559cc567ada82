"""What hover shows (Markdown): an observation, an asset, a state member, and the condition under the cursor.

Each function takes what :class:`~creatorpack.lsp._ids.PackIds` knows and returns lines; the
server picks the ones that apply at the cursor and joins them.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

import orjson

from creatorpack.contract.conditions import outline, parse
from creatorpack.errors import ConditionError
from creatorpack.lsp._ids import PackIds

__all__ = ["asset", "condition_at", "member", "observation", "shape"]

_BOUNDS: Final = (
    ("minimum", "at least"),
    ("exclusiveMinimum", "more than"),
    ("maximum", "at most"),
    ("exclusiveMaximum", "less than"),
    ("minLength", "at least this many characters:"),
    ("maxLength", "at most this many characters:"),
    ("minItems", "at least this many items:"),
    ("maxItems", "at most this many items:"),
)


def observation(ident: str, found: Mapping[str, Any]) -> list[str]:
    """An observation's question, type and choices."""
    lines = [f"**observation `{ident}`** ({found.get('type', '?')})", "", str(found.get("question"))]
    choices = found.get("choices")
    if isinstance(choices, Mapping):
        lines += ["", *(f"- `{key}`: {description}" for key, description in choices.items())]
    return lines


def asset(ident: str, found: Mapping[str, Any]) -> list[str]:
    """An asset's kind, media type and description (and whether it is for reference only)."""
    facts = [str(found[key]) for key in ("kind", "mime_type") if isinstance(found.get(key), str)]
    lines = [f"**asset `{ident}`**" + (f" ({', '.join(facts)})" if facts else "")]
    if isinstance(found.get("description"), str):
        lines += ["", found["description"]]
    if found.get("reference_only") is True:
        lines += ["", "_reference only: for the artists, never shown to a reader_"]
    return lines


def member(path: str, ids: PackIds) -> list[str]:
    """A state member's type, bounds or allowed values, default and each entry's initial value."""
    schema = ids.members[path]
    lines = [f"**state `{path}`**: {shape(schema)}"]
    if "default" in schema:
        lines += ["", f"default: {_json(schema['default'])}"]
    initial = [(entry, value) for entry, state in ids.initial.items() if (value := _get(state, path)) is not _MISSING]
    if initial:
        lines += ["", "initial: " + ", ".join(f"{_json(value)} (entry `{entry}`)" for entry, value in initial)]
    return lines


def condition_at(ids: PackIds, path: tuple[str | int, ...]) -> list[str]:
    """The plain-language reading of the innermost condition that holds ``path`` (none: no lines).

    The words are the contract's (:func:`~creatorpack.contract.conditions.outline`), with the
    pack's questions and answers quoted. The document is being edited: what does not parse as a
    condition (an effect, a half-typed ``op``, a group holding one) is passed over, and hover says
    nothing of a condition until it parses (the diagnostics say what is wrong with it).
    """
    node: Any = ids.pack
    nodes: list[Any] = [node]
    for step in path:
        inside = isinstance(node, Mapping) and isinstance(step, str) and step in node
        if not inside and not (isinstance(node, list) and isinstance(step, int) and 0 <= step < len(node)):
            break
        node = node[step]
        nodes.append(node)
    for candidate in reversed(nodes):
        try:
            tree = parse(candidate)
        except ConditionError:
            continue
        lines = (f"{'  ' * depth}- {_escaped(words)}" for depth, words in outline(tree, ids.observations))
        return ["**condition**: holds when", "", *lines]
    return []


_MARKDOWN: Final = str.maketrans({char: "\\" + char for char in "\\`*_[]<>&~#|"})
"""Backslash escapes for what Markdown would read as markup in a condition's words (paths and values are free text)."""


def _escaped(words: str) -> str:
    return words.translate(_MARKDOWN)


def shape(schema: Mapping[str, Any]) -> str:
    kind = schema.get("type")
    parts = [kind if isinstance(kind, str) else " or ".join(map(str, kind)) if isinstance(kind, list) else "any"]
    if isinstance(schema.get("enum"), list):
        parts.append("one of " + ", ".join(_json(value) for value in schema["enum"]))
    if "const" in schema:
        parts.append(f"always {_json(schema['const'])}")
    parts += [f"{words} {_json(schema[key])}" for key, words in _BOUNDS if key in schema]
    items = schema.get("items")
    if isinstance(items, Mapping):
        parts.append(f"items: {shape(items)}")
    if schema.get("uniqueItems") is True:
        parts.append("no item twice")
    return ", ".join(parts[1:] if parts[0] == "any" and len(parts) > 1 else parts)


_MISSING: Final = object()


def _get(state: Any, path: str) -> Any:
    for escaped in path.split("/")[1:]:
        name = escaped.replace("~1", "/").replace("~0", "~")
        if not isinstance(state, Mapping) or name not in state:
            return _MISSING
        state = state[name]
    return state


def _json(value: Any) -> str:
    try:
        return f"`{orjson.dumps(value).decode()}`"
    except TypeError:
        return repr(value)
