"""The ``[tool.creatorpack.lint]`` table: found from the packs' directory and read; lint.config checks it."""

from __future__ import annotations

import tomllib
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

from creatorpack.errors import CreatorpackError

if TYPE_CHECKING:
    from creatorpack.lint.config import LintSettings

__all__ = ["SettingsError", "find_pyproject", "load"]

_LINT_KEYS: Final = ("tool", "creatorpack", "lint")


class SettingsError(CreatorpackError, ValueError):
    """A pyproject.toml that cannot be read, or whose table sets a key wrongly (exit 2)."""


def find_pyproject(paths: Sequence[str], cwd: Path) -> Path | None:
    """The nearest pyproject.toml at or above the first pack's directory (the working directory for stdin)."""
    named = [Path(p) for p in paths if p != "-"]
    start = cwd if not named else named[0] if named[0].is_dir() else named[0].parent
    start = (cwd / start).resolve()
    for folder in (start, *start.parents):
        candidate = folder / "pyproject.toml"
        if candidate.is_file():
            return candidate
    return None


def load(pyproject: Path | None) -> LintSettings:
    """Read the table and check it with :func:`creatorpack.lint.config.load_config` (errors name file and key)."""
    from creatorpack.lint.config import LintSettings, load_config  # noqa: PLC0415 - the linter loads only for lint

    if pyproject is None:
        return LintSettings()
    try:
        data = tomllib.loads(pyproject.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise SettingsError(f"cannot read {pyproject}: {exc}") from None
    return load_config(_lint_table(data, pyproject), source=str(pyproject))


def _lint_table(data: dict[str, Any], pyproject: Path) -> dict[str, Any]:
    """``tool.creatorpack.lint`` (empty when any level is absent); each level present must be a table.

    TOML lets ``tool = "x"`` or ``[tool] creatorpack = [1]`` stand where a table belongs; that is a
    usage error naming the file and the dotted key, not a crash while looking inside it.
    """
    table = data
    for depth, key in enumerate(_LINT_KEYS, start=1):
        value = table.get(key, {})
        if not isinstance(value, dict):
            name = ".".join(_LINT_KEYS[:depth])
            raise SettingsError(f"{pyproject}: {name}: must be a table ([{name}]), not {_kind(value)}")
        table = value
    return table


def _kind(value: object) -> str:
    """What a TOML value is, for messages: ``a string ('x')``, ``an array``."""
    names = {bool: "a boolean", int: "an integer", float: "a float", str: "a string", list: "an array"}
    name = names.get(type(value), type(value).__name__)
    return f"{name} ({value!r})" if isinstance(value, str | bool | int | float) else name
