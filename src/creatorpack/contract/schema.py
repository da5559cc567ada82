"""The contract as JSON Schema: one draft 2020-12 document per version, shipped as package data.

``common.json`` holds the definitions the versions share; ``pack-<version>.json`` holds each
version's root; ``pack.json`` selects a version by ``protocol_version``. :func:`bundle` inlines
the referenced documents so that a single file works in editors and other validators.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Final, Literal, TypeAlias

import orjson

from creatorpack.errors import UnknownVersionError

__all__ = [
    "BASE_URI",
    "SUPPORTED_VERSIONS",
    "UnknownVersionError",
    "Version",
    "as_declared",
    "as_version",
    "bundle",
    "document",
    "export",
    "root_members",
    "schema_id",
]

Version: TypeAlias = Literal["0.2", "0.3", "0.4", "0.5"]
"""A contract version this release understands."""

SUPPORTED_VERSIONS: Final[tuple[Version, ...]] = ("0.2", "0.3", "0.4", "0.5")
"""Every value of ``protocol_version`` this release understands, oldest first."""


def as_version(value: object) -> Version | None:
    """``value`` as a supported :data:`Version`, or ``None`` if it is not one."""
    for version in SUPPORTED_VERSIONS:
        if value == version and isinstance(value, str):
            return version
    return None


BASE_URI: Final = "https://creatorpack.dev/schema/"

_COMMON: Final = "common.json"


def _file_name(version: str | None) -> str:
    if version is None:
        return "pack.json"
    if version not in SUPPORTED_VERSIONS:
        raise UnknownVersionError(version, SUPPORTED_VERSIONS)
    return f"pack-{version}.json"


def schema_id(version: str | None = None) -> str:
    """The stable ``$id`` of a version's schema (``None``: the schema that dispatches on version)."""
    return BASE_URI + _file_name(version)


_DIRECTORY: Final = Path(__file__).resolve().parent / "schemas"
_NAMES: Final = frozenset(["common.json", "pack.json", *(f"pack-{v}.json" for v in SUPPORTED_VERSIONS)])


def document(name: str) -> dict[str, Any]:
    """A fresh copy of one shipped schema document, e.g. ``"common.json"`` or ``"pack-0.5.json"``."""
    if name not in _NAMES:
        raise ValueError(f"no shipped schema named {name!r}; the shipped ones are {', '.join(sorted(_NAMES))}")
    loaded: dict[str, Any] = orjson.loads((_DIRECTORY / name).read_bytes())
    return loaded


def bundle(version: str | None = None) -> dict[str, Any]:
    """A self-contained schema for ``version`` (``None``: all versions, selected by ``protocol_version``).

    The referenced documents are embedded as resources under ``$defs`` with their own ``$id``
    (the draft 2020-12 way to bundle), so every ``$ref`` resolves without a network or a registry.
    """
    root = document(_file_name(version))
    embedded = [_COMMON]
    if version is None:
        embedded += [_file_name(v) for v in SUPPORTED_VERSIONS]
    defs = root.setdefault("$defs", {})
    for name in embedded:
        sub = document(name)
        sub.pop("$schema", None)
        defs[name] = sub
    return root


def export(version: str | None = None) -> dict[str, Any]:
    """:func:`bundle`, rewritten so that strict JSON Schema tools compile it cleanly; the same verdicts.

    What ``creatorpack schema`` prints. Ajv's strict mode (``new Ajv2020({strict: true})``, the mode
    a JavaScript editor or service is likely to use) refuses three forms the shipped schemas use,
    each rewritten to one that accepts exactly the same documents:

    - a union type (``"type": ["string", "null"]``) becomes an ``anyOf`` of one branch per type,
      each with the keywords that apply to that type (``pattern`` goes with ``string``);
    - a keyword of one type beside no ``type`` (``minLength`` in a ``then``, ``maxItems`` beside a
      ``$ref``) moves into ``{"if": {"type": T}, "then": {"type": T, ...}}``: it still applies only
      to a value of that type;
    - a ``required`` name that ``properties`` does not list (the 0.2 root, whose members' shapes
      the contract does not show) is listed with the schema ``true``.

    The Python validator keeps the shipped form, whose messages name the types it expects.
    """
    cleaned: dict[str, Any] = _strict_clean(bundle(version))
    return cleaned


_FAMILIES: Final[Mapping[str, frozenset[str]]] = {
    "string": frozenset(["minLength", "maxLength", "pattern", "format"]),
    "number": frozenset(["minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf"]),
    "array": frozenset(["items", "prefixItems", "minItems", "maxItems", "uniqueItems", "contains"]),
    "object": frozenset(
        {
            "properties",
            "required",
            "additionalProperties",
            "patternProperties",
            "propertyNames",
            "minProperties",
            "maxProperties",
            "dependentRequired",
        }
    ),
}
_OF_TYPE: Final[Mapping[str, str]] = {"integer": "number"}
_SUBSCHEMAS: Final = frozenset(
    {"items", "prefixItems", "contains", "additionalProperties", "propertyNames", "not", "if", "then", "else"}
    | {"allOf", "anyOf", "oneOf", "properties", "patternProperties", "$defs", "dependentSchemas"}
)
_MAPS: Final = frozenset(["properties", "patternProperties", "$defs", "dependentSchemas"])


def _strict_clean(node: Any) -> Any:
    """``node`` (a schema) with :func:`export`'s three rewrites applied everywhere in it."""
    if not isinstance(node, dict):
        return node
    out: dict[str, Any] = {}
    for key, value in node.items():
        if key in _MAPS and isinstance(value, dict):
            out[key] = {name: _strict_clean(sub) for name, sub in value.items()}
        elif key in _SUBSCHEMAS and isinstance(value, list):
            out[key] = [_strict_clean(sub) for sub in value]
        elif key in _SUBSCHEMAS:
            out[key] = _strict_clean(value)
        else:
            out[key] = value
    required = out.get("required")
    if isinstance(required, list):
        listed = out.setdefault("properties", {})
        for name in required:
            listed.setdefault(name, True)
    kind = out.get("type")
    if isinstance(kind, list):
        branches = []
        for one in kind:
            applies = _FAMILIES.get(_OF_TYPE.get(one, one), frozenset())
            branches.append({"type": one, **{k: out[k] for k in out if k in applies}})
        for key in [k for k in out if any(k in _FAMILIES[f] for f in _FAMILIES)]:
            del out[key]
        del out["type"]
        out = _also(out, {"anyOf": branches})
    elif kind is None:
        for family, keywords in _FAMILIES.items():
            moved = {k: out.pop(k) for k in list(out) if k in keywords}
            if moved:
                out = _also(out, {"if": {"type": family}, "then": {"type": family, **moved}})
    return out


def _also(node: dict[str, Any], schema: dict[str, Any]) -> dict[str, Any]:
    """``node`` that must also match ``schema``: merged when its keywords are free, else under ``allOf``."""
    if not any(key in node for key in schema):
        return {**node, **schema}
    return {**node, "allOf": [*node.get("allOf", []), schema]}


@functools.cache
def root_members(version: str) -> frozenset[str]:
    """The root members ``version`` defines.

    The root object is open: a pack may carry others, which nothing reads (``lint`` says so:
    ``ignored-member``), such as a 0.3 pack's ``progression``.
    """
    root = document(_file_name(version))
    return frozenset([*root.get("properties", {}), *root.get("required", [])])  # 0.2 requires members it leaves unshown


def as_declared(pack: Mapping[str, Any]) -> Mapping[str, Any]:
    """``pack`` as its declared version reads it: without the root members that version does not define.

    A 0.3 pack's hand-written ``progression`` or ``character_castings`` and a 0.4 pack's
    ``presentation`` are extension fields there: playing, linting, diffing and the reader view all
    read the pack through this, so that none of them acts on what the version does not have.
    ``pack`` itself is returned when it has nothing to drop (or no supported version).
    """
    version = as_version(pack.get("protocol_version"))
    if version is None:
        return pack
    known = root_members(version)
    if all(member in known for member in pack):
        return pack
    return {member: value for member, value in pack.items() if member in known}
