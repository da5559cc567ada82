"""The narrator's errors, hanging from :class:`creatorpack.errors.CreatorpackError` (exit 2 in the CLI).

The tree::

NarrationError [RuntimeError]     a turn could not be narrated; the session did not change
├── ModelUnavailableError         the model server is down, refuses, or timed out (after retries)
└── ModelAnswerError              the model's structured answers did not fit, even after one retry
"""

from __future__ import annotations

from creatorpack.errors import CreatorpackError

__all__ = ["ModelAnswerError", "ModelUnavailableError", "NarrationError"]


class NarrationError(CreatorpackError, RuntimeError):
    """A turn could not be narrated; the session did not change."""


class ModelUnavailableError(NarrationError):
    """The model server did not answer usefully: down, refusing, or too slow, after the retries."""


class ModelAnswerError(NarrationError):
    """The model's structured answers did not fit the turn's schema, even after one retry with the error."""
