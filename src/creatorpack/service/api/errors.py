"""Problem details (RFC 9457): every error is ``application/problem+json`` with a stable ``type`` URI."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Final

import orjson
from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.requests import ClientDisconnect
from starlette.responses import Response
from starlette.routing import Match

from creatorpack import InvalidPackError
from creatorpack.service.errors import (
    AssetMismatchError,
    ConflictError,
    ForbiddenError,
    InvalidCursorError,
    LintFailedError,
    MissingPackIdError,
    NotFoundError,
    PayloadTooLargeError,
    ProblemError,
    RangeNotSatisfiableError,
    StorageInconsistentError,
    UnauthorizedError,
    UnreadablePackError,
    UnsupportedAssetError,
    UnsupportedMediaTypeError,
)
from creatorpack.service.metrics import LINT_REFUSALS

__all__ = [
    "PROBLEMS",
    "PROBLEM_MEDIA_TYPE",
    "ProblemType",
    "install",
    "problem_of",
    "problem_response",
]

PROBLEM_MEDIA_TYPE: Final = "application/problem+json"
_BASE: Final = "urn:creatorpack:problem:"


@dataclass(frozen=True, slots=True)
class ProblemType:
    """One kind of problem: its stable name (the ``type`` URI ends with it), status and title."""

    name: str
    status: int
    title: str

    @property
    def uri(self) -> str:
        """The ``type`` member."""
        return _BASE + self.name


PROBLEMS: Final = {
    p.name: p
    for p in (
        ProblemType("invalid-request", 400, "The request is malformed"),
        ProblemType("unreadable-pack", 400, "The body is not a readable pack"),
        ProblemType("unauthorized", 401, "A valid bearer token is needed"),
        ProblemType("forbidden", 403, "The token lacks the scope this route needs"),
        ProblemType("not-found", 404, "Not found"),
        ProblemType("method-not-allowed", 405, "Method not allowed"),
        ProblemType("revision-conflict", 409, "The revision conflicts with what is stored"),
        ProblemType("payload-too-large", 413, "The body is too large"),
        ProblemType("unsupported-media-type", 415, "The body must be JSON"),
        ProblemType("invalid-pack", 422, "The pack breaks its contract"),
        ProblemType("pack-id-missing", 422, "The pack has no pack_id"),
        ProblemType("pack-id-taken", 409, "Another pack holds this pack id"),
        ProblemType("narrator-unavailable", 503, "The narrator cannot narrate now"),
        ProblemType("rate-limited", 429, "Too many requests"),
        ProblemType("headers-too-large", 431, "The request headers are too large"),
        ProblemType("internal-error", 500, "Internal server error"),
        ProblemType("storage-inconsistent", 500, "The stored data is inconsistent"),
        # Play sessions
        ProblemType("turn-conflict", 409, "The turn is not the session's next turn"),
        ProblemType("session-over", 409, "The session reached its ending"),
        ProblemType("migration-conflict", 409, "The session's save does not fit that revision"),
        ProblemType("invalid-turn", 422, "The turn does not fit the pack"),
        ProblemType("not-playable", 422, "The pack cannot be started there"),
        # Publishing, the catalog and assets
        ProblemType("invalid-cursor", 400, "The cursor is not valid for this search"),
        ProblemType("range-not-satisfiable", 416, "The range names no byte of the file"),
        ProblemType("lint-failed", 422, "The revision has lint errors"),
        ProblemType("asset-mismatch", 422, "The bytes do not have the sha256 named"),
        ProblemType("asset-type", 422, "The bytes are none of the contract's asset types"),
    )
}


def problem_response(
    name: str, detail: str, *, instance: str | None = None, headers: dict[str, str] | None = None, **extra: Any
) -> Response:
    """A problem+json response of the named type."""
    return problem_of(PROBLEMS[name], detail, instance=instance, headers=headers, **extra)


def problem_of(
    kind: ProblemType, detail: str, *, instance: str | None = None, headers: dict[str, str] | None = None, **extra: Any
) -> Response:
    """A problem+json response of ``kind`` (the one builder of the ``Problem`` body; extension members in ``extra``)."""
    body: dict[str, Any] = {"type": kind.uri, "title": kind.title, "status": kind.status, "detail": detail}
    if instance is not None:
        body["instance"] = instance
    body.update(extra)
    return Response(orjson.dumps(body), kind.status, headers=headers, media_type=PROBLEM_MEDIA_TYPE)


def _path(request: Request) -> str:
    return str(request.url.path)


def _validation_detail(exc: RequestValidationError) -> tuple[str, list[dict[str, str]]]:
    errors = []
    for error in exc.errors():
        where = ".".join(str(part) for part in error.get("loc", ()))
        errors.append({"location": where, "message": str(error.get("msg", "invalid"))})
    first = errors[0] if errors else {"location": "request", "message": "invalid"}
    return f"{first['location']}: {first['message']}", errors


def _allowed(request: Request) -> list[str]:
    """Every method of the routes at the request's path; HEAD wherever GET is (``HeadMiddleware`` answers it).

    Starlette names only the first matching route's methods, and one path may have several routes.
    FastAPI keeps an included router as one route of the app: ``create_app`` lists their routes in
    ``app.state.routes``.
    """
    methods: set[str] = set()
    probe = {**request.scope, "method": "GET"}
    for route in (*request.app.router.routes, *getattr(request.app.state, "routes", ())):
        route_methods = getattr(route, "methods", None)
        if route_methods and route.matches(probe)[0] is not Match.NONE:
            methods |= set(route_methods)
    if "GET" in methods:
        methods.add("HEAD")
    return sorted(methods)


async def _unauthorized(request: Request, exc: Exception) -> Response:
    return problem_response(
        "unauthorized",
        str(exc),
        instance=_path(request),
        headers={"WWW-Authenticate": 'Bearer realm="creatorpack"'},
    )


async def _forbidden(request: Request, exc: Exception) -> Response:
    return problem_response("forbidden", str(exc), instance=_path(request))


async def _not_found(request: Request, exc: Exception) -> Response:
    return problem_response("not-found", str(exc), instance=_path(request))


async def _conflict(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, ConflictError)
    return problem_response("revision-conflict", exc.message, instance=_path(request), reason=exc.reason, **exc.details)


async def _too_large(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, PayloadTooLargeError)
    return problem_response("payload-too-large", str(exc), instance=_path(request), limit=exc.limit)


async def _media_type(request: Request, exc: Exception) -> Response:
    return problem_response("unsupported-media-type", str(exc), instance=_path(request))


async def _unreadable(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, UnreadablePackError)
    return problem_response("unreadable-pack", exc.message, instance=_path(request), code=exc.code, errors=exc.errors)


async def _invalid(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, InvalidPackError)
    report = exc.report
    return problem_response(
        "invalid-pack",
        str(exc),
        instance=_path(request),
        version=report.version,
        errors=[v.to_dict() for v in report.violations],
    )


async def _no_pack_id(request: Request, exc: Exception) -> Response:
    return problem_response("pack-id-missing", str(exc), instance=_path(request))


async def _bad_request(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, RequestValidationError)
    detail, errors = _validation_detail(exc)
    return problem_response("invalid-request", detail, instance=_path(request), errors=errors)


async def _http_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, StarletteHTTPException)
    names = {404: "not-found", 405: "method-not-allowed", 413: "payload-too-large", 415: "unsupported-media-type"}
    name = names.get(exc.status_code, "invalid-request" if exc.status_code < 500 else "internal-error")
    detail = "no such route" if exc.status_code == 404 else str(exc.detail)
    headers = dict(exc.headers or {})
    if exc.status_code == 405:
        headers["Allow"] = ", ".join(_allowed(request))
    return problem_response(name, detail, instance=_path(request), headers=headers)


async def _named(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, ProblemError)
    return problem_response(exc.problem, exc.message, instance=_path(request), **exc.details)


async def _lint_failed(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, LintFailedError)
    LINT_REFUSALS.inc()
    return problem_response(
        "lint-failed", exc.message, instance=_path(request), errors=exc.errors, warnings=exc.warnings
    )


async def _invalid_cursor(request: Request, exc: Exception) -> Response:
    return problem_response("invalid-cursor", str(exc), instance=_path(request))


async def _asset_mismatch(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, AssetMismatchError)
    return problem_response("asset-mismatch", str(exc), instance=_path(request), sha256=exc.actual)


async def _asset_type(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, UnsupportedAssetError)
    return problem_response("asset-type", str(exc), instance=_path(request), allowed=exc.allowed)


async def _unsatisfiable(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, RangeNotSatisfiableError)
    headers = {"Content-Range": f"bytes */{exc.size}"}
    return problem_response("range-not-satisfiable", str(exc), instance=_path(request), headers=headers)


async def _disconnected(request: Request, _exc: Exception) -> Response:
    """The client went away before its body was complete: nothing was done, and nobody reads this answer.

    Without a handler of its own it would be an internal error, logged with a traceback, for what is
    the client's doing; the server (uvicorn) drops the answer to a closed connection.
    """
    return problem_response(
        "invalid-request", "the client closed the connection before the body was complete", instance=_path(request)
    )


async def _storage(request: Request, exc: Exception) -> Response:
    """Logged (and counted) where it was found, with what is missing; the body names no sha256."""
    return problem_response("storage-inconsistent", str(exc), instance=_path(request))


async def _internal(request: Request, _exc: Exception) -> Response:
    return problem_response("internal-error", "the server failed; the error was logged", instance=_path(request))


_HANDLERS: Final[tuple[tuple[type[Exception], Any], ...]] = (
    (UnauthorizedError, _unauthorized),
    (ForbiddenError, _forbidden),
    (NotFoundError, _not_found),
    (ConflictError, _conflict),
    (PayloadTooLargeError, _too_large),
    (UnsupportedMediaTypeError, _media_type),
    (UnreadablePackError, _unreadable),
    (InvalidPackError, _invalid),
    (MissingPackIdError, _no_pack_id),
    (ProblemError, _named),
    (LintFailedError, _lint_failed),
    (InvalidCursorError, _invalid_cursor),
    (AssetMismatchError, _asset_mismatch),
    (UnsupportedAssetError, _asset_type),
    (RangeNotSatisfiableError, _unsatisfiable),
    (StorageInconsistentError, _storage),
    (RequestValidationError, _bad_request),
    (StarletteHTTPException, _http_error),
    (ClientDisconnect, _disconnected),
    (Exception, _internal),
)
"""Each exception a request can end with, and its problem+json handler (the most specific first)."""


def install(app: FastAPI) -> None:
    """Register a handler for every exception a request can end with."""
    for kind, handler in _HANDLERS:
        app.add_exception_handler(kind, handler)
