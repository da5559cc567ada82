"""The ``[tool.creatorpack.lint]`` table: found from the packs' directory and read; lint.config checks it."""

from __future__ import annotations

import tomllib
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from creatorpack.errors import CreatorpackError

if TYPE_CHECKING:
    from creatorpack.lint.config import LintSettings

__all__ = ["SettingsError", "find_pyproject", "load"]


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
    tool = data.get("tool", {})
    table = tool.get("creatorpack", {}).get("lint", {}) if isinstance(tool, dict) else {}
    return load_config(table, source=str(pyproject))
