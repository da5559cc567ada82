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
