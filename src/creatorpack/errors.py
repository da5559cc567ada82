"""Exceptions raised by creatorpack, each carrying the exit code the CLI maps it to.

The hierarchy::

    CreatorpackError                 exit 2: nothing could be checked
    ├── DocumentError (ValueError)   the input is not a document creatorpack can read
    │   ├── UnreadableError          the file cannot be opened or read
    │   ├── NotJSONError             not UTF-8 JSON: syntax, BOM, NaN, 1e400, ...
    │   ├── LimitError               larger or deeper than the documented limits
    │   └── NotAnObjectError         JSON, but the root is not an object
    └── InvalidPackError (ValueError) exit 1: read fine, but breaks the contract

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
