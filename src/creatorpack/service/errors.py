"""The service's domain exceptions; :mod:`creatorpack.service.api.errors` maps each to an HTTP problem."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from creatorpack import CreatorpackError

__all__ = [
    "AssetMismatchError",
    "BadRequestError",
    "ConflictError",
    "ForbiddenError",
    "InvalidCursorError",
    "InvalidTurnError",
    "LintFailedError",
    "MigrationConflictError",
    "MissingPackIdError",
    "NarratorUnavailableError",
    "NotFoundError",
    "PackIdTakenError",
    "PayloadTooLargeError",
    "ProblemError",
    "RangeNotSatisfiableError",
    "ServiceError",
    "SessionEndedError",
    "StorageInconsistentError",
    "TurnConflictError",
    "UnauthorizedError",
    "UnplayableError",
    "UnreadablePackError",
    "UnsupportedAssetError",
    "UnsupportedMediaTypeError",
]


class ServiceError(CreatorpackError):
    """Base of the errors a service request can end with."""


class UnauthorizedError(ServiceError, PermissionError):
    """No bearer token, or one that is unknown or revoked."""


class ForbiddenError(ServiceError, PermissionError):
    """The token is valid but lacks the scope the route needs."""


class NotFoundError(ServiceError, LookupError):
    """No such pack or revision for this account (another account's pack is not found either)."""


class ConflictError(ServiceError, ValueError):
    """The request contradicts what is stored (a revision with other bytes, not above the latest, ...)."""

    def __init__(self, message: str, *, reason: str, **details: Any) -> None:
        super().__init__(message)
        self.message = message
        self.reason = reason
        self.details = details


class PayloadTooLargeError(ServiceError, ValueError):
    """The request body is larger than the configured limit."""

    def __init__(self, limit: int) -> None:
        super().__init__(f"the body is larger than the limit of {limit:,} bytes")
        self.limit = limit


class UnsupportedMediaTypeError(ServiceError, ValueError):
    """The body is declared as something other than JSON."""


class UnreadablePackError(ServiceError, ValueError):
    """The body is not a readable pack: not JSON, not an object, too deep, or with duplicate keys."""

    def __init__(self, code: str, message: str, errors: Sequence[dict[str, Any]]) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.errors = list(errors)


class StorageInconsistentError(ServiceError, RuntimeError):
    """A row says bytes are stored (a live revision, an uploaded asset) and the blob store has none: a 500, logged.

    Data loss or a misconfigured blob store, never the client's doing; see :mod:`creatorpack.service.storage`.
    """


class MissingPackIdError(ServiceError, ValueError):
    """A valid pack whose version (0.2) has no ``manifest.pack_id``, so it cannot be stored."""


# -- play sessions ------------------------------------------------------------------------------------


class ProblemError(ServiceError):
    """An error that names its problem type (``problem``) and extension members (``details``) itself."""

    problem = "internal-error"

    def __init__(self, message: str, **details: Any) -> None:
        super().__init__(message)
        self.message = message
        self.details = details


class TurnConflictError(ProblemError, ValueError):
    """The turn's number is not the next one, or the session's last turn was played with another body."""

    problem = "turn-conflict"


class SessionEndedError(ProblemError, ValueError):
    """A turn of a session that reached its ending."""

    problem = "session-over"


class MigrationConflictError(ProblemError, ValueError):
    """The session's save cannot move to the revision asked for; ``misfits`` name each value (narrator only)."""

    problem = "migration-conflict"


class InvalidTurnError(ProblemError, ValueError):
    """The turn's observations or illustration matches do not fit the pack (``creatorpack play``'s message)."""

    problem = "invalid-turn"


class UnplayableError(ProblemError, ValueError):
    """The revision cannot be started at that entry (no such entry, or an initial state outside its schema)."""

    problem = "not-playable"


class BadRequestError(ProblemError, ValueError):
    """A request whose values the domain refuses (an account name, an expiry, a reason too long, ...)."""

    problem = "invalid-request"


class NarratorUnavailableError(ProblemError, RuntimeError):
    """No narrator is configured, or its model server failed before the narration began (503)."""

    problem = "narrator-unavailable"


class PackIdTakenError(ProblemError, ValueError):
    """A new pack whose id, or its normalized form (case, ``-``/``_``/``.`` runs), another pack holds."""

    problem = "pack-id-taken"


# -- publishing, the catalog, assets --------------------------------------------------------------


class LintFailedError(ServiceError, ValueError):
    """Publishing refused: the revision has lint errors (``errors``); ``warnings`` do not block."""

    def __init__(self, message: str, errors: Sequence[dict[str, Any]], warnings: Sequence[dict[str, Any]]) -> None:
        super().__init__(message)
        self.message = message
        self.errors = list(errors)
        self.warnings = list(warnings)


class InvalidCursorError(ServiceError, ValueError):
    """A catalog cursor that this service did not issue, or issued for another search."""


class AssetMismatchError(ServiceError, ValueError):
    """Uploaded bytes whose sha256 is not the one named in the path."""

    def __init__(self, expected: str, actual: str) -> None:
        super().__init__(f"the bytes have sha256 {actual}, not {expected}; upload them under their own sha256")
        self.expected = expected
        self.actual = actual


class UnsupportedAssetError(ServiceError, ValueError):
    """Uploaded bytes whose content is none of the contract's asset types."""

    def __init__(self, allowed: Sequence[str]) -> None:
        super().__init__(f"the content is none of the contract's asset types ({', '.join(allowed)})")
        self.allowed = list(allowed)


class RangeNotSatisfiableError(ServiceError, ValueError):
    """A ``Range`` header that names no byte of the asset."""

    def __init__(self, size: int) -> None:
        super().__init__(f"the range names no byte of the {size:,}-byte asset")
        self.size = size
