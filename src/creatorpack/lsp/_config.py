"""The ``[tool.creatorpack.lint]`` table a document is checked with: found as ``creatorpack lint`` finds it.

The nearest ``pyproject.toml`` at or above the document's directory (none for a document that is
no file, such as an unsaved buffer); its table is checked by :func:`creatorpack.lint.load_config`,
as the CLI checks it, so ``ignore``, ``per-item-ignores`` and ``strict`` mean the same in the editor.
``strict`` shows warnings as errors (what fails ``creatorpack lint --strict``). The search bounds
of the table apply, but never beyond :data:`MAX_SECONDS`, so a keystroke never waits long.

A table that cannot be read or is wrong does not stop the server: the document is checked with the
defaults and a diagnostic at its start says what is wrong and where. A file is read again only when
its modification time or size changes.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final
from urllib.parse import unquote, urlsplit

from creatorpack.lint import LintConfig, LintConfigError, LintSettings, load_config

__all__ = ["MAX_SECONDS", "Settings", "SettingsCache", "find_pyproject", "read"]

MAX_SECONDS: Final = 5.0
"""The reachability search's safety net in the editor, whatever the table says."""
_KEYS: Final = ("tool", "creatorpack", "lint")


@dataclass(frozen=True, slots=True)
class Settings:
    """How to lint one document: the config, whether warnings count as errors, and what went wrong."""

    config: LintConfig
    strict: bool = False
    pyproject: Path | None = None
    problem: str | None = None
    """Why the table was not used (it cannot be read, or sets a key wrongly); ``None`` when it was."""

    @classmethod
    def default(cls) -> Settings:
        """The settings of a document with no ``pyproject.toml`` above it."""
        return cls(LintConfig(max_seconds=MAX_SECONDS))


class SettingsCache:
    """The settings of each ``pyproject.toml``, read again when the file changes."""

    def __init__(self) -> None:
        self._read: dict[Path, tuple[tuple[int, int], Settings]] = {}

    def for_uri(self, uri: str) -> Settings:
        """The settings of the document at ``uri`` (a ``file:`` URI; others get the defaults)."""
        pyproject = find_pyproject(uri)
        if pyproject is None:
            return Settings.default()
        try:
            stat = pyproject.stat()
        except OSError:
            return Settings.default()
        stamp = (stat.st_mtime_ns, stat.st_size)
        known = self._read.get(pyproject)
        if known is not None and known[0] == stamp:
            return known[1]
        settings = read(pyproject)
        self._read[pyproject] = (stamp, settings)
        return settings


def find_pyproject(uri: str) -> Path | None:
    """The nearest ``pyproject.toml`` at or above the directory of the ``file:`` URI ``uri``."""
    parts = urlsplit(uri)
    if parts.scheme != "file":
        return None
    folder = Path(unquote(parts.path)).parent
    for candidate in (folder, *folder.parents):
        if (candidate / "pyproject.toml").is_file():
            return candidate / "pyproject.toml"
    return None


def read(pyproject: Path) -> Settings:
    """The settings of one ``pyproject.toml``; the defaults and a ``problem`` when it is wrong."""
    try:
        data = tomllib.loads(pyproject.read_text(encoding="utf-8"))
        lint: LintSettings = load_config(_table(data, pyproject), source=str(pyproject))
        seconds = min(lint.max_seconds if lint.max_seconds is not None else MAX_SECONDS, MAX_SECONDS)
        config = lint.config(max_seconds=seconds)
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        problem = f"cannot read {pyproject}: {exc}; checked with the default settings"
        return Settings(LintConfig(max_seconds=MAX_SECONDS), pyproject=pyproject, problem=problem)
    except (LintConfigError, TypeError, ValueError) as exc:
        problem = f"{exc}; checked with the default settings"
        return Settings(LintConfig(max_seconds=MAX_SECONDS), pyproject=pyproject, problem=problem)
    return Settings(config, strict=bool(lint.strict), pyproject=pyproject)


def _table(data: dict[str, Any], pyproject: Path) -> Any:
    """``tool.creatorpack.lint`` (empty when a level is absent); each level present must be a table."""
    table: Any = data
    for depth, key in enumerate(_KEYS, start=1):
        table = table.get(key, {})
        if not isinstance(table, dict):
            name = ".".join(_KEYS[:depth])
            raise LintConfigError(str(pyproject), name, f"must be a table ([{name}])")
    return table
