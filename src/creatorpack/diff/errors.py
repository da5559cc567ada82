"""The exception a migration raises when a saved session cannot move to another revision."""

from __future__ import annotations

from typing import TYPE_CHECKING

from creatorpack.errors import SessionLoadError

if TYPE_CHECKING:
    from creatorpack.diff.compat import Misfit

__all__ = ["MigrationError"]


class MigrationError(SessionLoadError):
    """A saved session holds values that do not fit the new revision; ``misfits`` names each one.

    A :class:`~creatorpack.errors.SessionLoadError` (so a ``CreatorpackError`` and a ``ValueError``):
    callers that load saves catch both the same way.
    """

    def __init__(self, message: str, misfits: tuple[Misfit, ...]) -> None:
        super().__init__(message, tuple((m.pointer, m.message) for m in misfits))
        self.misfits = misfits
