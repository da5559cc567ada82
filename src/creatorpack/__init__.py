"""creatorpack: validate, lint and play creator packs, versions 0.2 to 0.5 of the contract."""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from creatorpack.errors import (
    CreatorpackError,
    DocumentError,
    InvalidPackError,
    LimitError,
    NotAnObjectError,
    NotJSONError,
    NotPlayableError,
    PlayError,
    SessionLoadError,
    SessionOverError,
    TurnError,
    UnreadableError,
)
from creatorpack.schema import SUPPORTED_VERSIONS, UnknownVersionError
from creatorpack.validation import Report, Validator, Violation, validate

if TYPE_CHECKING:
    from creatorpack.linter import LintConfig, LintReport, lint
    from creatorpack.runtime import Engine, Session, SessionState, Turn, TurnResult

# The runtime and the linter load on first use, so that `creatorpack validate` starts fast.
_LAZY = {
    "Engine": "creatorpack.runtime",
    "Session": "creatorpack.runtime",
    "SessionState": "creatorpack.runtime",
    "Turn": "creatorpack.runtime",
    "TurnResult": "creatorpack.runtime",
    "LintConfig": "creatorpack.linter",
    "LintReport": "creatorpack.linter",
    "lint": "creatorpack.linter",
}


def __getattr__(name: str) -> Any:
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
    "NotJSONError",
    "NotPlayableError",
    "PlayError",
    "Report",
    "Session",
    "SessionLoadError",
    "SessionOverError",
    "SessionState",
    "Turn",
    "TurnError",
    "TurnResult",
    "UnknownVersionError",
    "UnreadableError",
    "Validator",
    "Violation",
    "lint",
    "validate",
]

__version__ = "0.1.0"
