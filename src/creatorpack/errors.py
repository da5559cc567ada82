"""Exceptions raised by creatorpack, each carrying the exit code the CLI maps it to.

The hierarchy::

    CreatorpackError                 exit 2: nothing could be checked
    ├── DocumentError (ValueError)   the input is not a document creatorpack can read
    │   ├── UnreadableError          the file cannot be opened or read
    │   ├── NotJSONError             not UTF-8 JSON: syntax, BOM, NaN, 1e400, ...
    │   ├── LimitError               larger or deeper than the documented limits
    │   └── NotAnObjectError         JSON, but the root is not an object
    ├── InvalidPackError (ValueError) exit 1: read fine, but breaks the contract
    └── PlayError (ValueError)       exit 2: the runtime cannot do what was asked
        ├── NotPlayableError         0.2 pack, unknown entry, initial state outside its schema
        ├── TurnError                a turn's input is malformed (nothing changed)
        │   └── SessionOverError     a turn after the session reached an ending
        └── SessionLoadError         a saved session that does not fit this pack

A pack that breaks the contract is not an exception for :func:`creatorpack.validate`: it returns
a report. :class:`InvalidPackError` is raised by APIs that need a valid pack to go on (for
example :meth:`creatorpack.Report.raise_for_errors`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

if TYPE_CHECKING:
    from creatorpack.validation import Report

__all__ = [
    "CreatorpackError",
    "DocumentError",
    "InvalidPackError",
    "LimitError",
    "NotAnObjectError",
    "NotJSONError",
    "NotPlayableError",
    "PlayError",
    "SessionLoadError",
    "SessionOverError",
    "TurnError",
    "UnreadableError",
]


class CreatorpackError(Exception):
    """Base of every creatorpack exception."""

    exit_code: ClassVar[int] = 2


class DocumentError(CreatorpackError, ValueError):
    """The input could not be read as a JSON object; ``line``/``column`` point at the problem."""

    code: ClassVar[str] = "unreadable-document"

    def __init__(self, message: str, *, line: int | None = None, column: int | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.line = line
        self.column = column


class UnreadableError(DocumentError):
    """The file does not exist, is a directory, or cannot be read."""

    code = "unreadable-file"


class NotJSONError(DocumentError):
    """The bytes are not strict JSON in UTF-8 (RFC 8259)."""

    code = "invalid-json"


class LimitError(DocumentError):
    """The document exceeds a documented size or nesting limit."""

    code = "limit-exceeded"


class NotAnObjectError(DocumentError):
    """The document is JSON, but a pack must be a JSON object."""

    code = "not-an-object"


class InvalidPackError(CreatorpackError, ValueError):
    """A pack that breaks its contract version, raised where a valid pack is required."""

    exit_code = 1

    def __init__(self, report: Report) -> None:
        self.report = report
        count = len(report.violations)
        first = report.violations[0] if report.violations else None
        detail = f": {first.pointer or '/'}: {first.message}" if first else ""
        super().__init__(f"pack is invalid ({count} violation{'s' if count != 1 else ''}){detail}")


class PlayError(CreatorpackError, ValueError):
    """The runtime cannot do what was asked; ``problems`` lists ``(pointer, message)`` details."""

    def __init__(self, message: str, problems: tuple[tuple[str, str], ...] = ()) -> None:
        details = "".join(f"\n  {pointer or '/'}: {problem}" for pointer, problem in problems)
        super().__init__(message + details)
        self.message = message
        self.problems = problems


class NotPlayableError(PlayError):
    """The pack cannot start a session: version 0.2, an unknown entry, or a bad initial state."""


class TurnError(PlayError):
    """A turn's input is malformed; the session did not change."""


class SessionOverError(TurnError):
    """The session reached an ending and takes no more turns."""


class SessionLoadError(PlayError):
    """A saved session does not fit the pack it is loaded into."""
