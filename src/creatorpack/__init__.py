"""creatorpack: validate, lint and play creator packs, versions 0.2 to 0.5 of the contract."""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from creatorpack.contract import SUPPORTED_VERSIONS, Report, UnknownVersionError, Validator, Violation, validate
from creatorpack.errors import (
    CreatorpackError,
    DocumentError,
    InvalidPackError,
    LimitError,
    NotAnObjectError,
    NotJSONDataError,
    NotJSONError,
    NotPlayableError,
    PlayError,
    SessionLoadError,
    SessionOverError,
    SourceTypeError,
    TurnError,
    UnreadableError,
)

if TYPE_CHECKING:
    # The submodules a plain ``import creatorpack`` reaches (see _SUBMODULES), named so that type
    # checkers know ``creatorpack.testing.play`` and ``creatorpack.diff.diff`` rather than Any.
    from creatorpack import diff as diff
    from creatorpack import play as play
    from creatorpack import scaffold as scaffold
    from creatorpack import testing as testing
    from creatorpack.lint import LintConfig, LintReport, lint
    from creatorpack.play import Engine, Session, SessionState, Turn, TurnResult
    from creatorpack.upgrade import UpgradeResult, upgrade

# The runtime and the linter load on first use, so that `creatorpack validate` starts fast.
_LAZY = {
    "Engine": "creatorpack.play",
    "Session": "creatorpack.play",
    "SessionState": "creatorpack.play",
    "Turn": "creatorpack.play",
    "TurnResult": "creatorpack.play",
    "LintConfig": "creatorpack.lint",
    "LintReport": "creatorpack.lint",
    "lint": "creatorpack.lint",
    "UpgradeResult": "creatorpack.upgrade",
    "upgrade": "creatorpack.upgrade",
}


_SUBMODULES = frozenset(["diff", "play", "scaffold", "testing"])
"""Subpackages reachable after a plain ``import creatorpack`` (``creatorpack.testing.play``), loaded on first use."""


def __getattr__(name: str) -> Any:
    if name in _SUBMODULES:
        return importlib.import_module(f"creatorpack.{name}")
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'creatorpack' has no attribute {name!r}")
    return getattr(importlib.import_module(module), name)


__all__ = [
    "SUPPORTED_VERSIONS",
    "CreatorpackError",
    "DocumentError",
    "Engine",
    "InvalidPackError",
    "LimitError",
    "LintConfig",
    "LintReport",
    "NotAnObjectError",
    "NotJSONDataError",
    "NotJSONError",
    "NotPlayableError",
    "PlayError",
    "Report",
    "Session",
    "SessionLoadError",
    "SessionOverError",
    "SessionState",
    "SourceTypeError",
    "Turn",
    "TurnError",
    "TurnResult",
    "UnknownVersionError",
    "UnreadableError",
    "UpgradeResult",
    "Validator",
    "Violation",
    "lint",
    "upgrade",
    "validate",
]

__version__ = "0.1.0"
