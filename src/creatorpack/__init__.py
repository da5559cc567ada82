"""creatorpack: validate, lint and play creator packs, versions 0.2 to 0.5 of the contract."""

from __future__ import annotations

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
from creatorpack.linter import LintConfig, LintReport, lint
from creatorpack.runtime import Engine, Session, SessionState, Turn, TurnResult
from creatorpack.schema import SUPPORTED_VERSIONS, UnknownVersionError
from creatorpack.validation import Report, Validator, Violation, validate

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
