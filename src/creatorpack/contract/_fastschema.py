"""A form of a bundled schema that gives the same yes/no verdicts and is quicker to ask.

The shipped ``Condition`` is an if/else chain on ``op`` so that errors land inside the branch
that ``op`` selects (one clear message, not five). A valid pack pays for that chain on each of
its thousands of conditions: up to five ``if`` schemas before the branch that applies. Each
branch already pins ``op`` itself (``type`` object, ``op`` required, ``op`` an ``enum`` or
``const``), so an ``anyOf`` of the branches accepts exactly the same documents, and jsonschema-rs
stops at the first branch that holds (the chain lists the most frequent ops first).

Only the yes/no question uses this form; errors of an invalid pack still come from the shipped
schema, so messages and keyword locations do not change. The rewrite checks the shape it relies
on and leaves the schema as it is when that shape is not there.
"""

from __future__ import annotations

import copy
from typing import Any

__all__ = ["for_is_valid"]

_COMMON = "common.json"


def for_is_valid(bundled: dict[str, Any]) -> dict[str, Any]:
    """A copy of ``bundled`` with its ``Condition`` chain as an ``anyOf`` when that is equivalent, else ``bundled``."""
    defs = bundled.get("$defs", {}).get(_COMMON, {}).get("$defs")
    if not isinstance(defs, dict):
        return bundled
    branches = condition_branches(defs)
    if branches is None:
        return bundled
    fast = copy.deepcopy(bundled)
    fast["$defs"][_COMMON]["$defs"]["Condition"] = {"anyOf": [{"$ref": ref} for ref in branches]}
    return fast


def condition_branches(defs: dict[str, Any]) -> list[str] | None:
    """The ``$ref`` of each branch of the ``Condition`` chain in ``defs``, when an ``anyOf`` of them is equivalent."""
    node = defs.get("Condition")
    if not isinstance(node, dict) or node.get("type") != "object" or node.get("required") != ["op"]:
        return None
    if node.get("if") != {"type": "object"} or set(node) - {"description", "type", "required", "if", "then"}:
        return None
    refs: list[str] = []
    selected: set[str] = set()
    chain = node.get("then")
    while isinstance(chain, dict) and "if" in chain:
        if set(chain) - {"if", "then", "else"}:
            return None
        ops = _ops(chain["if"])
        ref = chain.get("then", {}).get("$ref") if isinstance(chain.get("then"), dict) else None
        if ops is None or not isinstance(ref, str) or not ref.startswith("#/$defs/"):
            return None
        target = defs.get(ref.removeprefix("#/$defs/"))
        if ops & selected or not _pins(target, ops):  # overlapping ops: the chain's order would matter
            return None
        refs.append(ref)
        selected |= ops
        chain = chain.get("else")
    # The last else refuses any other op: the branches must cover exactly the ops it lists.
    if not isinstance(chain, dict) or set(chain) != {"properties"} or set(chain["properties"]) != {"op"}:
        return None
    listed = chain["properties"]["op"].get("enum")
    if not isinstance(listed, list) or set(listed) != selected or not refs:
        return None
    return refs


def _ops(test: Any) -> set[str] | None:
    """The ops an ``if`` selects: ``{"required": ["op"], "properties": {"op": {"enum"|"const": ...}}}``."""
    if not isinstance(test, dict) or set(test) != {"required", "properties"} or test["required"] != ["op"]:
        return None
    if set(test["properties"]) != {"op"}:
        return None
    return _values(test["properties"]["op"])


def _values(node: Any) -> set[str] | None:
    if not isinstance(node, dict) or len(node) != 1:
        return None
    if "const" in node and isinstance(node["const"], str):
        return {node["const"]}
    values = node.get("enum")
    if isinstance(values, list) and values and all(isinstance(v, str) for v in values):
        return set(values)
    return None


def _pins(target: Any, ops: set[str]) -> bool:
    """Whether the branch accepts only objects whose ``op`` is one of ``ops`` (and so no other branch's)."""
    if not isinstance(target, dict) or target.get("type") != "object" or "op" not in target.get("required", ()):
        return False
    return _values(target.get("properties", {}).get("op")) == ops
