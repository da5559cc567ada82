"""Exceptions raised by creatorpack, each carrying the exit code the CLI maps it to.

The hierarchy (every class also subclasses the builtin in brackets)::

    CreatorpackError                   exit 2: nothing could be checked
    ├── SourceTypeError [TypeError]    validate() got something that is no pack source (an int, ...)
    │   └── NotJSONDataError           a mapping holding what JSON cannot say: a set, a Decimal,
    │                                  NaN, an int key, ...; ``pointer`` and ``python_type`` say where
    ├── DocumentError [ValueError]     the input is not a document creatorpack can read
    │   ├── UnreadableError            the file cannot be opened or read
    │   ├── NotJSONError               not UTF-8 JSON: syntax, BOM, NaN, 1e400, ...
    │   ├── LimitError                 larger or deeper than the documented limits
    │   └── NotAnObjectError           JSON, but the root is not an object
    ├── UnknownVersionError [ValueError]  a contract version this release does not know
    ├── InvalidPackError [ValueError]  exit 1: read fine, but breaks the contract
    ├── (narrate.NarrationError) [RuntimeError]  a turn could not be narrated; the session did not change
    │   ├── (narrate.ModelUnavailableError)     the model server is down, refuses, or timed out
    │   └── (narrate.ModelAnswerError)          the model's structured answers did not fit, even after a retry
    └── PlayError [ValueError]         exit 2: the runtime cannot do what was asked
        ├── NotPlayableError           0.2 pack, unknown entry, initial state outside its schema
        ├── TurnError                  a turn's input is malformed (nothing changed)
        │   └── SessionOverError       a turn after the session reached an ending
        ├── SessionLoadError           a saved session that does not fit this pack
        │   └── (diff.MigrationError)  a save that cannot move to another revision
        ├── ConditionError             a condition that cannot be compiled (input that skipped validation)
        └── EffectError                an effect that would leave the state schema or pass a limit

A pack that breaks the contract is not an exception for :func:`creatorpack.validate`: it returns
a report. :class:`InvalidPackError` is raised by APIs that need a valid pack to go on (for
example :meth:`creatorpack.Report.raise_for_errors`).

Errors that belong to one layer are defined beside it and hang from this tree:
``lint.config.LintConfigError``, ``upgrade.UpgradeError``, ``scaffold.ScaffoldError`` and the
CLI's and the service's ``SettingsError`` (each a ``CreatorpackError`` and a ``ValueError``),
``diff.MigrationError`` (a ``SessionLoadError``), the CLI's ``ScriptError`` (a ``TurnError`` of
``play --script`` that names its ``FILE:LINE`` and carries the turns before it), ``narrate``'s
errors, and ``service.errors.ServiceError`` with its HTTP-shaped subclasses.

This module imports nothing of creatorpack, so every layer can raise these without a cycle.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar, Protocol

__all__ = [
    "ConditionError",
    "CreatorpackError",
    "DocumentError",
    "EffectError",
    "InvalidPackError",
    "LimitError",
    "NotAnObjectError",
    "NotJSONDataError",
    "NotJSONError",
    "NotPlayableError",
    "PlayError",
    "SessionLoadError",
    "SessionOverError",
    "SourceTypeError",
    "TurnError",
    "UnknownVersionError",
    "UnreadableError",
]


class _Problem(Protocol):
    @property
    def pointer(self) -> str: ...
    @property
    def message(self) -> str: ...


class _ReportLike(Protocol):
    """What :class:`InvalidPackError` needs of a :class:`creatorpack.Report`."""

    @property
    def violations(self) -> Sequence[_Problem]: ...


class CreatorpackError(Exception):
    """Base of every creatorpack exception."""

    exit_code: ClassVar[int] = 2


class SourceTypeError(CreatorpackError, TypeError):
    """``validate`` was given something that is neither JSON text, a path nor a mapping."""

    code: ClassVar[str] = "unsupported-source"


class NotJSONDataError(SourceTypeError):
    """A parsed document holds a value JSON has no form for; ``pointer`` says where."""

    code = "not-json-data"

    def __init__(self, message: str, *, pointer: str, python_type: str) -> None:
        super().__init__(message)
        self.message = message
        self.pointer = pointer
        self.python_type = python_type


class UnknownVersionError(CreatorpackError, ValueError):
    """A contract version that this release does not know."""

    def __init__(self, version: object, supported: Sequence[str] = ()) -> None:
        self.version = version
        self.supported = tuple(supported)
        known = f"; supported versions: {', '.join(supported)}" if supported else ""
        super().__init__(f"unknown contract version {version!r}{known}")


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

    def __init__(self, report: _ReportLike) -> None:
        # The creatorpack.Report; typed loosely because this module imports nothing of ours.
        self.report: Any = report
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


class ConditionError(PlayError):
    """A condition that cannot be compiled (only possible for input that skipped validation)."""


class EffectError(PlayError):
    """An effect that cannot apply: it would leave the schema, or exceed a ``reject`` limit."""
