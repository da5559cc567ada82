"""The ``[tool.creatorpack.lint]`` table of a ``pyproject.toml``, checked: types, ranges, known codes.

Pure: the caller reads and parses the TOML and hands in the table and the file's name (for
messages). Command-line flags override what the table sets (see :meth:`LintSettings.config`).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final

from creatorpack.errors import CreatorpackError
from creatorpack.lint._suggest import did_you_mean
from creatorpack.lint.report import LintConfig
from creatorpack.lint.rules import RULES

__all__ = ["KEYS", "LintConfigError", "LintSettings", "load_config"]

KEYS: Final = ("ignore", "strict", "max-states", "max-seconds", "per-item-ignores")
"""The keys a ``[tool.creatorpack.lint]`` table may set."""


class LintConfigError(CreatorpackError, ValueError):
    """A ``[tool.creatorpack.lint]`` table that sets a key wrongly; names the file and the key."""

    def __init__(self, source: str, key: str, problem: str) -> None:
        self.source = source
        self.key = key
        self.problem = problem
        super().__init__(f"{source}: [tool.creatorpack.lint] {key}: {problem}")


@dataclass(frozen=True, slots=True)
class LintSettings:
    """What a ``[tool.creatorpack.lint]`` table sets; ``None`` where it sets nothing."""

    ignore: frozenset[str] = frozenset()
    strict: bool | None = None
    max_states: int | None = None
    max_seconds: float | None = None
    per_item_ignores: Mapping[str, frozenset[str]] | None = None

    def config(self, **flags: Any) -> LintConfig:
        """A :class:`LintConfig` from these settings, overridden by the non-``None`` ``flags``.

        ``flags`` are :class:`LintConfig` fields; ``ignore`` from flags adds to the table's.
        """
        given = {k: v for k, v in flags.items() if v is not None}
        ignore = self.ignore | frozenset(given.pop("ignore", ()))
        table: dict[str, Any] = {
            "max_states": self.max_states,
            "max_seconds": self.max_seconds,
            "per_item_ignores": self.per_item_ignores,
        }
        merged = {k: v for k, v in table.items() if v is not None} | given
        return LintConfig(ignore=ignore, **merged)


def load_config(table: Mapping[str, Any], *, source: str) -> LintSettings:
    """Check a ``[tool.creatorpack.lint]`` table; raise :class:`LintConfigError` naming ``source`` and the key."""
    if not isinstance(table, Mapping):
        raise LintConfigError(source, "(table)", f"must be a table, not {_kind(table)}")
    for key in table:
        if key not in KEYS:
            raise LintConfigError(
                source, str(key), f"unknown key (known: {', '.join(KEYS)}){did_you_mean(str(key), KEYS)}"
            )
    return LintSettings(
        ignore=_ignore(table, source),
        strict=_strict(table, source),
        max_states=_max_states(table, source),
        max_seconds=_max_seconds(table, source),
        per_item_ignores=_per_item_ignores(table, source),
    )


def _per_item_ignores(table: Mapping[str, Any], source: str) -> dict[str, frozenset[str]] | None:
    """``per-item-ignores = {"/progression/achievements/3" = ["unreachable"], salt_and_kindness = [...]}``."""
    value = table.get("per-item-ignores")
    if value is None:
        return None
    key = "per-item-ignores"
    if not isinstance(value, Mapping):
        example = '{"/assets/3" = ["unused-asset"]}'
        raise LintConfigError(source, key, f"must be a table of items to codes, like {example}, not {_kind(value)}")
    checked: dict[str, frozenset[str]] = {}
    for item, codes in value.items():
        if not isinstance(codes, list) or not all(isinstance(code, str) for code in codes):
            raise LintConfigError(source, f"{key}.{item}", f"must be an array of rule codes, not {_kind(codes)}")
        for code in codes:
            if code not in RULES:
                hint = did_you_mean(code, RULES)
                raise LintConfigError(
                    source, f"{key}.{item}", f"unknown rule code {code!r}{hint}; creatorpack rule lists them"
                )
        checked[str(item)] = frozenset(codes)
    return checked


def _ignore(table: Mapping[str, Any], source: str) -> frozenset[str]:
    value = table.get("ignore", [])
    if not isinstance(value, list):
        raise LintConfigError(
            source, "ignore", f'must be an array of rule codes, like ["spoiler-title"], not {_kind(value)}'
        )
    for number, item in enumerate(value, start=1):
        if not isinstance(item, str):
            raise LintConfigError(
                source, "ignore", f'item {number} is {_kind(item)}, not a rule code (a string, like "spoiler-title")'
            )
    for code in value:
        if code not in RULES:
            raise LintConfigError(
                source, "ignore", f"unknown rule code {code!r}{did_you_mean(code, RULES)}; creatorpack rule lists them"
            )
    return frozenset(value)


def _strict(table: Mapping[str, Any], source: str) -> bool | None:
    value = table.get("strict")
    if value is not None and not isinstance(value, bool):
        raise LintConfigError(source, "strict", f"must be true or false, not {_kind(value)}")
    return value


def _max_states(table: Mapping[str, Any], source: str) -> int | None:
    value = table.get("max-states")
    if value is None:
        return None
    if not isinstance(value, int) or isinstance(value, bool):
        raise LintConfigError(source, "max-states", f"must be a whole number of states, not {_kind(value)}")
    if value < 1:
        raise LintConfigError(source, "max-states", f"must be at least 1, not {value}")
    return value


def _max_seconds(table: Mapping[str, Any], source: str) -> float | None:
    value = table.get("max-seconds")
    if value is None:
        return None
    if not isinstance(value, int | float) or isinstance(value, bool):
        raise LintConfigError(source, "max-seconds", f"must be a number of seconds, not {_kind(value)}")
    if not math.isfinite(value) or value < 0:
        raise LintConfigError(source, "max-seconds", f"must be a finite number of seconds, 0 or more, not {value}")
    return float(value)


def _kind(value: Any) -> str:
    names = {bool: "a boolean", int: "an integer", float: "a float", str: "a string", list: "an array"}
    name = names.get(type(value), "a table" if isinstance(value, Mapping) else type(value).__name__)
    return f"{name} ({value!r})" if isinstance(value, str | bool | int | float) else name
