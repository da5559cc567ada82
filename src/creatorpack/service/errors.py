"""The service's domain exceptions; :mod:`creatorpack.service.api.errors` maps each to an HTTP problem."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from creatorpack import CreatorpackError

__all__ = [
    "ConflictError",
    "ForbiddenError",
    "MissingPackIdError",
    "NotFoundError",
    "PayloadTooLargeError",
    "ServiceError",
    "UnauthorizedError",
    "UnreadablePackError",
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


class UnreadablePackError(ServiceError, ValueError):
    """The body is not a readable pack: not JSON, not an object, too deep, or with duplicate keys."""

    def __init__(self, code: str, message: str, errors: Sequence[dict[str, Any]]) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.errors = list(errors)


class MissingPackIdError(ServiceError, ValueError):
    """A valid pack whose version (0.2) has no ``manifest.pack_id``, so it cannot be stored."""
