"""Which files a command checks: named files as given, directories walked for packs."""

from __future__ import annotations

import fnmatch
import os
import subprocess
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Final

import orjson

__all__ = [
    "SKIPPED_DIRS",
    "Expansion",
    "declares_protocol_version",
    "expand",
    "git_ignored",
    "mentions_protocol_version",
]

SKIPPED_DIRS: Final = frozenset({"node_modules"})
"""Directories never walked (besides hidden ones, whose names start with a dot)."""

_MARKERS: Final = tuple(
    '"protocol_version"'.encode(codec) for codec in ("utf-8", "utf-16-le", "utf-16-be", "utf-32-le", "utf-32-be")
)
"""The member name in UTF-8 and in the encodings a pack must not be in but an editor may save it in."""
_STDIN: Final = "-"


@dataclass(frozen=True, slots=True)
class Expansion:
    """The files to check, in order, and how many walked ``*.json`` files were skipped as not packs."""

    files: tuple[str, ...]
    skipped: int = 0


def _excluded(relative: str, name: str, patterns: Sequence[str]) -> bool:
    return any(fnmatch.fnmatchcase(relative, p) or fnmatch.fnmatchcase(name, p) for p in patterns)


def git_ignored(folder: Path, candidates: Sequence[Path]) -> set[Path]:
    """The candidates that git ignores (``.gitignore``, ``info/exclude``), when ``folder`` is in a work tree."""
    if not candidates:
        return set()
    absolute = {p.absolute(): p for p in candidates}
    try:
        done = subprocess.run(
            ["git", "check-ignore", "--stdin", "-z"],  # noqa: S607 - git from PATH, as a developer runs it
            input=b"\0".join(os.fsencode(p) for p in absolute) + b"\0",
            cwd=folder,
            capture_output=True,
            check=False,
        )
    except OSError:  # no git: nothing is ignored
        return set()
    if done.returncode not in (0, 1):  # 128: not a work tree
        return set()
    return {absolute[Path(os.fsdecode(p))] for p in done.stdout.split(b"\0") if p and Path(os.fsdecode(p)) in absolute}


def _walk(root: Path, excludes: Sequence[str]) -> list[Path]:
    found: list[Path] = []
    for folder, dirs, names in os.walk(root):
        here = Path(folder)
        dirs[:] = sorted(
            d
            for d in dirs
            if not d.startswith(".")
            and d not in SKIPPED_DIRS
            and not _excluded((here / d).relative_to(root).as_posix(), d, excludes)
        )
        for name in sorted(names):
            path = here / name
            if name.endswith(".json") and not _excluded(path.relative_to(root).as_posix(), name, excludes):
                found.append(path)
    ignored = git_ignored(root, found)
    return sorted(p for p in found if p not in ignored and p.is_file())


def mentions_protocol_version(data: bytes) -> bool:
    """Whether ``data`` holds ``"protocol_version"`` in UTF-8, UTF-16 or UTF-32.

    A pack saved as UTF-16 (some Windows editors do) is still a pack: it must be reported as
    not UTF-8, not skipped as though it were some other JSON file.
    """
    return any(marker in data for marker in _MARKERS)


def declares_protocol_version(data: bytes) -> bool:
    """Whether ``data`` is a JSON object with a root ``protocol_version`` member, or may be a broken one.

    Text that cannot be parsed counts when it mentions ``protocol_version`` (in UTF-8, UTF-16 or
    UTF-32, which a pack must not be in), so that a broken pack is reported rather than skipped; a
    JSON file that only mentions it elsewhere (a JSON Schema of packs, say) is not a pack.
    """
    if not mentions_protocol_version(data):
        return False
    try:
        document = orjson.loads(data)
    except orjson.JSONDecodeError:
        return True
    return isinstance(document, dict) and "protocol_version" in document


def _is_pack(path: Path, max_bytes: int) -> bool:
    """Whether a walked file declares a ``protocol_version`` (unreadable files are kept: they are reported)."""
    try:
        with path.open("rb") as handle:
            return declares_protocol_version(handle.read(max_bytes + 1))
    except OSError:
        return True


def expand(paths: Iterable[str], *, excludes: Sequence[str] = (), max_bytes: int) -> Expansion:
    """Named files (and ``-``) as given; directories walked for ``*.json`` files that declare a ``protocol_version``.

    The walk skips hidden directories, ``node_modules``, what git ignores and what an ``--exclude``
    glob matches (against the path relative to the walked directory, or the name).
    """
    files: list[str] = []
    skipped = 0
    for raw in paths:
        path = Path(raw)
        if raw == _STDIN or not path.is_dir():
            files.append(raw)
            continue
        for found in _walk(path, excludes):
            if _is_pack(found, max_bytes):
                files.append(str(found))
            else:
                skipped += 1
    return Expansion(tuple(files), skipped)
